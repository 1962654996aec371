"""A bot's scratch space (quotas, and removal of whatever tree a bot leaves: any depth, many
files, links out of it, folders it made unreadable, without ever raising), and the folders
it reads, wherever they are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile import BOTS, assert_clean, assert_nothing_left, play, random_bot

from arena.botspec import load_manifest
from arena.sandbox import Sandbox, reach, scratch
from arena.sandbox.cgroups import owner_alive


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="arena-scratch-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _deep(root: Path, depth: int) -> None:
    """A chain of ``depth`` nested folders, made with relative steps (the full path is far
    longer than PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("leaf", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd), "w") as leaf:
            leaf.write("bottom")
    finally:
        os.close(fd)


def test_a_tree_three_thousand_folders_deep_is_removed(folder: Path) -> None:
    """``shutil.rmtree`` raises RecursionError on this tree (Python 3.11)."""
    tree = folder / "tree"
    tree.mkdir()
    _deep(tree, 3000)
    scratch.remove_tree(tree)
    assert not tree.exists()


def test_links_out_of_the_tree_are_removed_not_followed(folder: Path) -> None:
    outside = folder / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    tree = folder / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "a" / "to-folder").symlink_to(outside)
    (tree / "to-file").symlink_to(outside / "keep.txt")
    (tree / "dangling").symlink_to(folder / "nothing")
    scratch.remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "mine"


def test_many_files_and_a_folder_named_like_the_moved_ones(folder: Path) -> None:
    tree = folder / "tree"
    for name in (".gone-0", ".gone-1", "x"):
        (tree / name / "sub" / "subsub").mkdir(parents=True)
    for i in range(3000):
        (tree / "x" / f"f{i}").touch()
    scratch.remove_tree(tree)
    assert not tree.exists()


def test_a_link_or_file_in_place_of_the_folder(folder: Path) -> None:
    target = folder / "target"
    target.mkdir()
    link = folder / "link"
    link.symlink_to(target)
    scratch.remove_tree(link)
    assert not link.exists() and not link.is_symlink() and target.is_dir()
    scratch.remove_tree(folder / "never-existed")  # nothing to do


def test_unreadable_and_read_only_folders_of_an_unprivileged_owner(folder: Path) -> None:
    """Run as an unprivileged user (as a bot without the uid layer would leave it): folders
    with mode 000 and 0500 are opened up and removed."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (to run the removal as an unprivileged user) and setpriv")
    folder.chmod(0o777)
    tree = folder / "tree"
    (tree / "locked" / "inner").mkdir(parents=True)
    (tree / "locked" / "inner" / "f").touch()
    (tree / "readonly" / "g").mkdir(parents=True)
    for path in tree.rglob("*"):
        os.chown(path, 65534, 65534, follow_symlinks=False)
    os.chown(tree, 65534, 65534)
    (tree / "locked").chmod(0)
    (tree / "readonly").chmod(0o500)
    # The module alone, from a copy the unprivileged user can read (the clone may be private),
    # without the package's __init__, which imports trio from the arena's environment.
    copy = reach.reachable(Path(scratch.__file__).parent, ("scratch.py", "cgroups.py"))
    code = ("import sys, types; sys.modules['arena'] = types.ModuleType('arena'); "
            "sys.modules['arena.sandbox'] = package = types.ModuleType('arena.sandbox'); "
            f"package.__path__ = [{str(copy)!r}]; "
            "from arena.sandbox import scratch; "
            f"scratch.remove_tree(__import__('pathlib').Path({str(tree)!r}))")
    python = str(Path(sys.executable).resolve())
    run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", code],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert not tree.exists()


def test_tmpfs_scratch_has_a_size_and_file_quota() -> None:
    ok, why = scratch.can_mount()
    if not ok:
        pytest.skip(f"no tmpfs scratch here: {why}")
    path = scratch.create(None, scratch.Quota(size_mb=1, files=50))
    try:
        assert path.name.startswith(f"arena-bot-{os.getpid()}-")
        made = 0
        with pytest.raises(OSError, match="No space left"):
            for made in range(1000):  # noqa: B007 - how many fit is checked below
                (path / f"f{made}").touch()
        assert 40 <= made <= 50
        for name in os.listdir(path):
            os.unlink(path / name)
        with pytest.raises(OSError, match="No space left"), open(path / "big", "wb") as big:
            for _ in range(100):
                big.write(b"x" * 65536)
        assert (path / "big").stat().st_size <= 1024 * 1024
    finally:
        scratch.remove(path)
    assert not path.exists()


def test_removing_a_full_tmpfs_is_one_unmount_not_a_walk() -> None:
    """A plain folder of 20,000 files is the slow case (a walk, a call per file); a tmpfs
    scratch goes with its files in one unmount, whatever the machine's load (it was timed
    against the wall clock)."""
    ok, why = scratch.can_mount()
    if not ok:
        pytest.skip(f"no tmpfs scratch here: {why}")
    path = scratch.create(None, scratch.Quota(size_mb=64, files=100_000))
    for i in range(20_000):
        (path / f"f{i}").touch()
    assert scratch._unmount(path)  # what remove() does first
    assert list(path.iterdir()) == []  # the files went with it: nothing is left to walk
    scratch.remove(path)
    assert not path.exists()


def test_sweep_unmounts_and_removes_what_a_dead_arena_left(folder: Path) -> None:
    """Scratch spaces named after a process that is gone are removed by the next arena
    process, in the background; those of live processes are left alone."""
    gone = os.getpid() + 1_000_000  # beyond pid_max: no such process
    assert not owner_alive(f"arena-bot-{gone}-x")
    stale = folder / f"arena-bot-{gone}-stale"
    stale.mkdir()
    _deep(stale, 1500)
    mine = folder / f"arena-bot-{os.getpid()}-live"
    mine.mkdir()
    scratch.sweep(folder)
    deadline = time.monotonic() + 10
    while stale.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not stale.exists()
    assert mine.is_dir()


def test_a_bot_in_a_folder_its_user_cannot_enter_plays_behind_every_layer(box: Sandbox) -> None:
    """A clone in /root or a ``mktemp -d`` folder is closed to the bots' users: bubblewrap
    (which runs as the bot's user) could not bind the bot's folder, and the sandbox dropped
    four layers.  The arena binds a copy instead, and the bot sees its folder where it is."""
    if not box.status["bwrap"].active:
        pytest.skip(f"bubblewrap is not active here: {box.status['bwrap'].why}")
    private = Path(tempfile.mkdtemp(prefix="arena-private-"))  # mode 0700, as mktemp -d makes it
    try:
        shutil.copytree(BOTS / "side-channels", private / "bot")
        assert reach.closed_to_others(private / "bot") == private
        copy = reach.reachable(private / "bot")
        assert copy != private / "bot" and reach.closed_to_others(copy) is None
        assert (copy / "bot.py").read_bytes() == (private / "bot" / "bot.py").read_bytes()
        played = play(box, [random_bot(), load_manifest(private / "bot")], reporters=[1])
        assert_clean(played)
        assert played.result.sandbox == sorted(box.active)
        assert_nothing_left(played)
    finally:
        shutil.rmtree(private, ignore_errors=True)
