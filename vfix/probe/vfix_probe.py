#!/usr/bin/python
"""vfix node probe: read-only evidence about one GPU node, as one JSON document.

Stdlib only, Python >= 3.8, no vfix needed on the node. Two ways to run it:

* script: ``python3 vfix_probe.py [--python python3] [--section-timeout S] [--sysctl NAME ...]``
  prints the probe document on stdout;
* Ansible module ``vfix_probe`` (old-style, WANT_JSON) with args ``python_interpreter``,
  ``extra_sysctls``, ``section_timeout``; returns
  ``{"changed": false, "ansible_facts": {"vfix_probe": <document>}}``.

The document holds raw evidence (command output, file text, each with its origin) plus what the
stdlib extracts cheaply; the controller (``vfix.facts``) does the parsing. Sections run in
threads, each bounded by the section timeout; every external command has a timeout. A section
that fails becomes an entry in ``errors``; the probe never crashes and never changes the node.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

PROBE_VERSION = "1"
DEFAULT_SYSCTLS = (
    "kernel.pid_max",
    "vm.overcommit_memory",
    "vm.overcommit_ratio",
    "kernel.numa_balancing",
    "fs.file-max",
)
ENV_PREFIXES = ("NCCL_", "CUDA_", "VLLM_", "NVIDIA_", "TORCH_NCCL_", "GLOO_", "UCX_", "RAY_")
ENV_EXACT = ("LD_LIBRARY_PATH", "PATH", "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS")
SECRET_WORDS = re.compile(r"(TOKEN|SECRET|PASSW|PASSWD|KEY|CREDENTIAL|AUTH|COOKIE|SESSION)", re.I)
REDACTED = "<redacted>"
MAX_TEXT = 200_000  # chars kept from any one command or file: the document stays compact

# File reads go through ROOT so tests can point the probe at a fake /proc, /sys, /etc.
ROOT = os.environ.get("VFIX_PROBE_ROOT", "")


# --- evidence helpers ---------------------------------------------------------------------------


def _path(path: str) -> str:
    return ROOT + path if ROOT else path


def read_text(path: str, limit: int = MAX_TEXT) -> str | None:
    """Text of a file (undecodable bytes replaced), or None when absent or unreadable."""
    try:
        with open(_path(path), "rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError):
        return None
    return data[:limit].decode("utf-8", "replace")


def file_evidence(path: str, limit: int = MAX_TEXT) -> dict:
    try:
        with open(_path(path), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        return {"origin": path, "error": error.strerror or str(error)}
    doc: dict = {"origin": path, "text": data[:limit].decode("utf-8", "replace")}
    if len(data) > limit:
        doc["truncated"] = True
    return doc


def which(name: str) -> str | None:
    return shutil.which(name)


def run(argv: list, timeout: float, origin: str | None = None, env: dict | None = None) -> dict:
    """Run a read-only command with a timeout; its output as evidence (never raises)."""
    doc: dict = {"origin": origin or " ".join(argv)}
    exe = which(argv[0]) if "/" not in argv[0] else argv[0]
    if exe is None:
        doc["error"] = f"not found: {argv[0]}"
        return doc
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [exe, *list(argv[1:])],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        doc["error"] = f"timed out after {timeout:g}s"
        return doc
    except OSError as error:
        doc["error"] = "cannot run: %s" % (error.strerror or error)
        return doc
    doc["rc"] = proc.returncode
    doc["seconds"] = round(time.monotonic() - started, 3)
    doc["text"] = proc.stdout[:MAX_TEXT].decode("utf-8", "replace")
    if len(proc.stdout) > MAX_TEXT:
        doc["truncated"] = True
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    if stderr:
        doc["stderr"] = stderr[-2000:]
    return doc


def list_dir(path: str) -> list | None:
    try:
        return sorted(os.listdir(_path(path)))
    except OSError:
        return None


def redact_value(name: str, value: str) -> str:
    return REDACTED if SECRET_WORDS.search(name) else value


# --- sections -----------------------------------------------------------------------------------


def section_os(opts: dict) -> dict:
    uname = platform.uname()
    glibc = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        glibc = os.confstr("CS_GNU_LIBC_VERSION")
    return {
        "hostname": socket.gethostname(),
        "kernel": uname.release,
        "machine": uname.machine,
        "glibc": glibc,
        "os_release": file_evidence("/etc/os-release"),
        "cmdline": file_evidence("/proc/cmdline"),
        "probe_python": ".".join(str(n) for n in sys.version_info[:3]),
    }


# Runs under the asked-for interpreter: package versions from the *.dist-info names (metadata
# on disk, never importing the packages, never parsing every METADATA file: that is slow).
PYTHON_HELPER = r"""
import json, os, sys
out = {"executable": sys.executable, "version": "%d.%d.%d" % tuple(sys.version_info[:3])}
WANT = ("torch", "torchvision", "torchaudio", "vllm", "ray", "transformers", "triton",
        "pytorch-triton", "xformers", "flashinfer-python", "flashinfer", "nvidia-ml-py", "pynvml",
        "deepspeed", "accelerate", "cupy-cuda12x", "cupy-cuda13x", "nixl", "lmcache")
sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]
pkgs, libs, torch = {}, [], None
for site in sites:
    for entry in sorted(os.listdir(site)):
        if not entry.endswith((".dist-info", ".egg-info")):
            continue
        parts = entry.rsplit(".", 1)[0].split("-")
        name = parts[0].lower().replace("_", "-").replace(".", "-")
        if len(parts) < 2 or name in pkgs or not (name in WANT or name.startswith("nvidia-")):
            continue
        pkgs[name] = parts[1]  # the first on sys.path wins, as for import
        if not (name.startswith(("nvidia-nccl", "nvidia-cuda-runtime")) or name == "torch"):
            continue
        try:
            with open(os.path.join(site, entry, "RECORD")) as handle:
                record = [line.split(",")[0] for line in handle if ".so" in line
                          and ("libnccl" in line or "libcudart" in line)]
        except OSError:
            record = []
        for rel in record:
            libs.append({"path": os.path.realpath(os.path.join(site, rel)), "record": rel,
                         "package": name, "version": parts[1]})
        if name == "torch":
            torch = {"dir": os.path.join(site, "torch"), "version_py": None}
            try:
                with open(os.path.join(site, "torch", "version.py")) as handle:
                    torch["version_py"] = handle.read(4000)
            except OSError:
                pass
out.update(site=sites, packages=pkgs, libraries=libs, torch=torch)
print(json.dumps(out))
"""


def section_python(opts: dict) -> dict:
    interpreter = opts["python"]
    doc = run([interpreter, "-I", "-c", PYTHON_HELPER], opts["timeout"],
              origin=f"{interpreter} -I -c <vfix package metadata helper>")
    doc["interpreter"] = interpreter
    return doc


LIB_DIRS = (
    ("system", "/usr/lib/x86_64-linux-gnu"),
    ("system", "/usr/lib/aarch64-linux-gnu"),
    ("system", "/usr/lib64"),
    ("system", "/usr/lib"),
    ("system", "/lib/x86_64-linux-gnu"),
    ("system", "/lib64"),
    ("local", "/usr/local/lib"),
    ("local", "/usr/local/nccl*/lib"),
    ("local", "/opt/nccl*/lib"),
    ("local", "/usr/local/cuda*/lib64"),
    ("local", "/usr/local/cuda*/targets/*/lib"),
    ("conda", "/opt/conda/lib"),
    ("conda", "/opt/conda/envs/*/lib"),
    ("conda", "/root/*conda3/lib"),
    ("conda", "/home/*/*conda3/lib"),
    ("conda", "/home/*/*conda3/envs/*/lib"),
    ("pip", "/usr/lib/python3*/*-packages/nvidia/nccl/lib"),
    ("pip", "/usr/local/lib/python3*/*-packages/nvidia/nccl/lib"),
    ("pip", "/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib"),
)


def _lib_dirs() -> list:
    dirs = []
    for origin, pattern in LIB_DIRS:
        for found in sorted(glob.glob(_path(pattern))):
            dirs.append((origin, found))
    if os.environ.get("CONDA_PREFIX"):
        dirs.append(("conda", os.path.join(os.environ["CONDA_PREFIX"], "lib")))
    for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if entry:
            dirs.append(("ld_library_path", entry))
    return dirs


def _dpkg_owner(real: str, aliases: list) -> dict | None:
    """The package that ships the real file (libnccl2), not one shipping a symlink to it
    (libnccl-dev owns libnccl.so)."""
    lists = {}
    for list_file in sorted(glob.glob(_path("/var/lib/dpkg/info/*.list"))):
        base = os.path.basename(list_file)
        if base.startswith(("libnccl", "cuda-cudart", "libcudart")):
            text = read_text(list_file[len(ROOT):] if ROOT else list_file) or ""
            lists[base[: -len(".list")].split(":")[0]] = {line.strip() for line in
                                                          text.splitlines()}
    for wanted in ([real], aliases):
        for package, paths in lists.items():
            if any(name in paths for name in wanted):
                return {"package": package, "version": _dpkg_version(package)}
    return None


def _dpkg_version(package: str) -> str | None:
    status = read_text("/var/lib/dpkg/status", limit=20_000_000) or ""
    match = re.search(rf"^Package: {re.escape(package)}\n(?:.+\n)*?Version: (.+)$", status, re.M)
    return match.group(1) if match else None


def section_libraries(opts: dict) -> dict:
    """Every libnccl / libcudart on the node, by real file, with where it lives."""
    seen: dict = {}
    for origin, directory in _lib_dirs():
        for pattern in ("libnccl.so*", "libcudart.so*"):
            for path in glob.glob(os.path.join(directory, pattern)):
                shown = path[len(ROOT):] if ROOT and path.startswith(ROOT) else path
                real = os.path.realpath(path)
                real_shown = real[len(ROOT):] if ROOT and real.startswith(ROOT) else real
                entry = seen.setdefault(real_shown, {
                    "path": real_shown, "kind": "nccl" if "nccl" in pattern else "cudart",
                    "origin": origin, "aliases": [],
                })
                if shown != real_shown and shown not in entry["aliases"]:
                    entry["aliases"].append(shown)
    for entry in seen.values():
        if entry["origin"] == "system" and os.path.isdir(_path("/var/lib/dpkg/info")):
            owner = _dpkg_owner(entry["path"], entry["aliases"])
            if owner:
                entry.update(owner)
    cuda_versions = {}
    for version_file in sorted(glob.glob(_path("/usr/local/cuda*/version.json"))):
        shown = version_file[len(ROOT):] if ROOT else version_file
        cuda_versions[shown] = (read_text(shown, limit=20_000) or "")
    return {
        "files": sorted(seen.values(), key=lambda e: e["path"]),
        "ldconfig": _ldconfig(opts),
        "cuda_version_files": cuda_versions,
    }


def _ldconfig(opts: dict) -> dict:
    doc = run(["ldconfig", "-p"], opts["timeout"])
    if "text" in doc:
        keep = [line for line in doc["text"].splitlines()
                if "libnccl" in line or "libcudart" in line or "libcuda.so" in line
                or "libnvidia-ml" in line]
        doc["text"] = "\n".join(keep)
        doc["filtered"] = "lines naming libnccl, libcudart, libcuda.so, libnvidia-ml"
    if "error" in doc and which("ldconfig") is None and os.path.exists("/sbin/ldconfig"):
        doc = run(["/sbin/ldconfig", "-p"], opts["timeout"])
    return doc


def nccl_version_by_ctypes(path: str, timeout: float) -> dict:
    """ncclGetVersion() of one library, in a child process so a bad library cannot hurt us."""
    code = ("import ctypes,sys;lib=ctypes.CDLL(sys.argv[1]);v=ctypes.c_int();"
            "lib.ncclGetVersion(ctypes.byref(v));print(v.value)")
    return run([sys.executable, "-I", "-c", code, path], timeout,
               origin=f"ncclGetVersion({path})")


# --- GPUs ---------------------------------------------------------------------------------------


def _nvml_value(fn, *args):
    try:
        value = fn(*args)
    except Exception as error:  # NVMLError_NotSupported and friends become data
        return {"error": type(error).__name__ + (f": {error}" if str(error) else "")}
    return _plain(value)


def _plain(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "_fields_"):
        return {field[0]: _plain(getattr(value, field[0])) for field in value._fields_}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _collect_pynvml(pynvml) -> dict:
    nv = pynvml
    data: dict = {
        "driver_version": _nvml_value(nv.nvmlSystemGetDriverVersion),
        "cuda_driver_version": _nvml_value(nv.nvmlSystemGetCudaDriverVersion),
        "nvml_version": _nvml_value(nv.nvmlSystemGetNVMLVersion),
        "gpus": [],
    }
    count = nv.nvmlDeviceGetCount()
    reasons = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
        nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
    uncorrected = nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
    architecture = getattr(nv, "nvmlDeviceGetArchitecture", None)  # newer nvidia-ml-py only
    for index in range(count):
        h = nv.nvmlDeviceGetHandleByIndex(index)
        gpu = {
            "index": index,
            "name": _nvml_value(nv.nvmlDeviceGetName, h),
            "uuid": _nvml_value(nv.nvmlDeviceGetUUID, h),
            "pci": _nvml_value(nv.nvmlDeviceGetPciInfo, h),
            "compute_capability": _nvml_value(nv.nvmlDeviceGetCudaComputeCapability, h),
            "memory": _memory(nv, h),
            "persistence_mode": _nvml_value(nv.nvmlDeviceGetPersistenceMode, h),
            "mig_mode": _nvml_value(nv.nvmlDeviceGetMigMode, h),
            "compute_mode": _nvml_value(nv.nvmlDeviceGetComputeMode, h),
            "ecc_mode": _nvml_value(nv.nvmlDeviceGetEccMode, h),
            "ecc_uncorrected_volatile": _nvml_value(
                nv.nvmlDeviceGetTotalEccErrors, h, uncorrected, nv.NVML_VOLATILE_ECC),
            "ecc_uncorrected_aggregate": _nvml_value(
                nv.nvmlDeviceGetTotalEccErrors, h, uncorrected, nv.NVML_AGGREGATE_ECC),
            "retired_pages_pending": _nvml_value(nv.nvmlDeviceGetRetiredPagesPendingStatus, h),
            "remapped_rows": _nvml_value(nv.nvmlDeviceGetRemappedRows, h),
            "pcie_gen_current": _nvml_value(nv.nvmlDeviceGetCurrPcieLinkGeneration, h),
            "pcie_gen_max": _nvml_value(nv.nvmlDeviceGetMaxPcieLinkGeneration, h),
            "pcie_width_current": _nvml_value(nv.nvmlDeviceGetCurrPcieLinkWidth, h),
            "pcie_width_max": _nvml_value(nv.nvmlDeviceGetMaxPcieLinkWidth, h),
            "clock_sm": _nvml_value(nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_SM),
            "clock_sm_max": _nvml_value(nv.nvmlDeviceGetMaxClockInfo, h, nv.NVML_CLOCK_SM),
            "clock_mem": _nvml_value(nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_MEM),
            "clock_mem_max": _nvml_value(nv.nvmlDeviceGetMaxClockInfo, h, nv.NVML_CLOCK_MEM),
            "clock_sm_applications": _nvml_value(
                nv.nvmlDeviceGetApplicationsClock, h, nv.NVML_CLOCK_SM),
            "clock_event_reasons": _nvml_value(reasons, h) if reasons else None,
            "power_draw_mw": _nvml_value(nv.nvmlDeviceGetPowerUsage, h),
            "power_limit_mw": _nvml_value(nv.nvmlDeviceGetEnforcedPowerLimit, h),
            "temperature_c": _nvml_value(nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU),
            "vbios": _nvml_value(nv.nvmlDeviceGetVbiosVersion, h),
            "architecture": _nvml_value(architecture, h) if architecture else None,
            "processes": _nvml_value(nv.nvmlDeviceGetComputeRunningProcesses, h),
            "nvlink": [],
        }
        for link in range(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18)):
            state = _nvml_value(nv.nvmlDeviceGetNvLinkState, h, link)
            gpu["nvlink"].append({"link": link, "state": state})
            if isinstance(state, dict):  # NotSupported (no NVLink) or past the last link
                break
        data["gpus"].append(gpu)
    return data


def _memory(nv, handle) -> object:
    """v2 splits driver-reserved memory out of "used", as nvidia-smi shows it; v1 fallback."""
    version = getattr(nv, "nvmlMemory_v2", None)
    if version is not None:
        value = _nvml_value(nv.nvmlDeviceGetMemoryInfo, handle, version)
        if not (isinstance(value, dict) and "error" in value):
            return value
    return _nvml_value(nv.nvmlDeviceGetMemoryInfo, handle)


def _pynvml_module():
    try:
        import pynvml
    except Exception as error:
        return None, f"pynvml not importable: {error}"
    return pynvml, None


def section_gpus(opts: dict) -> dict:
    """GPU facts from pynvml when it works, else from `nvidia-smi -q -x` (or query CSV)."""
    doc: dict = {"driver_proc": file_evidence("/proc/driver/nvidia/version")}
    pynvml, why = _pynvml_module() if opts["use_pynvml"] else (None, "pynvml disabled")
    if pynvml is not None:
        try:
            pynvml.nvmlInit()
        except Exception as error:
            why = f"nvmlInit failed: {error}"
        else:
            try:
                doc["pynvml"] = _collect_pynvml(pynvml)
                doc["source"] = "pynvml"
            except Exception as error:
                why = f"pynvml query failed: {error}"
            finally:
                with contextlib.suppress(Exception):
                    pynvml.nvmlShutdown()
    if "pynvml" not in doc:
        doc["pynvml_unavailable"] = why
        doc.update(_gpus_from_nvidia_smi(opts))
    return doc


SUPPORTED_CLOCKS = re.compile(r"<supported_clocks>.*?</supported_clocks>", re.S)
QUERY_GPU_FIELDS = (
    "index,name,uuid,pci.bus_id,driver_version,vbios_version,persistence_mode,mig.mode.current,"
    "mig.mode.pending,compute_mode,compute_cap,memory.total,memory.used,ecc.mode.current,"
    "ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,"
    "retired_pages.pending,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
    "pcie.link.width.max,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
    "clocks_event_reasons.active,power.draw,power.limit,temperature.gpu"
)


def _gpus_from_nvidia_smi(opts: dict) -> dict:
    doc: dict = {}
    if which("nvidia-smi") is None:
        doc["source"] = None
        doc["nvidia_smi"] = {"origin": "nvidia-smi", "error": "not found: nvidia-smi"}
        return doc
    xml = run(["nvidia-smi", "-q", "-x"], opts["timeout"])
    if "text" in xml:
        stripped = SUPPORTED_CLOCKS.sub("<supported_clocks/>", xml["text"])
        if stripped != xml["text"]:
            xml["text"] = stripped
            xml["elided"] = "supported_clocks"
    doc["smi_xml"] = xml
    doc["source"] = "nvidia-smi -q -x"
    # The CSV also holds compute_cap, which the XML lacks; it is the fallback when XML fails.
    doc["query_gpu"] = run(["nvidia-smi", "--query-gpu=" + QUERY_GPU_FIELDS, "--format=csv"],
                           opts["timeout"])
    if xml.get("rc") != 0 or not xml.get("text", "").strip():
        doc["source"] = "nvidia-smi --query-gpu"
    doc["query_apps"] = run(["nvidia-smi", "--query-compute-apps=pid,used_memory,gpu_uuid",
                             "--format=csv"], opts["timeout"])
    doc["nvlink_status"] = run(["nvidia-smi", "nvlink", "-s"], opts["timeout"])
    return doc


def section_topology(opts: dict) -> dict:
    if which("nvidia-smi") is None:
        return {"topo_m": {"origin": "nvidia-smi topo -m", "error": "not found: nvidia-smi"}}
    return {
        "topo_m": run(["nvidia-smi", "topo", "-m"], opts["timeout"]),
        "topo_p2p_r": run(["nvidia-smi", "topo", "-p2p", "r"], opts["timeout"]),
    }


# --- system -------------------------------------------------------------------------------------


def _sysctl_file(name: str) -> str:
    return "/proc/sys/" + name.replace(".", "/")


def _statvfs(path: str) -> dict:
    try:
        st = os.statvfs(_path(path))
    except OSError as error:
        return {"origin": f"statvfs({path})", "error": error.strerror or str(error)}
    return {"origin": f"statvfs({path})", "size_bytes": st.f_frsize * st.f_blocks,
            "used_bytes": st.f_frsize * (st.f_blocks - st.f_bfree)}


def _cpuinfo() -> dict:
    text = read_text("/proc/cpuinfo", limit=20_000_000)
    if text is None:
        return {"origin": "/proc/cpuinfo", "error": "unreadable"}
    first: dict = {}
    processors = 0
    sockets = set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "processor":
            processors += 1
        elif key == "physical id":
            sockets.add(value.strip())
        elif key in ("vendor_id", "model name", "flags") and key not in first:
            first[key] = value.strip()
    return {"origin": "/proc/cpuinfo", "processors": processors, "sockets": len(sockets) or None,
            "vendor": first.get("vendor_id"), "model": first.get("model name"),
            "hypervisor_flag": "hypervisor" in first.get("flags", "").split()}


def _limits_files() -> dict:
    files = {}
    paths = ["/etc/security/limits.conf"]
    paths += sorted(p[len(ROOT):] if ROOT else p
                    for p in glob.glob(_path("/etc/security/limits.d/*.conf")))
    paths += ["/etc/systemd/system.conf"]
    paths += sorted(p[len(ROOT):] if ROOT else p
                    for p in glob.glob(_path("/etc/systemd/system.conf.d/*.conf")))
    for path in paths:
        text = read_text(path)
        if text is None:
            continue
        files[path] = [line.strip() for line in text.splitlines()
                       if line.strip() and not line.strip().startswith("#")
                       and not line.strip().startswith("[")]
    return files


def _env() -> dict:
    env = {}
    for name, value in os.environ.items():
        if name.startswith(ENV_PREFIXES) or name in ENV_EXACT:
            env[name] = redact_value(name, value)
    return env


def _nccl_conf() -> dict:
    doc = file_evidence("/etc/nccl.conf")
    if "text" in doc:
        lines = []
        for line in doc["text"].splitlines():
            name, sep, value = line.partition("=")
            lines.append(name + sep + redact_value(name, value) if sep else line)
        doc["text"] = "\n".join(lines)
    return doc


def _virtualization(opts: dict) -> dict:
    doc: dict = {
        "dmi": {name: (read_text("/sys/class/dmi/id/" + name) or "").strip() or None
                for name in ("sys_vendor", "product_name", "board_vendor")},
        "dockerenv": os.path.exists(_path("/.dockerenv")),
        "containerenv": os.path.exists(_path("/run/.containerenv")),
        "container_env": os.environ.get("container"),  # noqa: SIM112 - systemd spells it so
        "cgroup": (read_text("/proc/1/cgroup", limit=4000) or "")[:4000] or None,
    }
    if which("systemd-detect-virt"):
        doc["detect_virt_vm"] = run(["systemd-detect-virt", "--vm"], opts["timeout"])
        doc["detect_virt_container"] = run(["systemd-detect-virt", "--container"], opts["timeout"])
    return doc


def _pci_nvidia() -> list:
    """NVIDIA PCI functions from sysfs (no lspci needed): link state and NUMA node."""
    devices = []
    for address in list_dir("/sys/bus/pci/devices") or []:
        base = "/sys/bus/pci/devices/" + address + "/"
        if (read_text(base + "vendor") or "").strip() != "0x10de":
            continue
        entry = {"address": address}
        for name in ("class", "device", "numa_node", "current_link_speed", "current_link_width",
                     "max_link_speed", "max_link_width"):
            value = read_text(base + name)
            entry[name] = value.strip() if value is not None else None
        devices.append(entry)
    return devices


def section_system(opts: dict) -> dict:
    sysctls = list(DEFAULT_SYSCTLS) + [s for s in opts["sysctls"] if s not in DEFAULT_SYSCTLS]
    meminfo = read_text("/proc/meminfo") or ""
    mem_total = next((line for line in meminfo.splitlines() if line.startswith("MemTotal:")), None)
    return {
        "shm": _statvfs("/dev/shm"),
        "mounts_shm": [line for line in (read_text("/proc/mounts") or "").splitlines()
                       if " /dev/shm " in line],
        "meminfo_total": mem_total,
        "cpu": _cpuinfo(),
        "numa_nodes": [n for n in (list_dir("/sys/devices/system/node") or [])
                       if re.match(r"node\d+$", n)],
        "sysctl": {name: (read_text(_sysctl_file(name)) or "").strip() or None
                   for name in sysctls},
        "limits_self": file_evidence("/proc/self/limits"),
        "limits_files": _limits_files(),
        "iommu_groups": list_dir("/sys/kernel/iommu_groups"),
        "iommu_class": list_dir("/sys/class/iommu"),
        "virtualization": _virtualization(opts),
        "env": _env(),
        "nccl_conf": _nccl_conf(),
        "pci_nvidia": _pci_nvidia(),
        "has_systemd": os.path.isdir(_path("/run/systemd/system")),
        "docker": {"binary": which("docker"),
                   "daemon_json": file_evidence("/etc/docker/daemon.json")},
    }


def section_kernel_logs(opts: dict) -> dict:
    """dmesg IOMMU lines and lspci ACS state: both need tools and often root."""
    doc: dict = {}
    dmesg = run(["dmesg"], opts["timeout"])
    if "text" in dmesg:
        dmesg["text"] = "\n".join(line for line in dmesg["text"].splitlines()
                                  if re.search(r"iommu|dmar|amd-vi|AMD-Vi|smmu", line, re.I))
        dmesg["filtered"] = "lines matching iommu|dmar|amd-vi|smmu"
    doc["dmesg"] = dmesg
    lspci = run(["lspci", "-vvv"], opts["timeout"])
    if "text" in lspci:
        lspci["text"] = "\n".join(line for line in lspci["text"].splitlines()
                                  if (line and not line[0].isspace()) or "ACSCtl" in line)
        lspci["filtered"] = "device lines and ACSCtl lines"
    doc["lspci"] = lspci
    return doc


def section_network(opts: dict) -> dict:
    interfaces = []
    for name in list_dir("/sys/class/net") or []:
        base = "/sys/class/net/" + name + "/"
        entry = {"name": name}
        for attr in ("operstate", "mtu", "type", "address"):
            value = read_text(base + attr)
            entry[attr] = value.strip() if value is not None else None
        interfaces.append(entry)
    ib = []
    for device in list_dir("/sys/class/infiniband") or []:
        ports = []
        for port in list_dir(f"/sys/class/infiniband/{device}/ports") or []:
            base = f"/sys/class/infiniband/{device}/ports/{port}/"
            ports.append({"port": port, **{attr: (read_text(base + attr) or "").strip() or None
                                           for attr in ("state", "link_layer", "rate")}})
        ib.append({"name": device, "ports": ports})
    return {"interfaces": interfaces, "addresses": run(["ip", "-o", "addr", "show"],
                                                       opts["timeout"]), "infiniband": ib}


# --- processes ----------------------------------------------------------------------------------


def _stat_fields(pid: str) -> list | None:
    text = read_text(f"/proc/{pid}/stat", limit=4000)
    if not text or ")" not in text:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from 'state' onward


def _user(pid: str) -> str | None:
    status = read_text(f"/proc/{pid}/status", limit=8000) or ""
    match = re.search(r"^Uid:\s+(\d+)", status, re.M)
    if not match:
        return None
    try:
        import pwd

        return pwd.getpwuid(int(match.group(1))).pw_name
    except (KeyError, ImportError):
        return match.group(1)


def _cmdline(pid: str) -> str:
    return (read_text(f"/proc/{pid}/cmdline", limit=4000) or "").replace("\x00", " ").strip()


def section_processes(opts: dict) -> dict:
    boot_time = None
    for line in (read_text("/proc/stat") or "").splitlines():
        if line.startswith("btime "):
            boot_time = int(line.split()[1])
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    gpu_procs = []
    socket_owner: dict = {}
    unreadable = 0
    for pid in list_dir("/proc") or []:
        if not pid.isdigit():
            continue
        fds = list_dir(f"/proc/{pid}/fd")
        if fds is None:
            unreadable += 1
            continue
        devices = set()
        for fd in fds:
            try:
                target = os.readlink(_path(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                continue
            if target.startswith("/dev/nvidia"):
                devices.add(target)
            elif target.startswith("socket:["):
                socket_owner.setdefault(target[8:-1], int(pid))
        if not devices:
            continue
        fields = _stat_fields(pid) or []
        ppid = int(fields[1]) if len(fields) > 1 else None
        if not ROOT and os.getpid() in (int(pid), ppid):
            continue  # the probe itself (NVML) and its own nvidia-smi children
        start = None
        if len(fields) > 19 and boot_time is not None:
            start = boot_time + int(fields[19]) / float(ticks)
        gpu_procs.append({
            "pid": int(pid), "ppid": ppid, "user": _user(pid), "cmdline": _cmdline(pid),
            "start_epoch": start, "devices": sorted(devices),
            "parent_alive": bool(ppid) and os.path.isdir(_path(f"/proc/{ppid}")),
            "parent_cmdline": _cmdline(str(ppid)) if ppid else None,
        })
    listening = []
    for proto in ("tcp", "tcp6"):
        text = read_text("/proc/net/" + proto, limit=50_000_000)
        if text is None:
            continue
        for line in text.splitlines()[1:]:
            parts = line.split()
            if len(parts) > 9 and parts[3] == "0A":  # 0A = TCP_LISTEN
                listening.append({"proto": proto, "line": line.strip(),
                                  "pid": socket_owner.get(parts[9])})
    for entry in listening:
        if entry["pid"] is not None:
            entry["process"] = _cmdline(str(entry["pid"]))[:200]
    return {"gpu": gpu_procs, "listening": listening, "pids_unreadable": unreadable,
            "is_root": hasattr(os, "geteuid") and os.geteuid() == 0}


SECTIONS = (
    ("os", section_os),
    ("python", section_python),
    ("libraries", section_libraries),
    ("gpus", section_gpus),
    ("topology", section_topology),
    ("system", section_system),
    ("kernel_logs", section_kernel_logs),
    ("network", section_network),
    ("processes", section_processes),
)


# --- driver -------------------------------------------------------------------------------------


def collect(python: str = "python3", section_timeout: float = 20.0, sysctls: tuple = (),
            use_pynvml: bool = True) -> dict:
    """Run every section in its own thread; a section past its timeout is reported, not awaited."""
    opts = {"python": python, "timeout": section_timeout, "sysctls": list(sysctls),
            "use_pynvml": use_pynvml}
    started = time.monotonic()
    results: dict = {}
    errors: list = []

    def runner(name, fn):
        try:
            results[name] = fn(opts)
        except Exception as error:  # a failing section is data, never a crash
            errors.append({"section": name, "reason": f"{type(error).__name__}: {error}"})

    threads = []
    for name, fn in SECTIONS:
        thread = threading.Thread(target=runner, args=(name, fn), daemon=True)
        thread.start()
        threads.append((name, thread))
    deadline = started + section_timeout + 2.0  # commands inside have their own timeouts
    for name, thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            errors.append({"section": name, "reason": f"timed out after {section_timeout:g}s"})
    doc: dict = {
        "probe_version": PROBE_VERSION,
        "host": socket.gethostname(),
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "options": {"python": python, "section_timeout": section_timeout,
                    "sysctls": list(sysctls), "use_pynvml": use_pynvml, "root": ROOT or None},
    }
    for name, _ in SECTIONS:
        doc[name] = dict(results.get(name) or {})
    _add_nccl_fallback_versions(doc, section_timeout)
    doc["errors"] = sorted(errors, key=lambda e: e["section"])
    doc["duration_s"] = round(time.monotonic() - started, 3)
    return doc


def _add_nccl_fallback_versions(doc: dict, timeout: float) -> None:
    """A libnccl whose version no file name or package names: ask the library itself."""
    known = {lib.get("path") for lib in _python_libraries(doc)}
    for entry in doc.get("libraries", {}).get("files", []):
        if entry.get("kind") != "nccl" or entry.get("version") or entry["path"] in known:
            continue
        if re.search(r"\.so\.\d+\.\d+\.\d+$", entry["path"]):
            continue
        if ROOT:
            continue  # a fake root holds no loadable libraries
        entry["ctypes"] = nccl_version_by_ctypes(entry["path"], timeout)


def _python_libraries(doc: dict) -> list:
    text = doc.get("python", {}).get("text")
    if not text:
        return []
    try:
        return json.loads(text).get("libraries", [])
    except ValueError:
        return []


def _parse_args(argv: list) -> dict:
    import argparse

    parser = argparse.ArgumentParser(prog="vfix_probe.py", description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="interpreter whose packages to read")
    parser.add_argument("--section-timeout", type=float, default=20.0, metavar="S")
    parser.add_argument("--sysctl", action="append", default=[], metavar="NAME")
    parser.add_argument("--no-pynvml", action="store_true", help="use nvidia-smi only")
    parser.add_argument("--indent", type=int, default=None)
    args = parser.parse_args(argv)
    if args.section_timeout <= 0:
        parser.error("--section-timeout must be positive")
    return vars(args)


def _module_main(args_path: str) -> int:
    """Ansible old-style module: WANT_JSON — argv[1] is a file holding the task's args."""
    try:
        with open(args_path) as handle:
            args = json.load(handle)
        timeout = float(args.get("section_timeout") or 20.0)
        extra = args.get("extra_sysctls") or []
        if isinstance(extra, str):
            extra = [s.strip() for s in extra.split(",") if s.strip()]
        if timeout <= 0 or not all(isinstance(s, str) for s in extra):
            raise ValueError("section_timeout must be > 0 and extra_sysctls a list of names")
        python = str(args.get("python_interpreter") or "python3")
    except (OSError, ValueError, TypeError, AttributeError) as error:
        failure = {"failed": True, "changed": False,
                   "msg": f"vfix_probe: bad args: {error}"}
        print(json.dumps(failure))
        return 1
    document = collect(python=python, section_timeout=timeout, sysctls=tuple(extra))
    print(json.dumps({"changed": False, "ansible_facts": {"vfix_probe": document}}))
    return 0


def main(argv: list | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 1 and not argv[0].startswith("-") and os.path.isfile(argv[0]):
        return _module_main(argv[0])
    opts = _parse_args(argv)
    document = collect(python=opts["python"], section_timeout=opts["section_timeout"],
                       sysctls=tuple(opts["sysctl"]), use_pynvml=not opts["no_pynvml"])
    sys.stdout.write(json.dumps(document, indent=opts["indent"]) + "\n")
    return 0


# WANT_JSON  (marks this file as an old-style Ansible module that reads its args as JSON)
if __name__ == "__main__":
    sys.exit(main())
