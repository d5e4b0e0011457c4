"""Where vfix's Ansible content lives: a git checkout, or `vfix/_ansible/` inside a wheel."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from vfix.errors import VfixError

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def ansible_home() -> Path:
    """The directory holding ansible.cfg, playbooks/, roles/ and inventories/."""
    for candidate in (PACKAGE_DIR / "_ansible", PACKAGE_DIR.parent):
        if (candidate / "ansible.cfg").is_file() and (candidate / "playbooks").is_dir():
            return candidate
    raise VfixError(f"vfix's Ansible content (ansible.cfg, playbooks/) is missing "
                    f"near {PACKAGE_DIR}")


def playbook_path(name: str) -> Path:
    """`playbooks/<name>` (".yml" optional); an existing path is taken as it is."""
    given = Path(name)
    if given.is_file():
        return given.resolve()
    file = name if name.endswith((".yml", ".yaml")) else f"{name}.yml"
    path = ansible_home() / "playbooks" / file
    if not path.is_file():
        raise VfixError(f"playbook {name} not found in {path.parent}")
    return path


def default_inventory() -> Path:
    return ansible_home() / "inventories" / "local"


def library_dirs() -> list[Path]:
    """Module directories (the node probe is the `vfix_probe` module)."""
    return [PACKAGE_DIR / "probe"]


def ansible_environment() -> dict[str, str]:
    """The environment every Ansible run gets; ANSIBLE_CONFIG is always explicit."""
    home = ansible_home()
    bin_dir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    return {
        "ANSIBLE_CONFIG": str(home / "ansible.cfg"),
        "ANSIBLE_ROLES_PATH": str(home / "roles"),
        "ANSIBLE_LIBRARY": os.pathsep.join(str(p) for p in library_dirs()),
        "ANSIBLE_ACTION_PLUGINS": str(PACKAGE_DIR / "ansible" / "action_plugins"),
        # An inventory that does not parse stops Ansible, never a run on "implicit localhost".
        "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True",
        "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "True",
        # ansible-runner starts ansible-playbook by name: use the one next to this Python.
        "PATH": bin_dir if not path else f"{bin_dir}{os.pathsep}{path}",
    }
