# gpu_health.py: node health probe (pynvml) run before a job is scheduled on the node.
import os, sys, pynvml
devs = [int(i) for i in os.environ.get("HEALTH_GPUS", "0,1,2,3,4,5,6,7").split(",")]
pynvml.nvmlInit()
print(f"driver {pynvml.nvmlSystemGetDriverVersion()}  nvml {pynvml.nvmlSystemGetNVMLVersion()}  checking GPUs {devs}", flush=True)
for i in devs:
    h = pynvml.nvmlDeviceGetHandleByIndex(i)
    mem = pynvml.nvmlDeviceGetMemoryInfo(h)
    temp = pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
    ecc = pynvml.nvmlDeviceGetTotalEccErrors(h, pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC)
    print(f"GPU {i}: {pynvml.nvmlDeviceGetName(h)} {pynvml.nvmlDeviceGetUUID(h)} mem {mem.used >> 20}/{mem.total >> 20} MiB "
          f"temp {temp}C uncorrected-ecc {ecc} OK", flush=True)
pynvml.nvmlShutdown()
print("node healthy")
