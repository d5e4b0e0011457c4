"""The HTML report renders in a real headless Chromium (screenshot and DOM)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vfix.formats import Format, render

from .fleet import audited_fleet

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def chromium() -> str:
    """The chromium binary, installed with apt-get when missing; skip only if that fails."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
                       capture_output=True, timeout=600, check=False)
        found = shutil.which("chromium")
    if found is None:
        pytest.skip("chromium is not installed and could not be installed with apt-get")
    return found


def headless(chromium: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--hide-scrollbars", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_report_renders_in_headless_chromium(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render(audited_fleet(), Format.HTML))
    shot = tmp_path / "report.png"
    done = headless(chromium, f"--screenshot={shot}", "--window-size=1400,2000", page.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1400, 2000)
    assert len(png) > 20_000, "the screenshot is (nearly) blank"

    dom = headless(chromium, "--dump-dom", page.as_uri()).stdout
    assert 'id="drift-rack1"' in dom
    assert dom.count('class="outlier"') >= 2
    assert dom.count('class="topology"') == 3
    assert 'id="node-gpu-c"' in dom
