"""The install step's scripts when apt-get cannot run: waited for, then said, never silent.

``make demo`` went on, exit 0, after ``scripts/setup-browser`` gave up on another
apt-get's lock (``Could not get lock /var/lib/dpkg/lock-frontend``), and the browser
tests then skipped.  An ``apt-get`` of the test's own, first on the PATH, plays the
apt-get that finds the lock held."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HELD = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the script installs only as root")


def setup_browser(tmp_path: Path, **environment: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``scripts/setup-browser`` with no browser and an apt-get that finds the lock held."""
    fake = tmp_path / "bin"
    fake.mkdir()
    calls = tmp_path / "calls"
    (fake / "apt-get").write_text(
        f'#!/bin/sh\necho "$*" >> {calls}\ncase " $* " in *" install "*) echo "{HELD}" >&2; exit 100;; esac\n')
    (fake / "apt-get").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "ARENA_CHROMIUM": str(tmp_path / "no-chromium"),
           **environment}
    done = subprocess.run([str(REPO / "scripts" / "setup-browser")], capture_output=True, text=True, env=env,
                          timeout=60)
    return done, calls.read_text().splitlines()


def test_a_held_package_lock_is_waited_for_and_a_failed_install_stops_make(tmp_path: Path) -> None:
    done, calls = setup_browser(tmp_path)
    assert done.returncode == 1, done.stderr
    assert HELD in done.stderr and "ARENA_NO_BROWSER=1" in done.stderr
    assert all("-o DPkg::Lock::Timeout=600" in call for call in calls) and len(calls) == 2


def test_going_on_without_the_browser_is_asked_for_and_said(tmp_path: Path) -> None:
    done, calls = setup_browser(tmp_path, ARENA_NO_BROWSER="1", ARENA_APT_WAIT_S="5")
    assert done.returncode == 0, done.stderr
    assert "going on without it" in done.stderr and "browser tests in tests/web will skip" in done.stderr
    assert all("-o DPkg::Lock::Timeout=5" in call for call in calls)
