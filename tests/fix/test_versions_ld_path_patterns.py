"""The versions role's LD_LIBRARY_PATH regexes, applied the way ansible.builtin.replace does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

VARS = Path(__file__).resolve().parents[2] / "roles/versions/vars/main.yml"
SHADOW = "/opt/nccl-2.18/build/lib"


def strip(text: str, directory: str = SHADOW) -> str:
    patterns = yaml.safe_load(VARS.read_text())["_versions_ld_path_patterns"]
    for pattern in patterns:
        regexp = pattern["regexp"].replace("@DIR@", re.escape(directory))
        text = re.compile(regexp, re.MULTILINE).sub(pattern["replace"], text)
    return text


@pytest.mark.parametrize(("before", "after"), [
    (f"export LD_LIBRARY_PATH={SHADOW}\nexport X=1\n", "export X=1\n"),
    (f'LD_LIBRARY_PATH="{SHADOW}/"\n', ""),
    (f"export LD_LIBRARY_PATH={SHADOW}:/usr/local/cuda/lib64:$LD_LIBRARY_PATH\n",
     "export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH\n"),
    (f"export LD_LIBRARY_PATH=/usr/local/cuda/lib64:{SHADOW}:$LD_LIBRARY_PATH\n",
     "export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH\n"),
    (f'LD_LIBRARY_PATH="$LD_LIBRARY_PATH:{SHADOW}"\n', 'LD_LIBRARY_PATH="$LD_LIBRARY_PATH"\n'),
    # other variables and other directories are left alone
    (f"PATH={SHADOW}:/usr/bin\n", f"PATH={SHADOW}:/usr/bin\n"),
    ("export LD_LIBRARY_PATH=/opt/nccl-2.18/build/lib64:/x\n",
     "export LD_LIBRARY_PATH=/opt/nccl-2.18/build/lib64:/x\n"),
])
def test_shadow_dir_is_removed_from_ld_library_path_only(before, after):
    assert strip(before) == after
    assert strip(strip(before)) == after  # idempotent: a second run changes nothing
