"""Export helpers for serving the detector with Triton Inference Server (model repository layout, config.pbtxt)."""
from .export import export_model_repository, write_config_pbtxt

__all__ = ["export_model_repository", "write_config_pbtxt"]
__version__ = "0.4.1"
