"""Inventories read before a run: hosts, groups, vfix_* vars; bad ones are one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.ansible.inventory import load_inventory
from vfix.errors import VfixError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "inventories" / "example"


def test_the_example_cluster_has_two_sku_groups_with_their_vars():
    inventory = load_inventory(EXAMPLE)
    assert inventory.names == ["h200-01", "h200-02", "h200-03", "h200-04", "l40s-01", "l40s-02"]
    h200, l40s = inventory.host("h200-01"), inventory.host("l40s-01")
    assert h200.groups == ("gpu_h200", "vllm")
    assert h200.vfix_vars["vfix_gpu_count"] == 8
    assert l40s.vfix_vars["vfix_gpu_count"] == 4
    assert inventory.host("l40s-02").vfix_vars["vfix_gpu_count"] == 3  # host_vars win
    assert "ansible_user" not in h200.vfix_vars and "shm_size" not in h200.vfix_vars
    assert h200.vfix_vars["vfix_versions"]["versions_nccl_wheel_version"] == "2.28.9"


def test_limit_patterns_select_hosts():
    assert load_inventory(EXAMPLE, "gpu_l40s").names == ["l40s-01", "l40s-02"]
    assert load_inventory(EXAMPLE, "vllm:!gpu_h200:!l40s-02").names == ["l40s-01"]


def test_the_local_default_is_this_machine():
    inventory = load_inventory(REPO / "inventories" / "local")
    assert inventory.names == ["localhost"]
    assert inventory.hosts[0].groups == ()


def test_a_comma_host_list_works():
    assert load_inventory("a.example,b.example,", "b.example").names == ["b.example"]


@pytest.mark.parametrize(("content", "message"), [
    ("all: [unclosed\n", "cannot be parsed"),
])
def test_unparsable_inventory_is_one_line(tmp_path, content, message):
    bad = tmp_path / "hosts.yml"
    bad.write_text(content)
    with pytest.raises(VfixError, match=message) as raised:
        load_inventory(bad)
    assert "\n" not in raised.value.reason


def test_missing_inventory_and_empty_limit_are_errors(tmp_path):
    with pytest.raises(VfixError, match="does not exist"):
        load_inventory(tmp_path / "nope.yml")
    with pytest.raises(VfixError, match="has no hosts"):
        load_inventory(EXAMPLE, "no_such_group")


def test_cached_facts_never_pass_for_inventory_vars(tmp_path, monkeypatch):
    cache = tmp_path / "fact_cache"
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN", "jsonfile")
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN_CONNECTION", str(cache))
    from ansible.plugins.loader import cache_loader

    from vfix.ansible.loader import ensure_plugin_loader

    ensure_plugin_loader()
    cache_loader.get("ansible.builtin.jsonfile", _uri=str(cache)).set(
        "l40s-01", {"vfix_probe": {"stale": True}})
    host = load_inventory(EXAMPLE, "l40s-01").hosts[0]
    assert "vfix_probe" not in host.vfix_vars
    assert host.vfix_vars["vfix_gpu_count"] == 4
