"""Property tests: every parser takes any text (or JSON) and never raises."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vfix.facts import build_facts
from vfix.facts.gpus import parse_nvlink_status
from vfix.facts.gpus_nvml import decode_clock_events, gpu_from_nvml
from vfix.facts.nvsmi_csv import apps_from_query_rows, gpus_from_query_rows, parse_query_csv
from vfix.facts.nvsmi_xml import parse_smi_xml
from vfix.facts.processes import decode_address
from vfix.facts.system import parse_acs, parse_ip_addresses, parse_key_values, parse_limits
from vfix.facts.topology import parse_p2p_matrix, parse_topo_matrix_with_errors
from vfix.facts.versions import parse_driver_proc, parse_os_release

DATA = Path(__file__).resolve().parents[1] / "data"
XML = (DATA / "h200-1gpu" / "nvidia-smi-q.xml").read_text()
TOPO = (DATA / "topo" / "h100-8gpu-nv18-8nic.txt").read_text()
CSV = (DATA / "h200-1gpu" / "query-gpu.csv").read_text()
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                               max_size=4),
    max_leaves=25)


def damaged(text: str) -> st.SearchStrategy[str]:
    """A real capture cut anywhere and/or with random junk spliced in."""
    return st.tuples(st.integers(0, len(text)), st.integers(0, len(text)),
                     st.text(max_size=30)).map(lambda t: text[: t[0]] + t[2] + text[t[1]:])


@FAST
@given(st.text() | damaged(TOPO))
def test_topology_parsers(text: str) -> None:
    topo, errors = parse_topo_matrix_with_errors(text)
    assert isinstance(errors, list) and set(topo.links) <= set(topo.devices)
    parse_p2p_matrix(text)


@FAST
@given(st.text() | damaged(XML))
def test_smi_xml(text: str) -> None:
    parsed = parse_smi_xml(text)
    assert all(gpu.index == n for n, gpu in enumerate(parsed.gpus))


@FAST
@given(st.text() | damaged(CSV))
def test_query_csv(text: str) -> None:
    rows, _ = parse_query_csv(text)
    gpus_from_query_rows(rows, "x")
    apps_from_query_rows(rows)


@FAST
@given(st.dictionaries(st.sampled_from(["index", "name", "memory", "pci", "compute_capability",
                                        "mig_mode", "remapped_rows", "nvlink", "processes",
                                        "power_draw_mw", "clock_event_reasons", "persistence_mode",
                                        "compute_mode", "ecc_mode"]), json_values))
def test_pynvml_section(raw: dict[str, object]) -> None:
    raw["index"] = 0
    gpu_from_nvml(raw)


@FAST
@given(st.text())
def test_text_parsers(text: str) -> None:
    parse_nvlink_status(text)
    parse_driver_proc(text)
    parse_os_release(text)
    parse_limits(text)
    parse_acs(text)
    parse_ip_addresses(text)
    parse_key_values(text)
    decode_address(text)
    decode_clock_events(text)


@FAST
@given(st.dictionaries(st.sampled_from(["host", "gpus", "system", "topology", "processes",
                                        "python", "libraries", "os", "network", "kernel_logs",
                                        "errors", "collected_at"]), json_values))
def test_build_facts_never_raises_on_objects(document: dict[str, object]) -> None:
    facts = build_facts(document, host="h")
    assert facts.host == "h"
