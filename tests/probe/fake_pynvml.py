"""Test double of the pynvml module: one H200 with the values the real one reported
(tests/data/probe/h200/probe.json), NVLink NotSupported, and no MIG."""

from __future__ import annotations

NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
NVML_VOLATILE_ECC = 0
NVML_AGGREGATE_ECC = 1
NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_TEMPERATURE_GPU = 0
NVML_NVLINK_MAX_LINKS = 18
nvmlMemory_v2 = 0x2000028


class NVMLError_NotSupported(Exception):
    def __str__(self) -> str:
        return "Not Supported"


class _Struct:
    _fields_: list[tuple[str, object]]

    def __init__(self, **values: object) -> None:
        self._fields_ = [(name, None) for name in values]
        for name, value in values.items():
            setattr(self, name, value)


def nvmlSystemGetDriverVersion() -> str:
    return "580.159.04"


def nvmlSystemGetCudaDriverVersion() -> int:
    return 13000


def nvmlSystemGetNVMLVersion() -> str:
    return "13.580.159.04"


def nvmlDeviceGetCount() -> int:
    return 1


def nvmlDeviceGetHandleByIndex(index: int) -> str:
    return f"handle{index}"


def nvmlDeviceGetName(handle: str) -> bytes:
    return b"NVIDIA H200"


def nvmlDeviceGetUUID(handle: str) -> str:
    return "GPU-802ddca9-2ca4-dec8-3578-db2df13117d4"


def nvmlDeviceGetPciInfo(handle: str) -> _Struct:
    return _Struct(busIdLegacy=b"0000:00:06.0", busId=b"00000000:00:06.0", domain=0)


def nvmlDeviceGetCudaComputeCapability(handle: str) -> tuple[int, int]:
    return (9, 0)


def nvmlDeviceGetMemoryInfo(handle: str, version: int | None = None) -> _Struct:
    if version:
        return _Struct(version=version, total=150754820096, reserved=644939776,
                       free=150109880320, used=0)
    return _Struct(total=150754820096, free=150109880320, used=644939776)


def nvmlDeviceGetPersistenceMode(handle: str) -> int:
    return 1


def nvmlDeviceGetMigMode(handle: str) -> list[int]:
    return [0, 0]


def nvmlDeviceGetComputeMode(handle: str) -> int:
    return 0


def nvmlDeviceGetEccMode(handle: str) -> list[int]:
    return [1, 1]


def nvmlDeviceGetTotalEccErrors(handle: str, kind: int, counter: int) -> int:
    return 0


def nvmlDeviceGetRetiredPagesPendingStatus(handle: str) -> int:
    raise NVMLError_NotSupported()


def nvmlDeviceGetRemappedRows(handle: str) -> tuple[int, int, int, int]:
    return (0, 0, 0, 0)


def nvmlDeviceGetCurrPcieLinkGeneration(handle: str) -> int:
    return 5


nvmlDeviceGetMaxPcieLinkGeneration = nvmlDeviceGetCurrPcieLinkGeneration


def nvmlDeviceGetCurrPcieLinkWidth(handle: str) -> int:
    return 16


nvmlDeviceGetMaxPcieLinkWidth = nvmlDeviceGetCurrPcieLinkWidth


def nvmlDeviceGetClockInfo(handle: str, clock: int) -> int:
    return 345 if clock == NVML_CLOCK_SM else 3201


def nvmlDeviceGetMaxClockInfo(handle: str, clock: int) -> int:
    return 1980 if clock == NVML_CLOCK_SM else 3201


def nvmlDeviceGetApplicationsClock(handle: str, clock: int) -> int:
    return 1980


def nvmlDeviceGetCurrentClocksEventReasons(handle: str) -> int:
    return 1


def nvmlDeviceGetPowerUsage(handle: str) -> int:
    return 79530


def nvmlDeviceGetEnforcedPowerLimit(handle: str) -> int:
    return 700000


def nvmlDeviceGetTemperature(handle: str, sensor: int) -> int:
    return 37


def nvmlDeviceGetVbiosVersion(handle: str) -> str:
    return "96.00.A5.00.1A"


def nvmlDeviceGetComputeRunningProcesses(handle: str) -> list[_Struct]:
    return [_Struct(pid=4242, usedGpuMemory=70123 * 2**20)]


def nvmlDeviceGetNvLinkState(handle: str, link: int) -> int:
    raise NVMLError_NotSupported()
