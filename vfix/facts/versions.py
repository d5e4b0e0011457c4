"""Driver, CUDA, NCCL, Python package and OS versions from the probe document."""

from __future__ import annotations

import json
import os
import re
from typing import Any

from vfix.facts.model import CudaRuntime, NcclLibrary, PythonEnv, Source, Versions
from vfix.facts.values import clean

KERNEL_MODULE = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)")
SONAME_VERSION = re.compile(r"\.so\.(\d+\.\d+\.\d+)$")
TORCH_CUDA = re.compile(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.M)


def parse_driver_proc(text: str) -> tuple[str | None, str | None, str | None]:
    """/proc/driver/nvidia/version -> (version, "open"|"proprietary", the NVRM line)."""
    for line in (text or "").splitlines():
        if line.startswith("NVRM version"):
            match = KERNEL_MODULE.search(line)
            flavor = "open" if "Open Kernel Module" in line else "proprietary"
            return (match.group(1) if match else None), flavor, line.strip()
    return None, None, None


def parse_os_release(text: str) -> dict[str, str]:
    values = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def nccl_version_from_code(code: int) -> str:
    """ncclGetVersion() code: 22803 -> 2.28.3 (>= 2.9), 2708 -> 2.7.8 (older)."""
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def python_env(probe: dict[str, Any], errors: list[tuple[str, str]]) -> tuple[PythonEnv | None,
                                                                               dict[str, Any]]:
    section = probe.get("python") or {}
    interpreter = str(section.get("interpreter") or (probe.get("options") or {}).get("python")
                      or "python3")
    if "text" not in section:
        if section:
            reason = section.get("error", "no output")
            errors.append(("versions.python", f"{interpreter}: {reason}"))
        return None, {}
    try:
        data = json.loads(section["text"])
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except ValueError as error:
        reason = section.get("stderr") or str(error)
        errors.append(("versions.python", f"{interpreter}: package helper failed: "
                       f"{str(reason).splitlines()[-1] if reason else error}"))
        return None, {}
    packages = {str(k).lower(): str(v) for k, v in (data.get("packages") or {}).items()}
    env = PythonEnv(interpreter=interpreter, executable=data.get("executable"),
                    version=data.get("version"), packages=packages)
    return env, data


def _nccl_libraries(probe: dict[str, Any], helper: dict[str, Any]) -> list[NcclLibrary]:
    libraries = (probe.get("libraries") or {}).get("files") or []
    by_path: dict[str, dict[str, Any]] = {}
    for entry in libraries:
        if isinstance(entry, dict) and entry.get("kind") == "nccl" and entry.get("path"):
            by_path[entry["path"]] = dict(entry)
    for lib in helper.get("libraries") or []:
        if not isinstance(lib, dict) or "libnccl" not in str(lib.get("path")):
            continue
        entry = by_path.setdefault(lib["path"], {"path": lib["path"], "aliases": []})
        package = str(lib.get("package") or "")
        entry["origin"] = "torch-bundled" if package == "torch" else "pip"
        entry["package"] = package
        entry["version"] = entry.get("version") or (
            lib.get("version") if package.startswith("nvidia-nccl") else None)
    torch_dir = ((helper.get("torch") or {}).get("dir")) or None
    site = os.path.dirname(torch_dir) if torch_dir else None
    result = []
    for path, entry in sorted(by_path.items()):
        version = entry.get("version")
        if isinstance(version, str) and "-" in version:  # dpkg "2.28.3-1+cuda13.0"
            version = version.split("-")[0]
        if not version:
            match = SONAME_VERSION.search(path)
            version = match.group(1) if match else None
        ctypes_run = entry.get("ctypes") or {}
        if not version and str(ctypes_run.get("text", "")).strip().isdigit():
            version = nccl_version_from_code(int(ctypes_run["text"].strip()))
        origin = entry.get("origin") or "unknown"
        if torch_dir and path.startswith(torch_dir + "/"):
            origin = "torch-bundled"
        result.append(NcclLibrary(path=path, version=version, origin=origin,
                                  package=entry.get("package"),
                                  aliases=list(entry.get("aliases") or [])))
    return _mark_torch_nccl(result, torch_dir, site, probe)


def _mark_torch_nccl(libs: list[NcclLibrary], torch_dir: str | None, site: str | None,
                     probe: dict[str, Any]) -> list[NcclLibrary]:
    """Which libnccl torch loads: one in torch/lib, else the nvidia-nccl wheel beside torch
    (torch's RUNPATH points there), else the one the dynamic loader resolves."""
    if torch_dir is None:
        return libs
    chosen = next((lib for lib in libs if lib.origin == "torch-bundled"), None)
    if chosen is None and site:
        chosen = next((lib for lib in libs if lib.origin == "pip"
                       and lib.path.startswith(site + "/nvidia/")), None)
    if chosen is None:
        ldconfig = str(((probe.get("libraries") or {}).get("ldconfig") or {}).get("text") or "")
        match = re.search(r"libnccl\.so\.2 .*=> (\S+)", ldconfig)
        if match:
            target = match.group(1)
            chosen = next((lib for lib in libs if lib.path == target or target in lib.aliases),
                          None)
    return [lib.model_copy(update={"loaded_by_torch": lib is chosen}) for lib in libs]


def _cuda_runtimes(probe: dict[str, Any], helper: dict[str, Any]) -> list[CudaRuntime]:
    runtimes: dict[str, CudaRuntime] = {}
    for entry in (probe.get("libraries") or {}).get("files") or []:
        if isinstance(entry, dict) and entry.get("kind") == "cudart" and entry.get("path"):
            match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", entry["path"])
            runtimes[entry["path"]] = CudaRuntime(path=entry["path"],
                                                  version=match.group(1) if match else None,
                                                  origin=entry.get("origin") or "unknown")
    for lib in helper.get("libraries") or []:
        if isinstance(lib, dict) and re.search(r"libcudart\.so", str(lib.get("path"))):
            runtimes[lib["path"]] = CudaRuntime(path=lib["path"], version=lib.get("version"),
                                                origin="pip")
    for path, text in ((probe.get("libraries") or {}).get("cuda_version_files") or {}).items():
        try:
            version = json.loads(text).get("cuda", {}).get("version")
        except (ValueError, AttributeError):
            version = None
        runtimes[path] = CudaRuntime(path=path, version=version, origin="toolkit")
    return list(runtimes.values())


def build_versions(probe: dict[str, Any], gpu_summary: dict[str, str | None],
                   errors: list[tuple[str, str]]) -> Versions:
    os_section = probe.get("os") or {}
    gpus = probe.get("gpus") or {}
    sources: dict[str, Source] = {}
    driver_proc = gpus.get("driver_proc") or {}
    kernel_module, flavor, nvrm = parse_driver_proc(str(driver_proc.get("text") or ""))
    if nvrm:
        sources["kernel_module"] = Source(origin="/proc/driver/nvidia/version", raw=nvrm)
    release = parse_os_release(str((os_section.get("os_release") or {}).get("text") or ""))
    env, helper = python_env(probe, errors)
    torch_py = str((helper.get("torch") or {}).get("version_py") or "")
    torch_cuda = TORCH_CUDA.search(torch_py)
    for name in ("nvml_driver", "cuda_driver"):
        if gpu_summary.get(name):
            sources[name] = Source(origin=str(gpu_summary.get("origin")),
                                   raw=str(gpu_summary.get(name)))
    glibc = clean(os_section.get("glibc"))
    return Versions(
        kernel_module=kernel_module,
        kernel_module_flavor=flavor,
        nvml_driver=gpu_summary.get("nvml_driver"),
        cuda_driver=gpu_summary.get("cuda_driver"),
        nvml_version=gpu_summary.get("nvml_version"),
        cuda_runtimes=_cuda_runtimes(probe, helper),
        nccl=_nccl_libraries(probe, helper),
        python=env,
        os_id=release.get("ID"),
        os_version=release.get("VERSION_ID"),
        os_pretty=release.get("PRETTY_NAME"),
        kernel=clean(os_section.get("kernel")),
        glibc=glibc.split()[-1] if glibc else None,
        torch_cuda=torch_cuda.group(1) if torch_cuda else None,
        sources=sources,
    )
