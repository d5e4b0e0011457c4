"""The shared read-only root filesystem every test node boots from, built once and cached.

A minbase Debian bookworm with python3, openssh-server, procps and sudo, plus what a managed
node needs: an unprivileged `ansible` user with passwordless sudo, an ed25519 host key, and an
sshd drop-in for key-only logins. The build is flock-protected (parallel pytest sessions wait
for one build) and atomic (built aside, then renamed), so a half-built tree is never used.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CACHE_DIR = Path(os.environ.get("VFIX_TEST_NODES_CACHE", "/var/cache/vfix-test-nodes"))
SUITE = "bookworm"
PACKAGES = ("python3", "openssh-server", "procps", "sudo", "iproute2", "iputils-ping")
ANSIBLE_USER = "ansible"

SSHD_DROP_IN = """\
# vfix test node: key-only logins, ed25519 host key only, no PAM (no systemd/logind here).
HostKey /etc/ssh/ssh_host_ed25519_key
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 256
MaxSessions 256
"""

# Run inside the new root by mmdebstrap (`$1` is the root). Directories created here exist in
# the lower layer, so mounting over them at boot never writes to a node's upper dir.
CUSTOMIZE = [
    f'chroot "$1" useradd --create-home --shell /bin/bash {ANSIBLE_USER}',
    f'chroot "$1" usermod -p "*" {ANSIBLE_USER}',  # unlocked but password-less (UsePAM no)
    f'echo "{ANSIBLE_USER} ALL=(ALL) NOPASSWD: ALL" > "$1/etc/sudoers.d/{ANSIBLE_USER}"',
    f'chmod 0440 "$1/etc/sudoers.d/{ANSIBLE_USER}"',
    'rm -f "$1"/etc/ssh/ssh_host_*',
    'ssh-keygen -q -t ed25519 -N "" -f "$1/etc/ssh/ssh_host_ed25519_key"',
    'printf "%s" "$VFIX_SSHD_DROP_IN" > "$1/etc/ssh/sshd_config.d/00-vfix-test-node.conf"',
    f'mkdir -p "$1/root/.ansible" "$1/home/{ANSIBLE_USER}/.ansible" "$1/run/sshd"',
    f'chroot "$1" chown {ANSIBLE_USER}: /home/{ANSIBLE_USER}/.ansible',
    'mkdir -p "$1/etc/security/limits.d" "$1/etc/sysctl.d" "$1/etc/default" "$1/mnt/vfix"',
]


def recipe_digest() -> str:
    text = "\n".join([SUITE, *PACKAGES, SSHD_DROP_IN, *CUSTOMIZE])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def rootfs_path() -> Path:
    return CACHE_DIR / f"rootfs-{SUITE}-{recipe_digest()}"


def debian_mirror(sources_dir: Path = Path("/etc/apt/sources.list.d")) -> str | None:
    """The Debian mirror this machine's apt already uses (read at run time, never hard-coded)."""
    candidates = sorted(sources_dir.glob("*.sources")) + sorted(sources_dir.glob("*.list"))
    legacy = Path("/etc/apt/sources.list")
    if legacy.is_file():
        candidates.append(legacy)
    for file in candidates:
        text = file.read_text(errors="replace")
        for stanza in re.split(r"\n\s*\n", text):
            uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
            suites = re.search(r"^Suites:\s*(.+)$", stanza, re.M)
            if uris and suites and SUITE in suites.group(1).split():
                return uris.group(1)
        for line in text.splitlines():
            match = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", line)
            if match and match.group(2) == SUITE:
                return match.group(1)
    return None


def ensure_rootfs(log: bool = True) -> Path:
    """Return the cached rootfs, building it first if needed (one builder at a time)."""
    target = rootfs_path()
    if (target / "etc/ssh/sshd_config.d/00-vfix-test-node.conf").is_file():
        return target
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "etc/ssh/sshd_config.d/00-vfix-test-node.conf").is_file():
            return target  # another session built it while we waited
        _build(target, log)
    return target


def _build(target: Path, log: bool) -> None:
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap)")
    staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=CACHE_DIR))
    command = ["mmdebstrap", "--variant=minbase", "--mode=root", "--quiet",
               "--include=" + ",".join(PACKAGES),
               *[f"--customize-hook={hook}" for hook in CUSTOMIZE],
               SUITE, str(staging)]
    mirror = debian_mirror()
    if mirror:
        command.append(mirror)
    started = time.monotonic()
    try:
        subprocess.run(command, check=True, env={**os.environ, "VFIX_SSHD_DROP_IN": SSHD_DROP_IN},
                       stdout=subprocess.DEVNULL)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if log:
        print(f"test-node rootfs built in {time.monotonic() - started:.0f}s: {target}")
