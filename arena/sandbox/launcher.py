"""Launch bot processes behind every isolation layer this machine offers.

A :class:`Sandbox` is built once per referee process by :meth:`Sandbox.probe`: it
checks which layers can work here, starts the probe bot behind them, and keeps only
the layers whose effect the probe bot confirms.  Then each :meth:`Sandbox.launch`:

1. creates the bot's control groups (memory and pids limits, CPU accounting, freezer,
   kill) and its scratch space (:mod:`arena.sandbox.scratch`: a tmpfs of its own with a
   size and an inode quota), owned by the bot's user;
2. forks; the child joins the groups, sets its rlimits, starts a new session, moves the
   protocol pipes above fd 2 (under bubblewrap) and drops to an unprivileged user of
   the pool (``arena-bot-N``);
3. as that user, execs bubblewrap: new user, pid, network, ipc, uts and mount
   namespaces, a read-only minimal root (``/usr``, the interpreter, the arena package
   and its libraries, the bot's folder, in unlistable folders), a private ``/tmp`` and
   ``/dev/shm`` of the scratch quota's size, a ``/proc`` that shows the bot's own processes
   and nothing of the machine's (:mod:`arena.sandbox.procfs`), the scratch space as the
   only writable place, an empty environment, no capabilities, and the seccomp filter; it
   dies with the referee;
4. bubblewrap execs the bot, whose first code (:mod:`arena.sandbox.confine`) takes its pipes
   back to fds 0 and 1 and applies Landlock.

:meth:`Sandboxed.kill` kills the whole tree (``cgroup.kill``, the process group, the
session, the bot's user, and anything left in the groups), waits until the user has no
process left, and removes the groups and the scratch space.  Between its turns the
referee freezes the whole tree (:meth:`Sandboxed.freeze`), so that a bot cannot take CPU
from the bot whose turn it is.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import os
import resource
import shutil
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.sandbox import confine, procfs, reach, scratch, seccomp, tree
from arena.sandbox.cgroups import BotCgroup, CgroupSupport, detect
from arena.sandbox.process import BotProcess
from arena.sandbox.uids import Lease, UidPool

__all__ = ["LAYERS", "LayerStatus", "Limits", "Sandbox", "SandboxError", "Sandboxed", "report_rows"]

_MB = 1024 * 1024
_PACKAGE = Path(__file__).resolve().parent.parent  # the arena package
ALTERNATIVES = Path("/etc/alternatives")
"""Debian's links for commands with several providers, which a bot sees read-only."""
IMPORT_DIR = "/run/arena"
"""Inside bubblewrap: the folder on a Python bot's import path that holds only ``arena``
(a link to the package), so that the folders around the package can stay unlistable."""
_SYSTEM_MOUNTS = frozenset(map(Path, ("/", "/usr", "/tmp", "/dev", "/proc")))
PROBE_BOT = Path(__file__).resolve().parent / "probe_bot.py"

LAYERS: dict[str, str] = {
    "rlimits": "memory hogs, CPU loops, huge files, fd floods (address space, CPU, file size, open files)",
    "session": "a bot's children outliving it: own session and process group, killed as one",
    "uid": "reading root-only files, signalling the referee or other bots (one unprivileged user per bot, "
           "whose every process dies with the bot)",
    "bwrap": "the network, the filesystem beyond its own folders, other processes, the machine's load and "
             "counters in /proc (bubblewrap namespaces)",
    "seccomp": "sockets, ptrace, mount, new namespaces, bpf, io_uring and other kernel interfaces; file locks, "
               "change notifications and CPU affinity (channels between bots)",
    "cgroup": "fork bombs and memory exhaustion (pids and memory limits), per-decision CPU accounting",
    "cgroup-kill": "processes escaping the session: the whole group is killed at once (cgroup v2)",
    "freeze": "thinking on others' turns: once seen using the CPU there, the bot's processes are frozen from "
              "each reply to its next request (cgroup v2 freezer; the `ponder` time setting allows it and "
              "charges it to the bot's clock)",
    "quota": "filling the disk or the inode table: the bot writes only to a tmpfs of its own with a size and "
             "a file quota (it gets ENOSPC)",
    "landlock": "reads and writes outside the bot's paths, TCP, signals and abstract sockets beyond its own "
                "processes (the kernel's Landlock, applied inside the namespaces)",
}
"""Every layer the sandbox knows, and what it stops."""


class SandboxError(ArenaError, RuntimeError):
    """A sandbox that cannot provide what was asked, or a bot it cannot start."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process tree."""

    memory_mb: int = 2048
    """Address space per process (rlimit) and memory of the whole tree (cgroup)."""
    cpu_seconds: int = 3600
    """CPU time over the process's whole life (it may play many matches)."""
    file_size_mb: int = 16
    """Largest file the bot may write in its scratch folder."""
    open_files: int = 64
    processes: int = 32
    """Processes and threads of the whole tree (cgroup pids; RLIMIT_NPROC under its own uid)."""
    scratch_mb: int = 32
    """Bytes the bot may keep in its scratch space (the ``quota`` layer)."""
    scratch_files: int = 4096
    """Files and folders the bot may keep in its scratch space (the ``quota`` layer)."""

    def apply(self, own_user: bool) -> None:
        """Set the limits on the current process (runs in the child before exec)."""
        resource.setrlimit(resource.RLIMIT_AS, (self.memory_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size_mb * _MB,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if own_user:  # counts every process of the user: only meaningful per bot user
            resource.setrlimit(resource.RLIMIT_NPROC, (self.processes,) * 2)


@dataclass(frozen=True)
class LayerStatus:
    """Whether a layer is in use here, and if not, why."""

    name: str
    active: bool
    why: str = ""

    @property
    def stops(self) -> str:
        """What the layer stops."""
        return LAYERS[self.name]


@dataclass
class Sandboxed:
    """A launched bot process with its scratch folder, user lease and control groups."""

    process: BotProcess
    scratch: Path
    cgroup: BotCgroup | None = None
    lease: Lease | None = None
    _done: bool = field(default=False, repr=False)
    _cpu_fd: int = field(default=-1, repr=False)
    _freeze_fd: int = field(default=-1, repr=False)
    frozen: bool = field(default=False, init=False)
    """Whether the tree is frozen (or being frozen) now."""

    @property
    def pid(self) -> int:
        """The launched process's id (its process group and session id too)."""
        return self.process.pid

    @property
    def accounts_cpu(self) -> bool:
        """Whether :meth:`cpu_ns` counts the tree's CPU time (the cgroup layer's cpuacct)."""
        return self.cgroup is not None and self.cgroup.cpuacct is not None

    def cpu_ns(self) -> int:
        """CPU time the whole tree has used so far (0 without the cgroup layer or once it
        is killed).  One ``pread`` of a counter kept open: cheap enough for every decision."""
        if self._cpu_fd < 0:
            if self._done or self.cgroup is None or self.cgroup.cpuacct is None:
                return 0
            try:
                self._cpu_fd = os.open(self.cgroup.cpuacct / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return 0
        try:
            return int(os.pread(self._cpu_fd, 32, 0))
        except (OSError, ValueError):
            return 0

    @property
    def can_freeze(self) -> bool:
        """Whether :meth:`freeze` stops the tree (the ``freeze`` layer)."""
        return self.cgroup is not None and self.cgroup.freezer is not None

    def freeze(self) -> None:
        """Stop every process of the tree until :meth:`thaw` (no-op without the freezer).

        One write to ``cgroup.freeze``, kept open: the kernel stops the processes as they
        next leave the kernel, within microseconds, and a process waiting for its next
        request simply stays asleep."""
        if not self.frozen and self._freezer(b"1"):
            self.frozen = True

    def thaw(self) -> None:
        """Let the tree run again."""
        if self.frozen:
            self.frozen = False
            self._freezer(b"0")

    def _freezer(self, state: bytes) -> bool:
        if self._freeze_fd < 0:
            if self._done or self.cgroup is None or self.cgroup.freezer is None:
                return False
            try:
                self._freeze_fd = os.open(self.cgroup.freezer, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return False
        try:
            os.write(self._freeze_fd, state)
        except OSError:
            return False
        return True

    async def kill(self) -> None:
        """Kill the bot's whole tree, reap it, and remove its groups and scratch space; its
        user goes back to the pool once none of the user's processes is left."""
        if self._done:
            return
        self._done = True
        for fd in (self._cpu_fd, self._freeze_fd):
            if fd >= 0:
                os.close(fd)
        self._cpu_fd = self._freeze_fd = -1
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        uid = self.lease.uid if self.lease else None
        with trio.CancelScope(shield=True):
            # the session before the leader is reaped: until then its pid holds the session id
            await tree.kill_tree(self.pid, uid)
            if self.cgroup is not None:
                self.cgroup.kill()
            await self.process.wait()
            # a user whose killed processes are not reaped in time stays out of the pool
            released = uid is None or await tree.wait_reaped(uid)
            # a plain folder a bot filled can take seconds to empty: never on the event loop
            await trio.to_thread.run_sync(scratch.remove, self.scratch)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.lease is not None and released:
            self.lease.release()


def _accessible_to_others(path: Path) -> bool:
    """Whether a user other than the owner can reach and read ``path``."""
    path = path.resolve()
    for parent in path.parents:
        if not parent.stat().st_mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o004)


def _bot_python() -> str:
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


@functools.cache
def _compile_package() -> None:
    """Write current bytecode for the arena package, once per process.

    Every Python bot imports the bot host, the SDK and later the protocol module, from a
    folder it may only read (and with ``PYTHONDONTWRITEBYTECODE``): a module whose
    bytecode is missing or older than its source is compiled again by every bot start
    (several milliseconds each).  A package the arena may not write to is left as it is."""
    import compileall

    compileall.compile_dir(_PACKAGE, quiet=2, optimize=0)


SITE_PACKAGES = ("msgspec", "pluggy")
"""What a Python bot imports besides the arena and the standard library."""


def _site_dirs() -> list[Path]:
    """The site folders of the arena's dependencies, which a Python bot imports."""
    import msgspec
    import pluggy

    return sorted({Path(module.__file__ or "").resolve().parent.parent for module in (msgspec, pluggy)})


def _hidden_parents(binds: Sequence[Path]) -> list[Path]:
    """Folders bubblewrap must create to hold ``binds``: made traversable but unlistable,
    so a bot sees nothing of the trees its binds live in (the repository, other bots)."""
    parents = {parent for path in binds for parent in path.parents}
    return sorted(p for p in parents - _SYSTEM_MOUNTS if not any(p == b or b in p.parents for b in binds))


class Sandbox:
    """The isolation layers in use in this process, and the launcher that applies them."""

    def __init__(self, limits: Limits | None = None, *, layers: Iterable[str] = ("rlimits", "session")) -> None:
        self.limits = limits or Limits()
        wanted = set(layers)
        self.status = {name: LayerStatus(name, name in wanted, "" if name in wanted else "not requested")
                       for name in LAYERS}
        self._cgroups: CgroupSupport | None = None
        self._uids: UidPool | None = None
        self.python = sys.executable
        self._sites: list[Path] = []

    def with_limits(self, limits: Limits) -> Sandbox:
        """This sandbox, with its layers as probed, giving each bot ``limits``."""
        box = copy.copy(self)
        box.limits = limits
        return box

    # -- what is active ---------------------------------------------------------------

    @property
    def active(self) -> list[str]:
        """Names of the layers in use."""
        return [name for name, status in self.status.items() if status.active]

    def missing(self, required: Iterable[str]) -> list[LayerStatus]:
        """The layers of ``required`` that are not active (SandboxError for unknown names)."""
        unknown = sorted(set(required) - set(LAYERS))
        if unknown:
            raise SandboxError(f"unknown sandbox layer(s) {', '.join(unknown)}; layers: {', '.join(LAYERS)}")
        return [self.status[name] for name in required if not self.status[name].active]

    def require(self, required: Iterable[str]) -> None:
        """SandboxError naming each required layer that is not active, and why."""
        missing = self.missing(required)
        if missing:
            reasons = "; ".join(f"{s.name}: {s.why}" for s in missing)
            raise SandboxError(f"refusing to run untrusted bots without required sandbox layers ({reasons})")

    def _set(self, name: str, active: bool, why: str = "") -> None:
        self.status[name] = LayerStatus(name, active, why)

    # -- probing --------------------------------------------------------------------------

    @classmethod
    async def probe(cls, limits: Limits | None = None) -> Sandbox:
        """Every layer that works here, each confirmed by the probe bot."""
        box = cls(limits, layers=LAYERS)
        box._detect()
        if any(box.status[name].active for name in ("uid", "bwrap", "landlock")):
            report = await box._run_probe()
            if report is None and box.status["bwrap"].active:  # bubblewrap could not start: try without it
                box._set("bwrap", False, "bubblewrap failed to start the probe bot here")
                box._set("seccomp", False, "applied by bubblewrap, which is not in use")
                report = await box._run_probe()
            box._confirm(report)
        return box

    def _detect(self) -> None:
        """Static checks: what is installed and permitted."""
        root = os.geteuid() == 0
        pool = UidPool() if root else None
        if not root:
            self._set("uid", False, "the arena is not running as root, so it cannot switch users")
        elif not pool:
            self._set("uid", False, "no arena-bot-* users exist: run scripts/setup-sandbox as root")
        else:
            self._uids = pool
        if shutil.which("bwrap") is None:
            self._set("bwrap", False, "bubblewrap is not installed (apt-get install bubblewrap)")
        elif root and self._uids is None:
            self._set("bwrap", False, "as root, bubblewrap needs an unprivileged bot user to start as")
        ok, why = seccomp.available()
        if not ok:
            self._set("seccomp", False, why + " (pip install pyseccomp; needs libseccomp2)")
        elif not self.status["bwrap"].active:
            self._set("seccomp", False, "applied by bubblewrap, which is not in use")
        abi = confine.abi_version()
        if abi < 1:
            self._set("landlock", False, "this kernel has no Landlock (Linux 5.13+ with the LSM enabled)")
        support = detect()
        self._cgroups = support
        support.sweep()
        scratch.sweep()
        if not support.limits:
            self._set("cgroup", False, "cgroup v1 memory, pids and cpuacct controllers are not writable here")
        if support.v2 is None:
            self._set("cgroup-kill", False, "no writable cgroup v2 hierarchy with cgroup.kill")
            self._set("freeze", False, "no writable cgroup v2 hierarchy (its cgroup.freeze stops a whole tree)")
        elif not support.freeze:
            self._set("freeze", False, "this kernel's cgroup v2 has no cgroup.freeze (Linux 5.2+)")
        mounts, why = scratch.can_mount()
        if not mounts:
            self._set("quota", False, f"cannot mount a tmpfs for each bot's scratch space: {why}")
        if self.status["uid"].active or self.status["bwrap"].active:
            try:
                self.python = _bot_python()
            except SandboxError as error:
                self._set("uid", False, str(error))
                self._set("bwrap", False, str(error))
                self._set("seccomp", False, str(error))
        self._sites = _site_dirs()

    async def _run_probe(self) -> dict[str, object] | None:
        """Start the probe bot behind the candidate layers; its report, or None if it failed."""
        try:
            sandboxed = await self.launch([self.python, str(PROBE_BOT)], PROBE_BOT.parent)
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

    def _confirm(self, report: dict[str, object] | None) -> None:
        """Keep only the layers whose effect the probe bot shows."""
        if report is None:
            for name in ("uid", "bwrap", "seccomp", "landlock"):
                if self.status[name].active:
                    self._set(name, False, "the probe bot did not start behind this layer")
            return
        if self.status["uid"].active and report.get("uid") == 0:
            self._set("uid", False, "the probe bot still ran as root")
        if self.status["bwrap"].active:
            own = {ns: os.readlink(f"/proc/self/ns/{ns}") for ns in ("net", "pid", "mnt")}
            theirs = report.get("namespaces") or {}
            shared = [ns for ns in own if isinstance(theirs, dict) and theirs.get(ns) == own[ns]]
            if shared or report.get("passwd") == "allowed":
                self._set("bwrap", False, f"the probe bot shared namespaces {shared} or read /etc/passwd")
        if self.status["seccomp"].active and report.get("socket") == "allowed":
            self._set("seccomp", False, "the probe bot could still open a socket")
        if self.status["landlock"].active and report.get("outside_write") == "allowed":
            self._set("landlock", False, "the probe bot could still write outside its scratch folder")
        if self.status["seccomp"].active and report.get("flock") == "allowed":
            self._set("seccomp", False, "the probe bot could still lock a shared file")

    # -- launching ------------------------------------------------------------------------

    def _read_paths(self, folder: Path | None) -> list[Path]:
        """What a bot may read (besides /usr): its interpreter, the arena, its folder."""
        reads = {_PACKAGE, *(self._sites or _site_dirs()), Path(self.python).resolve().parent.parent}
        if folder is not None:
            reads.add(folder)
        return sorted(reads)

    def _seen(self, folder: Path | None) -> dict[Path, Path]:
        """Without bubblewrap, where the bot finds what it reads: a folder its user cannot
        reach is read from a copy (:mod:`arena.sandbox.reach`), longest path first.  With
        bubblewrap every folder is bound where it is, and this is empty."""
        if self.status["bwrap"].active:
            return {}
        _compile_package()  # the copy carries current bytecode
        seen = {_PACKAGE.parent: reach.reachable(_PACKAGE.parent, ("arena",))}
        seen.update({site: reach.reachable(site, SITE_PACKAGES) for site in self._sites or _site_dirs()})
        if folder is not None:
            seen[folder] = reach.reachable(folder)
        return {k: v for k, v in sorted(seen.items(), key=lambda item: -len(str(item[0]))) if k != v}

    def _import_path(self, seen: dict[Path, Path] | None = None) -> list[str]:
        """A Python bot's ``PYTHONPATH``: where ``arena`` is found, then the site folders."""
        if self.status["bwrap"].active:
            return [IMPORT_DIR, *map(str, self._sites or _site_dirs())]
        return [_translate(str(p), seen or {}) for p in (_PACKAGE.parent, *(self._sites or _site_dirs()))]

    def _landlock_rules(self, folder: Path | None, scratch: Path, workshop: bool,
                        seen: dict[Path, Path]) -> dict[str, list[str]]:
        reads = ["/usr", "/bin", "/lib", "/lib64", "/sbin", "/proc", "/dev", str(ALTERNATIVES),
                 *(_translate(str(p), seen) for p in self._read_paths(folder))]
        if self.status["bwrap"].active:
            reads.append(IMPORT_DIR)
        else:  # outside bubblewrap, libraries and settings live in /etc, and arena's parent is listed
            reads += ["/etc", _translate(str(_PACKAGE.parent), seen)]
        writes = [str(scratch), "/dev/null", *([str(folder)] if workshop and folder else [])]
        return {"read": reads, "write": writes}

    def _bwrap_argv(self, argv: Sequence[str], folder: Path | None, scratch: Path, seccomp_fd: int | None,
                    environment: dict[str, str], workshop: bool) -> list[str]:
        """bubblewrap's command line.  Each folder the bot reads is bound where it is, from a
        copy where the bot's user could not reach it (:mod:`arena.sandbox.reach`)."""
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
        args += ["--ro-bind", "/usr", "/usr"]
        for top in ("bin", "lib", "lib64", "sbin"):
            path = Path("/") / top
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        if ALTERNATIVES.is_dir():  # the links of /usr/bin/cc, java ... lead there (Debian)
            args += ["--ro-bind", str(ALTERNATIVES), str(ALTERNATIVES)]
        size = str(self.limits.scratch_mb * _MB)
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
        for source, hidden in procfs.masks(self.limits.memory_mb):
            args += ["--ro-bind", source, hidden]
        binds = [p for p in self._read_paths(folder) if Path("/usr") not in (p, *p.parents) and p.exists()]
        for parent in _hidden_parents([*binds, scratch]):
            args += ["--perms", "0111", "--dir", str(parent)]
        sites = set(self._sites)
        for path in binds:
            if workshop and path == folder:
                args += ["--bind", str(path), str(path)]  # made reachable and the bot user's by launch
                continue
            reachable = reach.reachable(path, SITE_PACKAGES if path in sites else ())
            args += ["--ro-bind", str(reachable), str(path)]
        args += ["--dir", IMPORT_DIR, "--symlink", str(_PACKAGE), f"{IMPORT_DIR}/arena"]
        args += ["--bind", str(scratch), str(scratch), "--chdir", str(folder if workshop else scratch)]
        args += ["--remount-ro", "/"]  # the root's own folders: the bot may not unhide them (chmod)
        for name, value in environment.items():
            args += ["--setenv", name, value]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        return [*args, "--", *argv]

    def _environment(self, scratch: Path, seen: dict[Path, Path]) -> dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(scratch),
            "TMPDIR": str(scratch),
            "LANG": "C.UTF-8",
            "PYTHONPATH": os.pathsep.join(self._import_path(seen)),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }

    async def launch(
        self, argv: Sequence[str], folder: Path | None = None, *, confines_itself: bool = False,
        workshop: bool = False,
    ) -> Sandboxed:
        """Start ``argv`` (a bot whose files are in ``folder``) with pipes on its stdio.

        ``confines_itself``: the command does the in-sandbox set-up of :mod:`arena.sandbox.confine`
        itself (the bot host does); others are started through ``confine.py`` when Landlock
        or bubblewrap is active.  ``workshop``: ``folder`` is writable, given to the bot's
        user, and the command's working folder (a bot's build step); it must be reachable.
        """
        active = self.status
        if (active["landlock"].active or active["bwrap"].active) and not confines_itself:
            argv = [self.python, confine.__file__, "--", *argv]
        seen = {} if workshop else self._seen(folder)
        argv = [_translate(arg, seen) for arg in argv]
        if confines_itself:
            _compile_package()
        try:
            lease = self._uids.acquire() if active["uid"].active and self._uids else None
        except RuntimeError as error:
            raise SandboxError(str(error)) from None
        if lease is not None:
            tree.adopt_orphans()  # the killed bot's processes are then ours to reap, at once
        quota = scratch.Quota(self.limits.scratch_mb, self.limits.scratch_files) if active["quota"].active else None
        try:
            home = scratch.create((lease.uid, lease.gid) if lease else None, quota)
        except BaseException:
            if lease is not None:
                lease.release()
            raise
        cgroup: BotCgroup | None = None
        seccomp_fd: int | None = None
        holders: tuple[int, int] | None = None
        passed: list[int] = []  # descriptors the child inherits, closed here once it has them
        try:
            v2 = active["cgroup-kill"].active or active["freeze"].active
            if self._cgroups is not None and (active["cgroup"].active or v2):
                name = home.name  # arena-bot-PID-...: a sweep knows whose it is
                support = CgroupSupport(self._cgroups.v1 if active["cgroup"].active else {},
                                        self._cgroups.v2 if v2 else None,
                                        self._cgroups.freeze and active["freeze"].active)
                cgroup = support.create(name, self.limits.memory_mb, self.limits.processes)
            environment = self._environment(home, seen)
            if active["landlock"].active:
                environment[confine.ENV] = json.dumps(self._landlock_rules(folder, home, workshop, seen))
            if active["bwrap"].active:
                if active["seccomp"].active:
                    seccomp_fd = seccomp.memfd()
                    passed.append(seccomp_fd)
                holders = (os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC),
                           os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
                passed += holders
                environment[confine.STDIO_ENV] = f"{holders[0]} {holders[1]}"
                command = self._bwrap_argv(argv, folder, home, seccomp_fd, environment, workshop)
                env = {"PATH": "/usr/bin:/bin"}
            else:
                command, env = list(argv), environment
            if workshop and folder is not None and lease is not None:
                _give(folder, lease.uid, lease.gid)
            process = BotProcess.spawn(
                command,
                cwd=folder if workshop and folder is not None else home,
                env=env,
                pass_fds=passed,
                preexec_fn=self._preexec(lease, cgroup, holders),
            )
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            if lease is not None:
                lease.release()
            scratch.remove(home)
            raise
        finally:
            for fd in passed:
                os.close(fd)
        return Sandboxed(process, home, cgroup, lease)

    def _preexec(
        self, lease: Lease | None, cgroup: BotCgroup | None, holders: tuple[int, int] | None = None
    ) -> Callable[[], None]:
        """What the child runs between fork and exec: join groups, limit, drop privileges,
        and with ``holders``, move the protocol pipes there (onto those inherited fds),
        leaving /dev/null as stdin and stdout (see :func:`arena.sandbox.confine.take_stdio_from_env`)."""
        procs = cgroup.procs_files() if cgroup else []
        limits = self.limits

        def child() -> None:
            if holders is not None:
                os.dup2(0, holders[0])
                os.dup2(1, holders[1])
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.close(null)
            pid = str(os.getpid())
            for path in procs:
                with open(path, "w") as handle:
                    handle.write(pid)
            limits.apply(own_user=lease is not None)
            if lease is not None:
                os.setgroups([])
                os.setgid(lease.gid)
                os.setuid(lease.uid)

        return child


def _translate(arg: str, seen: dict[Path, Path]) -> str:
    """``arg`` with a leading path under a key of ``seen`` moved to that key's copy."""
    for original, moved in seen.items():
        root = str(original)
        if arg == root or arg.startswith(root + os.sep):
            return str(moved) + arg[len(root):]
    return arg


def _give(folder: Path, uid: int, gid: int) -> None:
    """Make ``folder`` and everything in it (no links) belong to ``uid``, writable by it."""
    for root, dirs, files in os.walk(folder):
        for path in (root, *(os.path.join(root, name) for name in (*dirs, *files))):
            os.chown(path, uid, gid, follow_symlinks=False)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o200)


def report_rows(box: Sandbox) -> list[list[str]]:
    """Rows for ``arena doctor``: layer, active, and what it stops or why it is off."""
    return [[s.name, "yes" if s.active else "no", s.stops if s.active else s.why] for s in box.status.values()]

