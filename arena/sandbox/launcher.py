"""Launch bot processes behind every isolation layer this machine offers.

A :class:`Sandbox` is built once per referee process by :meth:`Sandbox.probe`, which
keeps the layers that work here (:mod:`arena.sandbox.probe`; the layers themselves are
described in :mod:`arena.sandbox.layers`).  Then each :meth:`Sandbox.launch`:

1. creates the bot's control groups (memory and pids limits, CPU accounting, freezer,
   kill) and its scratch space (:mod:`arena.sandbox.scratch`: a tmpfs of its own with a
   size and an inode quota), owned by the bot's user;
2. forks; the child joins the groups, sets its rlimits, starts a new session, moves the
   protocol pipes above fd 2 (under bubblewrap) and drops to an unprivileged user of
   the pool (``arena-bot-N``);
3. as that user, execs bubblewrap: new user, pid, network, ipc, uts and mount
   namespaces, a read-only minimal root (``/usr``, the interpreter, the arena package
   and its libraries under ``/run/arena``, the bot's folder at ``/bot``: no path inside
   names a folder of this machine or the referee's pid, and bubblewrap reads its own
   arguments from a descriptor, so its command line shows none either), a private ``/tmp`` and
   ``/dev/shm`` of the scratch quota's size, a ``/proc`` that shows the bot's own processes
   and nothing of the machine's (:mod:`arena.sandbox.procfs`), the scratch space as the
   only writable place, an empty environment, no capabilities, and the seccomp filter; it
   dies with the referee;
4. bubblewrap execs the bot, whose first code (:mod:`arena.sandbox.confine`) takes its pipes
   back to fds 0 and 1 and applies Landlock.

:meth:`Sandboxed.kill` (:mod:`arena.sandbox.sandboxed`) kills the whole tree (``cgroup.kill``, the process group, the
session, the bot's user, and anything left in the groups), waits until the user has no
process left, and removes the groups and the scratch space.  Between its turns the
referee freezes the whole tree (:meth:`Sandboxed.freeze`), so that a bot cannot take CPU
from the bot whose turn it is.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from arena.sandbox import confine, procfs, reach, scratch, seccomp, tree
from arena.sandbox.cgroups import BotCgroup, CgroupSupport
from arena.sandbox.layers import LAYERS, Layer, LayerStatus, Limits, SandboxError
from arena.sandbox.probe import probe_layers
from arena.sandbox.process import BotProcess
from arena.sandbox.programs import BOT_PATH
from arena.sandbox.resident import Resident
from arena.sandbox.sandboxed import Sandboxed
from arena.sandbox.uids import Lease, UidPool

__all__ = ["LAYERS", "LayerStatus", "Limits", "Sandbox", "SandboxError", "Sandboxed"]

_MB = 1024 * 1024
_PACKAGE = Path(__file__).resolve().parent.parent  # the arena package
ALTERNATIVES = Path("/etc/alternatives")
"""Debian's links for commands with several providers, which a bot sees read-only."""
IMPORT_DIR = "/run/arena"
"""Inside bubblewrap: the folder that holds the arena package (``arena``) and the site
folders of its libraries (``site-N``), the Python bot's import path."""
BOT_DIR = "/bot"
"""Inside bubblewrap: the bot's own folder (the build step's workshop, for a build)."""
SCRATCH_DIR = "/home/bot"
"""Inside bubblewrap: the bot's scratch space, its ``HOME``, ``TMPDIR`` and working folder."""
_SYSTEM_MOUNTS = frozenset(map(Path, ("/", "/usr", "/tmp", "/dev", "/proc")))

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

    def __init__(self, limits: Limits | None = None, *, layers: Iterable[str] = (Layer.RLIMITS, Layer.SESSION)) -> None:
        self.limits = limits or Limits()
        wanted = set(layers)
        self.status: dict[Layer, LayerStatus] = {
            name: LayerStatus(name, name in wanted, "" if name in wanted else "not requested") for name in LAYERS
        }
        self.cgroups: CgroupSupport | None = None
        self.uids: UidPool | None = None
        self.resident: Resident | None = None
        self.python = sys.executable
        self.sites: list[Path] = _site_dirs()

    def with_limits(self, limits: Limits) -> Sandbox:
        """This sandbox, with its layers as probed, giving each bot ``limits``."""
        box = copy.copy(self)
        box.limits = limits
        return box

    # -- what is active ---------------------------------------------------------------

    @property
    def active(self) -> list[str]:
        """Names of the layers in use (plain strings: they go into records and messages)."""
        return [name.value for name, status in self.status.items() if status.active]

    def missing(self, required: Iterable[str]) -> list[LayerStatus]:
        """The layers of ``required`` that are not active (SandboxError for unknown names)."""
        unknown = sorted(set(required) - set(LAYERS))
        if unknown:
            raise SandboxError(f"unknown sandbox layer(s) {', '.join(unknown)}; layers: {', '.join(LAYERS)}")
        return [self.status[Layer(name)] for name in required if not self.status[Layer(name)].active]

    def require(self, required: Iterable[str]) -> None:
        """SandboxError naming each required layer that is not active, and why."""
        missing = self.missing(required)
        if missing:
            reasons = "; ".join(f"{s.name}: {s.why}" for s in missing)
            raise SandboxError(f"refusing to run untrusted bots without required sandbox layers ({reasons})")

    def set_layer(self, name: Layer, active: bool, why: str = "") -> None:
        """Turn a layer on or off, saying why (the probe's findings)."""
        self.status[name] = LayerStatus(name, active, why)

    @classmethod
    async def probe(cls, limits: Limits | None = None) -> Sandbox:
        """Every layer that works here, each confirmed by the probe bot (:mod:`arena.sandbox.probe`)."""
        box = cls(limits, layers=LAYERS)
        await probe_layers(box)
        return box

    def prepare_resident(self) -> None:
        """Make (or find) the resident copies bots read from (:mod:`arena.sandbox.resident`)."""
        self.resident = Resident.prepare(self.python, _PACKAGE, self.sites or _site_dirs(), SITE_PACKAGES)

    # -- launching ------------------------------------------------------------------------

    def _read_paths(self, folder: Path | None) -> list[Path]:
        """What a bot may read (besides /usr): its interpreter, the arena, its folder."""
        reads = {_PACKAGE, *(self.sites or _site_dirs()), Path(self.python).resolve().parent.parent}
        if folder is not None:
            reads.add(folder)
        return sorted(reads)

    def _seen(self, folder: Path | None) -> dict[Path, Path]:
        """Without bubblewrap, where the bot finds what it reads: a folder its user cannot
        reach is read from a copy (:mod:`arena.sandbox.reach`), longest path first.  With
        bubblewrap every folder is bound where it is, and a bot that runs as the arena's own
        user reads it where it is: then this is empty."""
        if self.status[Layer.BWRAP].active or not self.status[Layer.UID].active:
            return {}
        _compile_package()  # the copy carries current bytecode
        seen = {_PACKAGE: reach.reachable(_PACKAGE.parent, ("arena",)) / "arena"}
        seen.update({site: reach.reachable(site, SITE_PACKAGES) for site in self.sites or _site_dirs()})
        if folder is not None:
            seen[folder] = reach.reachable(folder)
        return {k: v for k, v in sorted(seen.items(), key=lambda item: -len(str(item[0]))) if k != v}

    def _inside(self, folder: Path | None) -> dict[Path, Path]:
        """Under bubblewrap, where the bot finds the folders it reads, longest path first:
        fixed paths that name no folder of this machine (the checkout's, the registry's)."""
        inside = {_PACKAGE: Path(IMPORT_DIR, "arena")}
        inside.update({site: Path(IMPORT_DIR, f"site-{n}") for n, site in enumerate(self.sites or _site_dirs())})
        if folder is not None and Path("/usr") not in (folder, *folder.parents):
            inside[folder] = Path(BOT_DIR)
        return dict(sorted(inside.items(), key=lambda item: -len(str(item[0]))))

    def _import_path(self, where: dict[Path, Path]) -> list[str]:
        """A Python bot's ``PYTHONPATH``: where ``arena`` is found, then the site folders."""
        home = str(Path(_translate(str(_PACKAGE), where)).parent)
        return [home, *(_translate(str(p), where) for p in self.sites or _site_dirs())]

    def _landlock_rules(self, folder: Path | None, scratch: str, workshop: bool,
                        where: dict[Path, Path]) -> dict[str, list[str]]:
        reads = ["/usr", "/bin", "/lib", "/lib64", "/sbin", *procfs.readable(), "/dev", str(ALTERNATIVES),
                 *(_translate(str(p), where) for p in self._read_paths(folder))]
        if not self.status[Layer.BWRAP].active:  # libraries and settings live in /etc, and arena's parent is listed
            reads += ["/etc", str(Path(_translate(str(_PACKAGE), where)).parent)]
        writes = [scratch, "/dev/null", *([_translate(str(folder), where)] if workshop and folder else [])]
        return {"read": reads, "write": writes}

    def _bwrap_options(self, folder: Path | None, scratch: Path, seccomp_fd: int | None,
                       environment: dict[str, str], workshop: bool, folder_copy: Path | None) -> list[str]:
        """bubblewrap's options.  Each folder the bot reads is bound at its place inside
        (:meth:`_inside`; the interpreter's own installation where it is), from a copy where
        the bot's user could not reach it (:mod:`arena.sandbox.reach`)."""
        args = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
        resident = self.resident if self.status[Layer.RESIDENT].active else None
        args += ["--ro-bind", str(resident.usr if resident and not workshop else "/usr"), "/usr"]  # builds: compilers
        for top in ("bin", "lib", "lib64", "sbin"):
            path = Path("/") / top
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        if ALTERNATIVES.is_dir() and (resident is None or workshop):  # links of /usr/bin/cc, java ... (Debian)
            args += ["--ro-bind", str(ALTERNATIVES), str(ALTERNATIVES)]
        size = str(self.limits.scratch_mb * _MB)
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
        for source, hidden in procfs.masks(self.limits.memory_mb):
            args += ["--ro-bind", source, hidden]
        binds = [p for p in self._read_paths(folder) if Path("/usr") not in (p, *p.parents) and p.exists()]
        inside = self._inside(folder)
        for parent in _hidden_parents([p for p in binds if p not in inside]):
            args += ["--perms", "0111", "--dir", str(parent)]
        sites = set(self.sites)
        copies: dict[Path, Path] = {}
        if resident is not None:
            copies = {_PACKAGE: resident.package, **dict(zip(self.sites or _site_dirs(), resident.sites, strict=True))}
            if folder is not None and folder_copy is not None:
                copies[folder] = folder_copy
        for path in binds:
            target = str(inside.get(path, path))
            if workshop and path == folder:
                args += ["--bind", str(path), target]  # made reachable and the bot user's by launch
                continue
            origin = copies.get(path) or reach.reachable(path, SITE_PACKAGES if path in sites else ())
            args += ["--ro-bind", str(origin), target]
        workplace = _translate(str(folder), inside) if workshop else SCRATCH_DIR
        args += ["--bind", str(scratch), SCRATCH_DIR, "--chdir", workplace]
        args += ["--remount-ro", "/"]  # the root's own folders: the bot may not unhide them (chmod)
        for name, value in environment.items():
            args += ["--setenv", name, value]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        return args

    def _environment(self, scratch: str, where: dict[Path, Path]) -> dict[str, str]:
        return {
            "PATH": BOT_PATH,
            "HOME": scratch,
            "TMPDIR": scratch,
            "LANG": "C.UTF-8",
            "PYTHONPATH": os.pathsep.join(self._import_path(where)),
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
        if (active[Layer.LANDLOCK].active or active[Layer.BWRAP].active) and not confines_itself:
            argv = [self.python, confine.__file__, "--", *argv]
        bwrap = active[Layer.BWRAP].active
        where = self._inside(folder) if bwrap else {} if workshop else self._seen(folder)
        resident = self.resident if bwrap and active[Layer.RESIDENT].active and not workshop else None
        reads_from = resident.bot(folder) if resident is not None and folder is not None else folder
        argv = [_translate(arg, where) for arg in argv]
        if confines_itself:
            _compile_package()
        try:
            lease = self.uids.acquire() if active[Layer.UID].active and self.uids else None
        except RuntimeError as error:
            raise SandboxError(str(error)) from None
        if lease is not None:
            tree.adopt_orphans()  # the killed bot's processes are then ours to reap, at once
        quota = scratch.Quota(self.limits.scratch_mb, self.limits.scratch_files) if active[Layer.QUOTA].active else None
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
            v2 = active[Layer.CGROUP_KILL].active or active[Layer.FREEZE].active
            if self.cgroups is not None and (active[Layer.CGROUP].active or v2):
                name = home.name  # arena-bot-PID-...: a sweep knows whose it is
                support = CgroupSupport(self.cgroups.v1 if active[Layer.CGROUP].active else {},
                                        self.cgroups.v2 if v2 else None,
                                        self.cgroups.freeze and active[Layer.FREEZE].active)
                cgroup = support.create(name, self.limits.memory_mb, self.limits.processes)
            scratch_path = SCRATCH_DIR if bwrap else str(home)
            environment = self._environment(scratch_path, where)
            if active[Layer.LANDLOCK].active:
                environment[confine.ENV] = json.dumps(self._landlock_rules(folder, scratch_path, workshop, where))
            if bwrap:
                if active[Layer.SECCOMP].active:
                    seccomp_fd = seccomp.memfd()
                    passed.append(seccomp_fd)
                holders = (os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC),
                           os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
                passed += holders
                environment[confine.STDIO_ENV] = f"{holders[0]} {holders[1]}"
                options = _options_fd(self._bwrap_options(folder, home, seccomp_fd, environment, workshop, reads_from))
                passed.append(options)
                command = ["bwrap", "--args", str(options), "--", *argv]
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
        return Sandboxed(process, home, cgroup, lease, reads_from)

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


def _options_fd(args: Sequence[str]) -> int:
    """A descriptor holding bubblewrap's options (``bwrap --args FD``), so that its command
    line, which a bot reads as ``/proc/1/cmdline``, names none of this machine's paths."""
    fd = os.memfd_create("arena-bwrap-options")
    os.write(fd, b"".join(arg.encode() + b"\0" for arg in args))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _give(folder: Path, uid: int, gid: int) -> None:
    """Make ``folder`` and everything in it (no links) belong to ``uid``, writable by it."""
    for root, dirs, files in os.walk(folder):
        for path in (root, *(os.path.join(root, name) for name in (*dirs, *files))):
            os.chown(path, uid, gid, follow_symlinks=False)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o200)
