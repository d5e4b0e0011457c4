"""Files seeded onto test nodes so they look like real hosts, and named broken states.

A seed maps an absolute node path to its content (`str`/`bytes`, mode 0644, root) or a
`SeedFile` (content, mode, owner uid/gid). Seeds form a read-only layer under each node's
overlay, so the node's upper dir holds only what the node itself changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SeedFile:
    content: str | bytes
    mode: int = 0o644
    uid: int = 0
    gid: int = 0


Seed = Mapping[str, "str | bytes | SeedFile"]

GRUB_DEFAULT = """\
# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX=""
"""

FSTAB = """\
# /etc/fstab: static file system information.
# <file system> <mount point>   <type>  <options>       <dump>  <pass>
UUID=6f1d7c2e-3b1a-4c55-9a57-0c2a5c0d6e11 /               ext4    errors=remount-ro 0       1
UUID=0f7e4b8a-7a43-4a8e-8c5b-5b6f3b6a2d90 /boot/efi       vfat    umask=0077      0       1
"""

SYSCTL_LOCAL = """\
# Local kernel settings.
kernel.pid_max = 4194304
"""

LIMITS_DEFAULT = """\
# Site limits.
*               soft    core            0
"""

# A plausible healthy-but-unconfigured GPU host: what every node gets unless a test overrides.
DEFAULT: dict[str, str | bytes | SeedFile] = {
    "/etc/default/grub": GRUB_DEFAULT,
    "/etc/fstab": FSTAB,
    "/etc/sysctl.d/60-local.conf": SYSCTL_LOCAL,
    "/etc/security/limits.d/10-site.conf": LIMITS_DEFAULT,
}

# Broken states later issues' tests start from (merge over DEFAULT with `with_default`).
SMALL_SHM: dict[str, str | bytes | SeedFile] = {
    "/etc/fstab": FSTAB + "tmpfs /dev/shm tmpfs defaults,size=64M 0 0\n",
}
GRUB_WITHOUT_IOMMU = {"/etc/default/grub": GRUB_DEFAULT}  # no iommu=pt / intel_iommu flags
LOW_NOFILE: dict[str, str | bytes | SeedFile] = {
    "/etc/security/limits.d/90-nofile.conf": "*  soft  nofile  1024\n*  hard  nofile  4096\n",
}
LOW_MEMLOCK: dict[str, str | bytes | SeedFile] = {
    "/etc/security/limits.d/90-memlock.conf": "*  soft  memlock  64\n*  hard  memlock  64\n",
}


def with_default(*seeds: Seed | None) -> dict[str, str | bytes | SeedFile]:
    """DEFAULT overlaid with each seed in turn (later ones win)."""
    merged: dict[str, str | bytes | SeedFile] = dict(DEFAULT)
    for seed in seeds:
        merged.update(seed or {})
    return merged


DATA_DIR = Path(__file__).resolve().parent.parent / "data"
DOUBLE_SCRIPT = Path(__file__).resolve().parent / "doubles" / "nvidia_smi_double.py"


def nvidia_smi_double(capture: str = "h200-1gpu",
                      delay_s: float | None = None) -> dict[str, str | bytes | SeedFile]:
    """Seed an `nvidia-smi` test double replaying tests/data/<capture>/ (a real GPU node)."""
    seed: dict[str, str | bytes | SeedFile] = {
        "/usr/bin/nvidia-smi": SeedFile(DOUBLE_SCRIPT.read_bytes(), 0o755),
    }
    for file in sorted((DATA_DIR / capture).iterdir()):
        seed[f"/usr/share/nvidia-smi-double/{file.name}"] = file.read_bytes()
    if delay_s is not None:
        seed["/etc/nvidia-smi-double/delay_s"] = f"{delay_s}\n"
    return seed
