"""Which isolation layers work on this machine: static checks, then the probe bot started
behind the candidate layers, whose report confirms each layer's effect (or drops it)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import trio

from arena.sandbox import confine, scratch, seccomp
from arena.sandbox.cgroups import detect
from arena.sandbox.layers import Layer, SandboxError
from arena.sandbox.uids import UidPool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from arena.sandbox.launcher import Sandbox

__all__ = ["PROBE_BOT", "bot_python", "probe_layers", "report_rows"]

PROBE_BOT = Path(__file__).resolve().parent / "probe_bot.py"


async def probe_layers(box: Sandbox) -> None:
    """Turn off every layer of ``box`` that does not work here, saying why."""
    _detect(box)
    if any(box.status[name].active for name in (Layer.UID, Layer.BWRAP, Layer.LANDLOCK)):
        report = await _run_probe(box)
        if report is None and box.status[Layer.BWRAP].active:  # bubblewrap could not start: try without it
            box.set_layer(Layer.BWRAP, False, "bubblewrap failed to start the probe bot here")
            box.set_layer(Layer.SECCOMP, False, "applied by bubblewrap, which is not in use")
            box.set_layer(Layer.RESIDENT, False, "bound by bubblewrap, which is not in use")
            report = await _run_probe(box)
        _confirm(box, report)


def _detect(box: Sandbox) -> None:
    """Static checks: what is installed and permitted."""
    root = os.geteuid() == 0
    pool = UidPool() if root else None
    if not root:
        box.set_layer(Layer.UID, False, "the arena is not running as root, so it cannot switch users")
    elif not pool:
        box.set_layer(Layer.UID, False, "no arena-bot-* users exist: run scripts/setup-sandbox as root")
    else:
        box.uids = pool
    if shutil.which("bwrap") is None:
        box.set_layer(Layer.BWRAP, False, "bubblewrap is not installed (apt-get install bubblewrap)")
    elif root and box.uids is None:
        box.set_layer(Layer.BWRAP, False, "as root, bubblewrap needs an unprivileged bot user to start as")
    ok, why = seccomp.available()
    if not ok:
        box.set_layer(Layer.SECCOMP, False, why + " (pip install pyseccomp; needs libseccomp2)")
    elif not box.status[Layer.BWRAP].active:
        box.set_layer(Layer.SECCOMP, False, "applied by bubblewrap, which is not in use")
    abi = confine.abi_version()
    if abi < 1:
        box.set_layer(Layer.LANDLOCK, False, "this kernel has no Landlock (Linux 5.13+ with the LSM enabled)")
    support = detect()
    box.cgroups = support
    support.sweep()
    scratch.sweep()
    if not support.limits:
        box.set_layer(Layer.CGROUP, False, "cgroup v1 memory, pids and cpuacct controllers are not writable here")
    if support.v2 is None:
        box.set_layer(Layer.CGROUP_KILL, False, "no writable cgroup v2 hierarchy with cgroup.kill")
        box.set_layer(Layer.FREEZE, False, "no writable cgroup v2 hierarchy (its cgroup.freeze stops a whole tree)")
    elif not support.freeze:
        box.set_layer(Layer.FREEZE, False, "this kernel's cgroup v2 has no cgroup.freeze (Linux 5.2+)")
    mounts, why = scratch.can_mount()
    if not mounts:
        box.set_layer(Layer.QUOTA, False, f"cannot mount a tmpfs for each bot's scratch space: {why}")
    if box.status[Layer.UID].active or box.status[Layer.BWRAP].active:
        try:
            box.python = bot_python()
        except SandboxError as error:
            box.set_layer(Layer.UID, False, str(error))
            box.set_layer(Layer.BWRAP, False, str(error))
            box.set_layer(Layer.SECCOMP, False, str(error))
    if not box.status[Layer.BWRAP].active:
        box.set_layer(Layer.RESIDENT, False, "bound by bubblewrap, which is not in use")
    elif box.status[Layer.RESIDENT].active:
        try:
            box.prepare_resident()
        except OSError as error:
            box.set_layer(Layer.RESIDENT, False, f"cannot make the bots' resident copies: {error}")

async def _run_probe(box: Sandbox) -> dict[str, object] | None:
    """Start the probe bot behind the candidate layers; its report, or None if it failed."""
    try:
        sandboxed = await box.launch([box.python, str(PROBE_BOT)], PROBE_BOT.parent)
    except (OSError, SandboxError):
        return None
    try:
        output = b""
        with trio.move_on_after(10):
            while chunk := await sandboxed.process.stdout.receive_some(65536):
                output += chunk
        report: dict[str, object] = json.loads(output)
        return report
    except (ValueError, trio.BrokenResourceError):
        return None
    finally:
        await sandboxed.kill()

def _confirm(box: Sandbox, report: dict[str, object] | None) -> None:
    """Keep only the layers whose effect the probe bot shows."""
    if report is None:
        for name in (Layer.UID, Layer.BWRAP, Layer.SECCOMP, Layer.LANDLOCK, Layer.RESIDENT):
            if box.status[name].active:
                box.set_layer(name, False, "the probe bot did not start behind this layer")
        return
    if box.status[Layer.UID].active and report.get(Layer.UID) == 0:
        box.set_layer(Layer.UID, False, "the probe bot still ran as root")
    if box.status[Layer.BWRAP].active:
        own = {ns: os.readlink(f"/proc/self/ns/{ns}") for ns in ("net", "pid", "mnt")}
        theirs = report.get("namespaces") or {}
        shared = [ns for ns in own if isinstance(theirs, dict) and theirs.get(ns) == own[ns]]
        if shared or report.get("passwd") == "allowed":
            box.set_layer(Layer.BWRAP, False, f"the probe bot shared namespaces {shared} or read /etc/passwd")
    if box.status[Layer.SECCOMP].active and report.get("socket") == "allowed":
        box.set_layer(Layer.SECCOMP, False, "the probe bot could still open a socket")
    if box.status[Layer.LANDLOCK].active and report.get("outside_write") == "allowed":
        box.set_layer(Layer.LANDLOCK, False, "the probe bot could still write outside its scratch folder")
    if box.status[Layer.RESIDENT].active and report.get("machine_usr") is not False:
        box.set_layer(Layer.RESIDENT, False, "the probe bot still saw the machine's /usr")
    if box.status[Layer.SECCOMP].active and report.get("flock") == "allowed":
        box.set_layer(Layer.SECCOMP, False, "the probe bot could still lock a shared file")


def _accessible_to_others(path: Path) -> bool:
    """Whether a user other than the owner can reach and read ``path``."""
    path = path.resolve()
    for parent in path.parents:
        if not parent.stat().st_mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o004)


def bot_python() -> str:
    """An interpreter an unprivileged user can run, of this interpreter's version.

    The arena's own may live under a private home (pyenv under /root); the system one of
    the same minor version can load the same compiled modules.  A virtual environment's
    interpreter is a link: the bot runs its target, which the sandbox shows (the bot
    imports the environment's libraries through ``PYTHONPATH``, not the link's folder).
    """
    own = Path(sys.executable).resolve()
    if _accessible_to_others(own):
        return str(own)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (Path("/usr/bin") / version, Path("/usr/local/bin") / version):
        if candidate.exists() and _accessible_to_others(candidate):
            return str(candidate)
    raise SandboxError(f"no {version} interpreter that an unprivileged user can run (looked beside "
                       f"{own} and in /usr/bin, /usr/local/bin)")


def report_rows(box: Sandbox) -> list[list[str]]:
    """Rows for ``arena doctor``: layer, active, and what it stops or why it is off."""
    return [[s.name, "yes" if s.active else "no", s.stops if s.active else s.why] for s in box.status.values()]
