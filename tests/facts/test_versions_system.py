"""Versions (driver, NCCL origins and torch's NCCL), system texts and socket decoding."""

from __future__ import annotations

import json
from typing import Any

from vfix.facts.processes import decode_address
from vfix.facts.system import parse_acs, parse_ip_addresses, parse_key_values, parse_limits
from vfix.facts.versions import (
    build_versions,
    nccl_version_from_code,
    parse_driver_proc,
    parse_os_release,
)

SITE = "/opt/torch/.venv/lib/python3.12/site-packages"


def test_driver_proc_open_and_proprietary() -> None:
    assert parse_driver_proc(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build"
        "  (nixbld@)\nGCC version:  gcc version 15.3.0 (GCC)\n")[:2] == ("580.159.04", "open")
    assert parse_driver_proc(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC"
        " 2023\n")[:2] == ("535.104.05", "proprietary")
    assert parse_driver_proc("") == (None, None, None)


def test_os_release_and_nccl_codes() -> None:
    assert parse_os_release('ID=ubuntu\nVERSION_ID="24.04"\n# c\n') == {"ID": "ubuntu",
                                                                        "VERSION_ID": "24.04"}
    assert nccl_version_from_code(22809) == "2.28.9"
    assert nccl_version_from_code(2708) == "2.7.8"


def _probe(helper: dict[str, Any], files: list[dict[str, Any]], ldconfig: str = "") -> dict:
    return {"python": {"interpreter": "python3", "rc": 0, "text": json.dumps(helper)},
            "libraries": {"files": files, "ldconfig": {"text": ldconfig}},
            "os": {"glibc": "glibc 2.39", "kernel": "6.8.0"}}


def test_two_ncclls_pip_one_is_torchs() -> None:
    helper = {"executable": "/usr/bin/python3", "version": "3.12.3",
              "packages": {"torch": "2.11.0", "nvidia-nccl-cu13": "2.28.9"},
              "torch": {"dir": SITE + "/torch", "version_py": "__version__ = '2.11.0+cu130'\n"
                        "cuda: Optional[str] = '13.0'\n"},
              "libraries": [{"path": SITE + "/nvidia/nccl/lib/libnccl.so.2",
                             "package": "nvidia-nccl-cu13", "version": "2.28.9"}]}
    files = [{"path": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3", "kind": "nccl",
              "origin": "system", "package": "libnccl2", "version": "2.28.3-1+cuda13.0",
              "aliases": ["/usr/lib/x86_64-linux-gnu/libnccl.so.2"]}]
    errors: list[tuple[str, str]] = []
    versions = build_versions(_probe(helper, files), {}, errors)
    assert errors == []
    by_origin = {lib.origin: lib for lib in versions.nccl}
    assert by_origin["pip"].version == "2.28.9" and by_origin["pip"].loaded_by_torch
    assert by_origin["system"].version == "2.28.3" and not by_origin["system"].loaded_by_torch
    assert by_origin["system"].package == "libnccl2"
    assert versions.torch_cuda == "13.0" and versions.package("torch") == "2.11.0"
    assert versions.glibc == "2.39"


def test_torch_bundled_nccl_wins_and_ctypes_fallback() -> None:
    helper = {"packages": {"torch": "2.1.0"}, "torch": {"dir": SITE + "/torch"},
              "libraries": [{"path": SITE + "/torch/lib/libnccl.so.2", "package": "torch",
                             "version": "2.1.0"}]}
    files = [{"path": "/opt/nccl/lib/libnccl.so.2", "kind": "nccl", "origin": "local",
              "ctypes": {"rc": 0, "text": "21805\n"}}]
    versions = build_versions(_probe(helper, files), {}, [])
    by_path = {lib.path: lib for lib in versions.nccl}
    assert by_path[SITE + "/torch/lib/libnccl.so.2"].origin == "torch-bundled"
    assert by_path[SITE + "/torch/lib/libnccl.so.2"].loaded_by_torch
    assert by_path["/opt/nccl/lib/libnccl.so.2"].version == "2.18.5"


def test_no_torch_wheel_nccl_means_the_loaders_choice() -> None:
    helper = {"packages": {"torch": "2.5.0"}, "torch": {"dir": "/usr/lib/python3/torch"},
              "libraries": []}
    files = [{"path": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5", "kind": "nccl",
              "origin": "system", "aliases": ["/usr/lib/x86_64-linux-gnu/libnccl.so.2"]}]
    ldconfig = "\tlibnccl.so.2 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so.2\n"
    versions = build_versions(_probe(helper, files, ldconfig), {}, [])
    assert versions.nccl[0].loaded_by_torch and versions.nccl[0].version == "2.21.5"


def test_broken_python_helper_is_an_error_not_a_crash() -> None:
    errors: list[tuple[str, str]] = []
    probe = {"python": {"interpreter": "python9", "error": "not found: python9"}}
    assert build_versions(probe, {}, errors).python is None
    assert errors == [("versions.python", "python9: not found: python9")]
    errors.clear()
    probe = {"python": {"interpreter": "python3", "rc": 1, "text": "{tru",
                        "stderr": "Traceback\nSyntaxError: bad"}}
    build_versions(probe, {}, errors)
    assert errors[0][1] == "python3: package helper failed: SyntaxError: bad"


def test_limits_acs_addresses_key_values() -> None:
    limits = parse_limits("Limit   Soft Limit   Hard Limit   Units\n"
                          "Max open files            1024                 1048576   files\n"
                          "Max locked memory         unlimited            unlimited bytes\n")
    assert (limits.nofile_soft, limits.nofile_hard, limits.memlock_soft) == (1024, 1048576, -1)
    acs = parse_acs("00:01.1 PCI bridge: AMD Device 149f\n\t\tACSCtl:\tSrcValid+ TransBlk- "
                    "ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
                    "01:00.0 VGA compatible controller: NVIDIA Corporation AD102GL\n")
    assert acs[0].device == "00:01.1"
    assert acs[0].enabled_flags == ["SrcValid+", "ReqRedir+", "CmpltRedir+", "UpstreamFwd+"]
    ip = parse_ip_addresses("1: lo    inet 127.0.0.1/8 scope host lo\n"
                            "2: eth0    inet6 fe80::1/64 scope link \\ valid_lft forever\n"
                            "3: bond0@eth1    inet 10.0.0.2/24 brd 10.0.0.255 scope global\n")
    assert ip == {"lo": ["127.0.0.1/8"], "eth0": ["fe80::1/64"], "bond0": ["10.0.0.2/24"]}
    assert parse_key_values("# x\nNCCL_P2P_LEVEL=NVL\n\nbad line\n") == {
        "NCCL_P2P_LEVEL": "NVL"}


def test_proc_net_tcp_addresses() -> None:
    assert decode_address("0100007F:1F90") == ("127.0.0.1", 8080)
    assert decode_address("00000000000000000000000001000000:0016") == ("::1", 22)
    assert decode_address("0000000000000000FFFF00000100007F:0050") == ("127.0.0.1", 80)
    assert decode_address("zz:1") is None and decode_address("0102:10") is None
