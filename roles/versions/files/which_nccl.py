"""Which NCCL this interpreter sees: nvidia-nccl-* wheels, and what torch loads. JSON on stdout.

Standard library only (Python >= 3.8); torch is optional.
"""

import json
import sys

report = {"python": sys.executable, "wheels": {}, "torch": None, "torch_nccl_version": None,
          "loaded_libnccl": None}
try:
    from importlib import metadata

    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("nvidia-nccl"):
            report["wheels"][name] = dist.version
except Exception as error:  # a report, never a crash
    report["error"] = f"package metadata: {error}"
try:
    import torch

    report["torch"] = torch.__version__
    version = torch.cuda.nccl.version()
    report["torch_nccl_version"] = ".".join(map(str, version)) \
        if isinstance(version, tuple) else str(version)
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libnccl" in line:
                report["loaded_libnccl"] = line.split()[-1]
                break
except ImportError:
    pass
except Exception as error:  # a report, never a crash
    report["torch_error"] = str(error)
print(json.dumps(report))
