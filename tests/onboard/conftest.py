from tests.validate.conftest import torch_cpu_dir  # noqa: F401 - the shared fixture
