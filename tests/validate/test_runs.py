"""Which NCCL the nccl_tests role builds against, from a node's gathered facts."""

from vfix.facts.model import HostFacts, NcclLibrary, Versions
from vfix.validate.runs import nccl_home_from_facts


def facts(*libraries: NcclLibrary) -> HostFacts:
    return HostFacts(host="gpu1", collected_at="2026-12-02T00:00:00Z",
                     versions=Versions(nccl=list(libraries)))


def test_the_library_torch_loads_wins_over_the_system_one():
    system = NcclLibrary(path="/usr/lib/x86_64-linux-gnu/libnccl.so.2", version="2.28.3",
                         origin="system", package="libnccl2")
    wheel = NcclLibrary(path="/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/"
                        "libnccl.so.2", version="2.28.9", origin="pip", loaded_by_torch=True)
    assert nccl_home_from_facts(facts(system, wheel)) == \
        "/opt/venv/lib/python3.12/site-packages/nvidia/nccl"


def test_unknown_when_torch_loads_none_the_role_detects_on_the_node():
    system = NcclLibrary(path="/usr/lib/x86_64-linux-gnu/libnccl.so.2", version="2.28.3")
    assert nccl_home_from_facts(facts(system)) is None
    assert nccl_home_from_facts(facts()) is None


def test_a_system_nccl_that_torch_loads_builds_against_usr():
    system = NcclLibrary(path="/usr/lib/x86_64-linux-gnu/libnccl.so.2", version="2.28.3",
                         loaded_by_torch=True)
    assert nccl_home_from_facts(facts(system)) == "/usr"
