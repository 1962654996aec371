"""The host's archives: what an author's client packs, and what the host refuses to unpack.

Every archive here is a real one, built with tarfile, zipfile and gzip.  Each hostile one
must be refused with a message naming its fault, leaving nothing in the folder it was to
be unpacked into and nothing beside that folder; most start with a harmless file and a
harmless folder, so that what was written before the refusal is seen to be removed.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import stat
import struct
import tarfile
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.host.archive import NOT_AN_ARCHIVE, ArchiveError, ArchiveLimits, pack, unpack
from arena.tournament import registry

MB = 1024 * 1024
DEFAULT = ArchiveLimits()
SMALL = ArchiveLimits(unpacked_bytes=MB)
"""Limits that make a bomb of a few megabytes enough to test."""
NOISE = random.Random(31).randbytes(20_000)
"""Bytes that do not compress, the same each run."""
WHEN = 1_700_000_000
"""A sane modification time (November 2023)."""

Member = tuple[tarfile.TarInfo, bytes]


@pytest.fixture
def into(tmp_path: Path) -> Path:
    folder = tmp_path / "into"
    folder.mkdir()
    return folder


def refused(data: bytes, into: Path, match: str, limits: ArchiveLimits = DEFAULT) -> str:
    """Unpack ``data``, expecting a refusal matching ``match``, with nothing left behind; the message."""
    with pytest.raises(ArchiveError, match=match) as raised:
        unpack(data, into, limits)
    assert list(into.iterdir()) == []
    assert list(into.parent.iterdir()) == [into]
    message = str(raised.value)
    assert "\n" not in message
    return message


def entry(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, *, mode: int = 0o644,
          mtime: float = WHEN, **pax: str) -> Member:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime, info.pax_headers = kind, mode, mtime, pax
    info.size = len(data)
    return info, data


def folder_entry(name: str) -> Member:
    return entry(name, kind=tarfile.DIRTYPE, mode=0o755)


FIRST = (entry("bot.py", b"print('harmless')\n"), folder_entry("lib"), entry("lib/ok.py", b"x = 1\n"))
"""What a hostile archive starts with: made, then removed when the archive is refused."""


def tarred(*members: Member, compress: bool = True, form: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=form) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return gzip.compress(buffer.getvalue(), mtime=0) if compress else buffer.getvalue()


def unended(*members: Member) -> bytes:
    """The blocks of a plain tar's ``members``, without the end of the archive (to add to)."""
    return b"".join(info.tobuf(tarfile.PAX_FORMAT) + data + bytes(-len(data) % tarfile.BLOCKSIZE)
                    for info, data in members)


def zipped(*entries: tuple[zipfile.ZipInfo | str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def zeros_gzipped(prefix: bytes, zeros: int) -> bytes:
    """``prefix`` then ``zeros`` zero bytes, gzip'd in a moment however many: one flushed
    megabyte of zeros compresses to the same bytes each time, so it is repeated as is.  The
    gzip trailer is left out (a reader that gets that far has read it all)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = compressor.compress(prefix) + compressor.flush(zlib.Z_FULL_FLUSH)
    megabyte = compressor.compress(bytes(MB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return head + megabyte * (zeros // MB)


def make_bot(root: Path) -> Path:
    folder = root / "bot"
    (folder / "lib" / "deep").mkdir(parents=True)
    (folder / "__pycache__").mkdir()
    (folder / "lib" / "__pycache__").mkdir()
    (folder / ".git").mkdir()
    files = {
        "bot.toml": b'name = "packed"\n',
        "bot.py": b"print('hello')\n",
        "run.sh": b"#!/bin/sh\nexec python3 bot.py\n",
        "lib/deep/data.bin": bytes(range(256)) * 40,
        "lib/\u00e9t\u00e9.py": b"SUMMER = True\n",
        "__pycache__/bot.cpython-311.pyc": b"stale",
        "lib/__pycache__/x.pyc": b"stale",
        ".git/config": b"[core]\n",
    }
    for offset, (name, data) in enumerate(files.items()):
        (folder / name).write_bytes(data)
        os.utime(folder / name, (WHEN + offset, WHEN + offset))
    (folder / "run.sh").chmod(0o755)
    return folder


def tree(folder: Path) -> dict[str, tuple[bytes | None, int, int]]:
    """Every path under ``folder``: its contents (None for a folder), permission bits and mtime."""
    found: dict[str, tuple[bytes | None, int, int]] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        contents = None if path.is_dir() else path.read_bytes()
        found[path.relative_to(folder).as_posix()] = (contents, stat.S_IMODE(info.st_mode), int(info.st_mtime))
    return found


# --- round trips ------------------------------------------------------------------------------------------------


def test_pack_then_unpack_keeps_contents_exec_bits_and_mtimes(tmp_path: Path, into: Path) -> None:
    folder = make_bot(tmp_path)
    data = pack(folder)
    unpack(data, into)
    unpacked = tree(into)
    assert set(unpacked) == {"bot.toml", "bot.py", "run.sh", "lib", "lib/deep", "lib/deep/data.bin",
                             "lib/\u00e9t\u00e9.py"}
    for name, (contents, mode, mtime) in unpacked.items():
        if contents is None:
            assert mode == 0o755
            continue
        assert contents == (folder / name).read_bytes()
        assert mtime == int((folder / name).stat().st_mtime)
        assert mode == (0o755 if name == "run.sh" else 0o644)


def test_pack_is_deterministic_relative_sorted_and_owner_free(tmp_path: Path) -> None:
    folder = make_bot(tmp_path)
    data = pack(folder)
    os.utime(folder / "lib", (WHEN + 99, WHEN + 99))  # a folder's time is not part of the archive
    assert pack(folder) == data
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = archive.getmembers()
    names = [member.name for member in members]
    assert names == ["bot.py", "bot.toml", "lib/deep/data.bin", "lib/\u00e9t\u00e9.py", "run.sh"]
    assert all((m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "") and m.isreg() for m in members)


def test_zip_unpacks_with_folders_exec_bits_and_times(into: Path) -> None:
    script = zipfile.ZipInfo("run.sh", date_time=(2023, 11, 14, 12, 0, 0))
    script.external_attr = (stat.S_IFREG | 0o755) << 16
    data = zipped(("lib/", b""), ("lib/a.py", b"A = 1\n"), (script, b"#!/bin/sh\n"), ("docs/readme.txt", b"hi"))
    unpack(data, into)
    found = tree(into)
    assert set(found) == {"lib", "lib/a.py", "run.sh", "docs", "docs/readme.txt"}
    assert found["run.sh"][:2] == (b"#!/bin/sh\n", 0o755)
    assert found["lib/a.py"][:2] == (b"A = 1\n", 0o644)
    assert found["run.sh"][2] == int(time.mktime((2023, 11, 14, 12, 0, 0, 0, 0, -1)))


def test_plain_tar_with_leading_dot_unpacks(into: Path) -> None:
    data = tarred(folder_entry("."), entry("./bot.py", b"ok"), folder_entry("./lib"), entry("./lib/x.py", b"x"),
                  compress=False, form=tarfile.GNU_FORMAT)
    unpack(data, into)
    assert set(tree(into)) == {"bot.py", "lib", "lib/x.py"}


def test_modes_are_the_hosts_whatever_the_archive_or_umask(into: Path) -> None:
    data = tarred(entry("setuid", b"s", mode=0o4777), entry("open", b"o", mode=0o666), folder_entry("d"),
                  entry("d/sticky", b"t", mode=0o1711))
    previous = os.umask(0o077)
    try:
        unpack(data, into)
    finally:
        os.umask(previous)
    assert {name: mode for name, (_, mode, _) in tree(into).items()} == \
        {"setuid": 0o755, "open": 0o644, "d": 0o755, "d/sticky": 0o755}


@pytest.mark.parametrize("mtime", [0, 100_000_000, 4_000_000_000, 2**40])  # 4e9: the year 2096
def test_a_time_before_1980_or_in_the_future_becomes_now(into: Path, mtime: float) -> None:
    before = time.time()
    unpack(tarred(entry("bot.py", b"x", mtime=mtime)), into)
    assert before - 1 <= (into / "bot.py").stat().st_mtime <= time.time() + 1


def test_the_default_limits_are_the_registrys() -> None:
    assert ArchiveLimits().unpacked_bytes == registry.MAX_MB * MB
    assert ArchiveLimits().files == registry.MAX_FILES


# --- packing ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("spoil", "limits", "match"), [
    (lambda bot: (bot / "link.py").symlink_to(bot / "bot.py"), ArchiveLimits(), r"link\.py': a symbolic link"),
    (lambda bot: (bot / "lib" / "outside").symlink_to("/etc"), ArchiveLimits(), r"outside': a symbolic link"),
    (lambda bot: os.mkfifo(bot / "pipe"), ArchiveLimits(), r"pipe': a FIFO"),
    (lambda bot: None, ArchiveLimits(files=5), r"more than 5 files and folders"),
    (lambda bot: None, ArchiveLimits(unpacked_bytes=10_000), r"more than 9\.8 KB unpacked"),
    (lambda bot: (bot / "noise").write_bytes(NOISE), ArchiveLimits(archive_bytes=10_000),
     r"the packed bot is .* KB; the host accepts an archive of at most 9\.8 KB"),
    (lambda bot: None, ArchiveLimits(depth=2), r"'lib/deep/data\.bin': nested 3 deep; a path may hold at most 2 names"),
    (lambda bot: (bot / "a\\b.py").write_bytes(b""), ArchiveLimits(), r"a backslash"),
])
def test_pack_refuses_what_the_host_would(tmp_path: Path, spoil: Callable[[Path], object], limits: ArchiveLimits,
                                          match: str) -> None:
    folder = make_bot(tmp_path)
    spoil(folder)
    with pytest.raises(ArchiveError, match=match):
        pack(folder, limits)


# --- hostile uploads: sizes ---------------------------------------------------------------------------------------


def test_an_upload_over_the_limit(into: Path) -> None:
    data = tarred(*FIRST, entry("big", NOISE))
    refused(data, into, r"the upload is .* KB; an archive may be at most 10 KB", ArchiveLimits(archive_bytes=10_240))


def test_a_gzip_bomb_is_stopped_at_the_limit(into: Path) -> None:
    header = entry("zeros", b"")[0]
    header.size = 1024 * MB  # a gigabyte of zeros in a megabyte of upload
    data = zeros_gzipped(unended(*FIRST) + header.tobuf(), 1024 * MB)
    assert len(data) < 2 * MB
    started = time.process_time()  # this process's CPU: a gigabyte unpacked takes seconds of it, load or not
    refused(data, into, r"the files add up to more than 1 MB unpacked; a bot may hold at most 1 MB", SMALL)
    assert time.process_time() - started < 2


def test_a_tar_padded_with_zeros_past_its_end(into: Path) -> None:
    data = zeros_gzipped(tarred(*FIRST, compress=False), 1024 * MB)
    refused(data, into, r"the tar holds more than its entries need")


def test_a_tar_header_of_megabytes(into: Path) -> None:
    data = tarred(*FIRST, entry("bot.toml", b"", comment="x" * (4 * MB)))
    refused(data, into, r"the tar holds more than its entries need \(.*oversized headers\)")


def test_a_zip_bomb_is_stopped_at_the_limit(into: Path) -> None:
    data = zipped(("bot.py", b"ok"), ("lib/ok.py", b"x"), ("zeros", bytes(8 * MB)))
    refused(data, into, r"the files add up to more than 1 MB unpacked", SMALL)


def test_a_zip_whose_headers_lie_about_the_size(into: Path) -> None:
    """Megabytes of zeros declared as 100 bytes: read no further than declared, they fail their CRC."""
    data = bytearray(zipped(("bot.py", b"ok"), ("zeros", bytes(8 * MB))))
    local, central = data.index(b"PK\x03\x04", 1), data.rindex(b"PK\x01\x02")  # the headers of "zeros"
    struct.pack_into("<I", data, local + 22, 100)  # its uncompressed size
    struct.pack_into("<I", data, central + 24, 100)
    refused(bytes(data), into, r"damaged or cut short \(Bad CRC-32 for file 'zeros'\)", SMALL)


@pytest.mark.parametrize(("names", "match"), [
    (["a.py", "b.py", "c.py", "d.py"], r"more than 3 files and folders; a bot may hold at most 3"),
    (["x/y/z/w.py"], r"more than 3 files and folders"),  # the folders a path implies count too
])
def test_too_many_files(into: Path, names: list[str], match: str) -> None:
    refused(tarred(*(entry(name, b"x") for name in names)), into, match, ArchiveLimits(files=3))
    refused(zipped(*((name, b"x") for name in names)), into, match, ArchiveLimits(files=3))


@pytest.mark.parametrize(("name", "match"), [
    ("d/" * 32 + "f.py", r"nested 33 deep; a path may hold at most 32 names"),
    ("x" * 256, r"a name of 256 bytes; a name may be at most 255"),
    ("lib/" + "\u00e9" * 128, r"a name of 256 bytes"),
    ("/".join(["y" * 250] * 5), r"a path of 1254 bytes; a path may be at most 1024"),
])
def test_paths_too_deep_or_long(into: Path, name: str, match: str) -> None:
    refused(tarred(*FIRST, entry(name, b"x")), into, match)


# --- hostile uploads: kinds of entry ----------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "match"), [
    (tarfile.SYMTYPE, r"'evil': a symbolic link; a bot's archive may hold only regular files and folders"),
    (tarfile.LNKTYPE, r"'evil': a hard link"),
    (tarfile.CHRTYPE, r"'evil': a character device"),
    (tarfile.BLKTYPE, r"'evil': a block device"),
    (tarfile.FIFOTYPE, r"'evil': a FIFO"),
    (b"V", r"'evil': an entry of tar type 'V'"),
])
def test_tar_entries_other_than_files_and_folders(into: Path, kind: bytes, match: str) -> None:
    info, _ = entry("evil", kind=kind)
    info.linkname = "/etc/passwd"
    refused(tarred(*FIRST, (info, b"")), into, match)


def test_a_zip_symlink(into: Path) -> None:
    link = zipfile.ZipInfo("evil")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    refused(zipped(("bot.py", b"ok"), (link, b"/etc/passwd")), into, r"'evil': a symbolic link")


# --- hostile uploads: paths -------------------------------------------------------------------------------------


HOSTILE_NAMES = [
    ("{tmp}/escape", r"'/.*/escape': an absolute path; paths are relative to the bot's folder"),
    ("../escape", r"'\.\./escape': '\.\.' in a path, which would lead outside the bot's folder"),
    ("lib/../../escape", r"'\.\.' in a path"),
    ("..\\escape", r"a backslash in a path"),
    ("lib//escape", r"an empty name in a path"),
    ("bot\x1b[31m.py", r"'bot\\x1b\[31m\.py': a control character in a path"),
    ("bot\u202e.py", r"a control character in a path"),
    ("bot\x00.py", r"'bot\\x00\.py': a NUL byte in a path"),  # tar only: zipfile cuts a name at a NUL
    ("bad\udcff.py", r"not UTF-8"),  # tar only: zipfile cannot write it
]
"""Paths that lead outside the bot's folder, or that are odd enough to hide something."""


@pytest.mark.parametrize(("name", "match"), HOSTILE_NAMES)
def test_tar_paths_outside_or_odd(tmp_path: Path, into: Path, name: str, match: str) -> None:
    data = tarred(*FIRST, entry("escape", b"gotcha", path=name.format(tmp=tmp_path)))  # a pax path: the name as is
    refused(data, into, match)
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize(("name", "match"), HOSTILE_NAMES[:-2])
def test_zip_paths_outside_or_odd(tmp_path: Path, into: Path, name: str, match: str) -> None:
    refused(zipped(("bot.py", b"ok"), ("lib/ok.py", b"x"), (name.format(tmp=tmp_path), b"gotcha")), into, match)
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize(("members", "match"), [
    ([entry("bot.py", b"again")], r"'bot\.py': two entries for the same path"),
    ([folder_entry("lib")], r"'lib': two entries for the same path"),
    ([entry("lib", b"a file")], r"'lib': both a file and a folder"),
    ([folder_entry("bot.py")], r"'bot\.py': both a file and a folder"),
    ([entry("bot.py/x", b"")], r"'bot\.py/x': inside a path that is a file"),
    ([entry("./lib/ok.py", b"")], r"two entries for the same path"),
])
def test_duplicate_paths(into: Path, members: list[Member], match: str) -> None:
    refused(tarred(*FIRST, *members), into, match)


def test_duplicate_zip_entries(into: Path) -> None:
    with pytest.warns(UserWarning, match="Duplicate name"):
        data = zipped(("bot.py", b"ok"), ("bot.py", b"evil"))
    refused(data, into, r"two entries for the same path")


# --- hostile uploads: zip features ------------------------------------------------------------------------------


def test_an_encrypted_zip(into: Path) -> None:
    data = bytearray(zipped(("bot.py", b"ok"), ("secret.py", b"x")))
    local, central = data.index(b"PK\x03\x04", 1), data.rindex(b"PK\x01\x02")
    data[local + 6] |= 0x1  # zipfile writes no encryption; the flag says the entry is encrypted
    data[central + 8] |= 0x1
    refused(bytes(data), into, r"'secret\.py': encrypted; upload the bot's files unencrypted")


def test_a_zip_compressed_other_than_by_deflate(into: Path) -> None:
    packed = zipfile.ZipInfo("bot.py")
    packed.compress_type = zipfile.ZIP_BZIP2
    refused(zipped(("lib/ok.py", b"x"), (packed, b"print()")), into, r"'bot\.py': compressed by method 12")


# --- not archives, and damaged ones -----------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", NOISE[:4096], b"\x89PNG\r\n\x1a\n" + bytes(600),
                                  b"BZh91AY&SY" + bytes(600), b"PK", bytes(1024)],
                         ids=["empty", "random", "png", "bzip2", "PK", "zeros"])
def test_not_an_archive(into: Path, data: bytes) -> None:
    assert refused(data, into, r"not an archive") == NOT_AN_ARCHIVE


def cut(data: bytes) -> bytes:
    return data[:len(data) // 2]


def spoil_gzip_crc(data: bytes) -> bytes:
    return data[:-8] + bytes(b ^ 0xFF for b in data[-8:-4]) + data[-4:]


def cut_at_a_header(_: bytes) -> bytes:
    """A plain tar cut after its first file: tarfile alone would read a shorter bot."""
    return tarred(*FIRST, compress=False)[:3 * tarfile.BLOCKSIZE]


def spoil_second_header(_: bytes) -> bytes:
    data = bytearray(tarred(*FIRST, compress=False))
    data[2 * tarfile.BLOCKSIZE + 10] ^= 0x55  # the folder's header: its checksum no longer matches
    return bytes(data)


@pytest.mark.parametrize("damage", [cut, spoil_gzip_crc, cut_at_a_header, spoil_second_header])
def test_damaged_tar(into: Path, damage: Callable[[bytes], bytes]) -> None:
    data = damage(tarred(*FIRST, entry("more.py", NOISE[:5000])))
    refused(data, into, r"the archive is damaged or cut short \(.+\)")


@pytest.mark.parametrize("data", [
    gzip.compress(NOISE[:3000]),
    b"\x1f\x8b" + NOISE[:3000],
    cut(zipped(("bot.py", b"ok"), ("lib/ok.py", NOISE[:5000]))),
    zipped(("bot.py", b"ok"))[:-10],
])
def test_damaged_gzip_or_zip(into: Path, data: bytes) -> None:
    refused(data, into, r"the archive is damaged or cut short")
