"""The sandbox's self-report: ``arena doctor``, ``--require``, and the layers a match
records.  The command line runs as a real subprocess (``python -m arena.cli``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import assert_clean, assert_nothing_left, play, random_bot

from arena.sandbox import LAYERS, Sandbox, SandboxError, report_rows, seccomp
from arena.sandbox.uids import UidPool

REPO = Path(__file__).resolve().parents[2]


def arena(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _doctor_rows(stdout: str) -> dict[str, tuple[str, str]]:
    """layer -> (yes/no, text) from the doctor's table."""
    rows = {}
    for line in stdout.splitlines():
        parts = line.split(None, 2)
        if parts and parts[0] in LAYERS:
            rows[parts[0]] = (parts[1] if len(parts) > 1 else "", parts[2].strip() if len(parts) > 2 else "")
    return rows


def test_probe_gives_every_layer_a_status_and_every_inactive_one_a_reason(box: Sandbox) -> None:
    assert set(box.status) == set(LAYERS)
    for name, status in box.status.items():
        assert status.name == name
        if not status.active:
            assert status.why.strip(), f"layer {name} is off without a reason"
    assert box.active == [name for name in LAYERS if box.status[name].active]


def _user_namespaces_allowed() -> bool:
    """Whether this kernel lets an unprivileged user create user namespaces (bubblewrap needs it)."""
    for path, minimum in (("/proc/sys/user/max_user_namespaces", 1), ("/proc/sys/kernel/unprivileged_userns_clone", 1)):
        try:
            if int(Path(path).read_text()) < minimum:
                return False
        except (OSError, ValueError):
            continue  # not present on this kernel: no such restriction
    return True


def test_bubblewrap_confirmed_wherever_it_can_run(box: Sandbox) -> None:
    """Where bubblewrap, the bot users and user namespaces are all there, the probe bot must
    start behind bubblewrap: a failure is then the launcher's, and would otherwise only
    show as hostile tests skipped for want of the layer."""
    if os.geteuid() != 0 or shutil.which("bwrap") is None or not UidPool() or not _user_namespaces_allowed():
        pytest.skip("bubblewrap cannot run here (needs root, bubblewrap, the arena-bot-* users and user namespaces)")
    assert box.status["bwrap"].active, f"bubblewrap was not confirmed: {box.status['bwrap'].why}"
    assert box.status["seccomp"].active == seccomp.available()[0], box.status["seccomp"]


def test_doctor_prints_every_layer_with_yes_or_no_and_a_reason_for_each_no(box: Sandbox) -> None:
    done = arena("doctor")
    assert done.returncode == 0, done.stderr
    rows = _doctor_rows(done.stdout)
    assert set(rows) == set(LAYERS), f"layers missing from the doctor's table: {set(LAYERS) - set(rows)}"
    for name, (active, text) in rows.items():
        assert active in ("yes", "no"), f"{name}: {active!r}"
        assert text, f"{name} ({active}) says neither what it stops nor why it is off"
        probed = box.status[name]
        assert (active == "yes") == probed.active, f"{name}: the doctor says {active}, the probe {probed}"
        if active == "no":
            assert text == box.status[name].why
        else:
            assert text == LAYERS[name]
    assert "bots run with:" in done.stdout and ", ".join(box.active) in done.stdout


def test_report_rows_give_a_reason_for_each_layer_that_is_off() -> None:
    """The doctor's rows for a sandbox with most layers off (as on a machine without them)."""
    rows = report_rows(Sandbox(layers=("rlimits", "session")))
    assert [row[0] for row in rows] == list(LAYERS)
    for name, active, text in rows:
        assert active == ("yes" if name in ("rlimits", "session") else "no")
        assert text.strip(), f"{name}: no reason"


def test_doctor_require_unknown_layer_fails_with_a_clear_error() -> None:
    done = arena("doctor", "--require", "nonexistent")
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "unknown sandbox layer(s) nonexistent" in done.stderr
    assert all(name in done.stderr for name in LAYERS), "the error should list the known layers"
    assert "Traceback" not in done.stderr


def test_doctor_require_active_layers_passes(box: Sandbox) -> None:
    done = arena("doctor", "--require", ",".join(box.active))
    assert done.returncode == 0, done.stderr
    assert "missing required" not in done.stderr


def test_doctor_require_an_inactive_layer_fails(box: Sandbox) -> None:
    off = [name for name in LAYERS if not box.status[name].active]
    if not off:
        pytest.skip("every layer is active here: no inactive layer to require")
    done = arena("doctor", "--require", off[0])
    assert done.returncode == 1
    assert f"missing required layer(s): {off[0]}" in done.stderr


def test_match_require_all_active_layers_plays_behind_them(box: Sandbox) -> None:
    done = arena("match", "--variant", "scat", "--bot", "random", "--bot", "random", "--seed", "3", "--json",
                 "--require", ",".join(box.active))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["sandbox"] == sorted(box.active)
    assert record["faults"] == []
    if len(box.active) == len(LAYERS):
        assert "warning" not in done.stderr, done.stderr


def test_match_require_unknown_layer_fails_before_any_bot_starts() -> None:
    done = arena("match", "--variant", "scat", "--bot", "random", "--bot", "random", "--require", "nonexistent")
    assert done.returncode == 2
    assert "unknown sandbox layer(s) nonexistent" in done.stderr
    assert "Traceback" not in done.stderr


def test_match_require_an_inactive_layer_is_refused(box: Sandbox) -> None:
    off = [name for name in LAYERS if not box.status[name].active]
    if not off:
        pytest.skip("every layer is active here: no inactive layer to require")
    done = arena("match", "--variant", "scat", "--bot", "random", "--bot", "random", "--require", off[0])
    assert done.returncode == 2
    assert off[0] in done.stderr and box.status[off[0]].why in done.stderr


def test_require_an_inactive_layer_raises_naming_it_and_why() -> None:
    partial = Sandbox(layers=("rlimits", "session"))
    partial.require(["rlimits", "session"])  # active: no error
    with pytest.raises(SandboxError) as raised:
        partial.require(["bwrap"])
    message = str(raised.value)
    assert "bwrap" in message and partial.status["bwrap"].why in message, message
    with pytest.raises(SandboxError) as raised:
        partial.require(["uid", "rlimits", "cgroup"])
    message = str(raised.value)
    assert "uid: not requested" in message and "cgroup: not requested" in message, message
    assert "rlimits" not in message.split("(", 1)[1], f"an active layer was named as missing: {message}"


def test_require_an_unknown_layer_raises() -> None:
    with pytest.raises(SandboxError, match="unknown sandbox layer"):
        Sandbox().require(["nonexistent"])


def test_a_probed_match_records_the_active_layers(box: Sandbox) -> None:
    played = play(box, [random_bot(), random_bot(), random_bot()])
    assert_clean(played)
    assert played.result.sandbox == sorted(box.active)
    assert played.result.to_dict()["sandbox"] == sorted(box.active)
    for bot in played.bots:
        assert not isinstance(bot, Exception) and bot.layers == box.active
    assert_nothing_left(played)
