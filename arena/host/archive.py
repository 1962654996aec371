"""Bot folders as archives: packed by an author's client, unpacked by the host.

What the host unpacks was uploaded by a stranger who has read this code, so nothing in an
archive is believed: not the sizes its headers declare, not its paths, not its file types.
Entries are read one at a time and every byte is counted as it is decompressed, so a
decompression bomb is stopped at the limit rather than after it has filled the disk; paths
are checked as words (no absolute paths, ``..``, links or duplicates) before anything is
created, and files are written by this module alone, each new (``O_EXCL``, ``O_NOFOLLOW``)
in the folder it was given or one it made itself, with modes it chooses (never setuid,
never writable by others).  A refused archive leaves nothing behind: what was written
before the refusal is removed.

:func:`pack` applies the same limits on the author's side, so that an author learns what
the host would refuse before uploading it.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import os
import shutil
import stat
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, NoReturn, Protocol, Self

from arena.botspec import IGNORED
from arena.errors import ArenaError
from arena.text import counted, has_controls, printable

__all__ = ["NOT_AN_ARCHIVE", "ArchiveError", "ArchiveLimits", "pack", "unpack"]

NOT_AN_ARCHIVE: Final = "not an archive: upload a .tar.gz or .zip of the bot's folder"
"""Why an upload that is neither a gzip'd tar, a tar nor a zip is refused."""
_HEADER_BYTES: Final = 8192
"""What one tar entry's headers may take (its header block, and a long name's or pax
header's): with its data, all an entry may add to the tar's length."""
_TRAILER_BYTES: Final = 1024 * 1024
"""How far a tar may run past its last entry (its end blocks and the padding of its last
record, generous for any blocking factor): not gigabytes of zeros to decompress."""
_CHUNK: Final = 64 * 1024
"""Bytes read, counted and written at a time."""
_MB: Final = 1024 * 1024
_YEAR_1980: Final = 315532800
"""The earliest modification time kept (zip's epoch); earlier, or more than a day ahead, is now."""
_DAY: Final = 86400
_GZIP: Final = b"\x1f\x8b"
_ZIP: Final = (b"PK\x03\x04", b"PK\x05\x06")
"""A zip's first local header, or the end record of an empty zip."""
_TAR_MAGIC: Final = slice(257, 262)
"""Where a POSIX or GNU tar header says ``ustar``."""
_KINDS: Final = {stat.S_IFLNK: "a symbolic link", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
                 stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}
"""What a file that is neither regular nor a folder is, by its type bits."""


class ArchiveError(ArenaError, ValueError):
    """An archive the host does not unpack, or a folder it would not accept; the message says why."""


@dataclass(frozen=True)
class ArchiveLimits:
    """What one bot's archive may hold."""

    archive_bytes: int = 8 * _MB
    """The upload itself."""
    unpacked_bytes: int = 64 * _MB
    """Its files' bytes, unpacked (the registry's ``MAX_MB``)."""
    files: int = 4096
    """Its files and folders, including folders only implied by a path (the registry's ``MAX_FILES``)."""
    depth: int = 32
    """Names in one path."""
    name_bytes: int = 255
    """One name in a path, in UTF-8 (the most Linux allows)."""
    path_bytes: int = 1024
    """A whole path, in UTF-8."""


@dataclass(frozen=True)
class _Entry:
    """One file or folder of an archive, its contents still to be read."""

    name: str
    folder: bool
    executable: bool
    mtime: float
    chunks: Iterator[bytes]


def pack(folder: Path, limits: ArchiveLimits = ArchiveLimits()) -> bytes:
    """The files of a bot folder as a gzip'd tar, ready to upload: paths relative to
    ``folder``, sorted, caches left out, executable bits and modification times kept, no
    owners.  The same files and times always give the same bytes.  ArchiveError for a
    link, anything but files and folders, or more than the host accepts (``limits``)."""
    tree = _Tree(limits)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as compressed, \
            tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, info in _walk(folder, folder, limits):
            relative = path.relative_to(folder).as_posix()
            tree.add(relative, folder=False)
            tree.count(info.st_size)
            member = tarfile.TarInfo(relative)
            member.size, member.mtime = info.st_size, int(info.st_mtime)
            member.mode = 0o755 if info.st_mode & 0o111 else 0o644
            with path.open("rb") as contents:
                tar.addfile(member, contents)
    if buffer.tell() > limits.archive_bytes:
        raise ArchiveError(f"the packed bot is {_size(buffer.tell())}; the host accepts an archive of at most "
                           f"{_size(limits.archive_bytes)}")
    return buffer.getvalue()


def _walk(top: Path, folder: Path, limits: ArchiveLimits) -> Iterator[tuple[Path, os.stat_result]]:
    """The regular files under ``folder``, sorted by path, caches skipped; ArchiveError for
    anything else, and for folders too deep to pack (before descending into them)."""
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda entry: entry.name)
    for entry in entries:
        if entry.name in IGNORED:
            continue
        path = Path(entry.path)
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            _parts(path.relative_to(top).as_posix(), limits)
            yield from _walk(top, path, limits)
        elif not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise ArchiveError(f"{_shown(str(path))}: {kind}; the host accepts only regular files and folders (no "
                               "links), so a bot's folder may hold nothing else")
        else:
            yield path, info


def unpack(data: bytes, into: Path, limits: ArchiveLimits = ArchiveLimits()) -> None:
    """Unpack an uploaded gzip'd tar, tar or zip (told apart by their first bytes) into
    ``into``, an empty folder; ArchiveError, with ``into`` left empty, if it breaks one of
    ``limits`` or holds anything but plain files and folders under safe relative paths."""
    if len(data) > limits.archive_bytes:
        raise ArchiveError(f"the upload is {_size(len(data))}; an archive may be at most {_size(limits.archive_bytes)}")
    if data.startswith(_GZIP):
        entries = _tar_entries(gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb"))
    elif data[_TAR_MAGIC] == b"ustar":
        entries = _tar_entries(io.BytesIO(data))
    elif data.startswith(_ZIP):
        entries = _zip_entries(data)
    else:
        raise ArchiveError(NOT_AN_ARCHIVE)
    writer = _Writer(into, limits)
    try:
        for entry in entries:
            writer.add(entry)
    except BaseException:
        writer.discard()
        raise


@contextlib.contextmanager
def _reading() -> Iterator[None]:
    """Whatever the standard library's readers raise on bytes they cannot make sense of
    (gzip, tar and zip errors, early ends, bad CRCs, undecodable names), as ArchiveError:
    everything inside is the reading of the upload, so any failure there is the upload's."""
    try:
        yield
    except ArchiveError:
        raise
    except Exception as error:
        raise ArchiveError(f"the archive is damaged or cut short ({_safe(str(error) or type(error).__name__)})") \
            from None


class _Readable(Protocol):
    """What an upload's tar is read from: the upload itself, or its gzip decompressor."""

    def read(self, size: int, /) -> bytes: ...


class _Budgeted:
    """The tar inside an upload, read no further than its entries need: each entry allows
    its headers and its declared data, and the end a little padding.  A gzip'd tar padded
    with gigabytes of zeros, or a header claiming megabytes of name, is refused as soon as
    the count passes what was allowed, not decompressed to its end."""

    def __init__(self, source: _Readable) -> None:
        self._source = source
        self._position = 0
        self._allowed = _HEADER_BYTES + _TRAILER_BYTES

    def allow(self, more: int) -> None:
        self._allowed += more

    def read(self, size: int) -> bytes:
        with _reading():
            data = self._source.read(min(size, self._allowed - self._position + 1))
        self._position += len(data)
        if self._position > self._allowed:
            raise ArchiveError("the tar holds more than its entries need (padding or data past its end, or "
                               "oversized headers); pack the bot's folder again with tar or zip")
        return data

    def drain(self) -> None:
        """Read what follows the tar's last entry, to refuse it if it is too long."""
        while self.read(_CHUNK):
            pass


class _Header(tarfile.TarInfo):
    """A tar header that does not take damage for the end of the archive: tarfile reads a
    bad or missing header after the first as the end, which would unpack a cut-short
    archive as a smaller bot.  Only an all-zero block ends an archive."""

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Self:
        try:
            return super().frombuf(buf, encoding, errors)
        except tarfile.HeaderError as error:
            if buf == bytes(tarfile.BLOCKSIZE):
                raise  # tarfile's EOFHeaderError: the end of the archive
            raise ArchiveError(f"the archive is damaged or cut short ({error})") from None


def _tar_entries(source: _Readable) -> Iterator[_Entry]:
    """The members of a tar, one at a time, as a stream (each read before the next)."""
    stream = _Budgeted(source)
    # tarfile's stream mode only reads its file object (types ask for a whole file's methods)
    with _reading(), tarfile.open(fileobj=stream, mode="r|", tarinfo=_Header) as tar:  # type: ignore[call-overload]
        for member in tar:
            if member.isreg() and not member.issparse():
                stream.allow(_HEADER_BYTES + -(-max(member.size, 0) // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE)
            elif member.isdir():
                stream.allow(_HEADER_BYTES)
            else:
                _refuse_kind(member.name, _tar_kind(member))
            yield _Entry(member.name, member.isdir(), bool(member.mode & 0o111), member.mtime,
                         _chunks(functools.partial(tar.extractfile, member)))
    stream.drain()


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "a symbolic link"
    if member.islnk():
        return "a hard link"
    if member.ischr():
        return "a character device"
    if member.isblk():
        return "a block device"
    if member.isfifo():
        return "a FIFO"
    if member.issparse():
        return "a sparse file"
    return f"an entry of tar type {_shown(member.type.decode('latin-1'))}"


def _zip_entries(data: bytes) -> Iterator[_Entry]:
    """The entries of a zip, in the order of its central directory."""
    with _reading(), zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name, mode = info.filename, info.external_attr >> 16
            if info.flag_bits & 0x41:  # traditional or strong encryption
                raise ArchiveError(f"{_shown(name)}: encrypted; upload the bot's files unencrypted")
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                _refuse_kind(name, _KINDS.get(stat.S_IFMT(mode), f"an entry of file type {stat.S_IFMT(mode):#o}"))
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ArchiveError(f"{_shown(name)}: compressed by method {info.compress_type}; the host reads only "
                                   "stored and deflated entries (what zip tools write unless told otherwise)")
            folder = info.is_dir() or stat.S_ISDIR(mode)
            yield _Entry(name.removesuffix("/") if folder else name, folder, bool(mode & 0o111), _zip_time(info),
                         _chunks(functools.partial(archive.open, info)))


def _zip_time(info: zipfile.ZipInfo) -> float:
    """A zip entry's modification time (local time, as zip tools write it), or 0 if it is no time."""
    try:
        return time.mktime((*info.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return 0


def _chunks(opened: Callable[[], IO[bytes] | None]) -> Iterator[bytes]:
    """The contents of an entry that ``opened`` gives, a chunk at a time."""
    with _reading():
        contents = opened()
        if contents is None:
            return
        with contents:
            while chunk := contents.read(_CHUNK):
                yield chunk


def _refuse_kind(name: str, kind: str) -> NoReturn:
    raise ArchiveError(f"{_shown(name)}: {kind}; a bot's archive may hold only regular files and folders")


class _Tree:
    """The paths an archive has declared so far, each checked as it comes: relative, not
    too deep or long, not declared twice, no file where a folder is, and no more of them,
    or of their bytes, than the limits allow."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.folders: set[tuple[str, ...]] = {()}
        self.declared: set[tuple[str, ...]] = set()
        self.files: set[tuple[str, ...]] = set()
        self.bytes = 0

    def add(self, name: str, *, folder: bool) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
        """The parts of ``name``, and the folders it needs that do not exist yet (its
        parents, and itself if a folder), shortest first."""
        parts = _parts(name, self.limits)
        if not parts and not folder:
            raise ArchiveError(f"{_shown(name)}: a file with no name")
        if parts in (self.folders if not folder else self.files):
            raise ArchiveError(f"{_shown(name)}: both a file and a folder")
        if parts in self.files or parts in self.declared:
            raise ArchiveError(f"{_shown(name)}: two entries for the same path")
        needed = [parts[:n] for n in range(1, len(parts) + (1 if folder else 0)) if parts[:n] not in self.folders]
        if any(parent in self.files for parent in needed):
            raise ArchiveError(f"{_shown(name)}: inside a path that is a file")
        if len(self.folders) - 1 + len(self.files) + len(needed) + (0 if folder else 1) > self.limits.files:
            raise ArchiveError(f"more than {counted(self.limits.files, 'file and folder', 'files and folders')}; "
                               f"a bot may hold at most {self.limits.files}")
        self.folders.update(needed)
        if folder:
            self.declared.add(parts)
        else:
            self.files.add(parts)
        return parts, needed

    def count(self, size: int) -> None:
        """Count ``size`` more bytes of files; ArchiveError past the limit."""
        self.bytes += size
        if self.bytes > self.limits.unpacked_bytes:
            raise ArchiveError(f"the files add up to more than {_size(self.limits.unpacked_bytes)} unpacked; a bot may "
                               f"hold at most {_size(self.limits.unpacked_bytes)}")


def _parts(name: str, limits: ArchiveLimits) -> tuple[str, ...]:
    """The names in the relative path ``name`` (``.`` left out); ArchiveError for a path
    that is not plainly inside the bot's folder, or too deep or long."""
    shown = _shown(name)
    if "\0" in name:
        raise ArchiveError(f"{shown}: a NUL byte in a path")
    if "\\" in name:
        raise ArchiveError(f"{shown}: a backslash in a path (folders are separated by '/')")
    if has_controls(name):
        raise ArchiveError(f"{shown}: a control character in a path")
    try:
        name.encode()
    except UnicodeEncodeError:
        raise ArchiveError(f"{shown}: a path that is not UTF-8") from None
    if name.startswith("/"):
        raise ArchiveError(f"{shown}: an absolute path; paths are relative to the bot's folder")
    parts = tuple(part for part in name.split("/") if part != ".")
    if "" in parts:
        raise ArchiveError(f"{shown}: an empty name in a path ('//' or a '/' at its end)")
    if ".." in parts:
        raise ArchiveError(f"{shown}: '..' in a path, which would lead outside the bot's folder")
    if len(parts) > limits.depth:
        raise ArchiveError(f"{shown}: nested {len(parts)} deep; a path may hold at most {limits.depth} names")
    longest = max((len(part.encode()) for part in parts), default=0)
    if longest > limits.name_bytes:
        raise ArchiveError(f"{shown}: a name of {longest} bytes; a name may be at most {limits.name_bytes}")
    if len("/".join(parts).encode()) > limits.path_bytes:
        raise ArchiveError(f"{shown}: a path of {len('/'.join(parts).encode())} bytes; a path may be at most "
                           f"{limits.path_bytes}")
    return parts


class _Writer:
    """Writes the entries of an archive into a folder, remembering what it made so that a
    refused archive can be taken away whole."""

    def __init__(self, into: Path, limits: ArchiveLimits) -> None:
        self.into = into
        self.tree = _Tree(limits)
        self.made: list[Path] = []
        """What was made directly inside ``into``: all there is to remove."""

    def add(self, entry: _Entry) -> None:
        parts, folders = self.tree.add(entry.name, folder=entry.folder)
        for folder in folders:
            path = self.into.joinpath(*folder)
            os.mkdir(path, 0o755)
            if len(folder) == 1:
                self.made.append(path)
            os.chmod(path, 0o755, follow_symlinks=False)  # whatever the umask
        if entry.folder:
            return
        path = self.into.joinpath(*parts)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        if len(parts) == 1:
            self.made.append(path)
        try:
            for chunk in entry.chunks:
                self.tree.count(len(chunk))
                view = memoryview(chunk)
                while view:
                    view = view[os.write(descriptor, view):]
            os.fchmod(descriptor, 0o755 if entry.executable else 0o644)
            now = time.time()
            mtime = entry.mtime if _YEAR_1980 <= entry.mtime <= now + _DAY else now
            os.utime(descriptor, (mtime, mtime))
        finally:
            os.close(descriptor)

    def discard(self) -> None:
        """Remove all that :meth:`add` made (its folders are all 0o755: nothing to unlock first)."""
        for path in reversed(self.made):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)


def _size(count: int) -> str:
    """``512 bytes``, ``1.5 KB``, ``64 MB``: a size for a message."""
    for unit, scale in (("MB", _MB), ("KB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return counted(count, "byte")


def _shown(name: str) -> str:
    """A name from an archive, quoted and made safe to show on one line."""
    return f"'{_safe(name)}'"


def _safe(text: str) -> str:
    """``text`` from an archive made safe to show on one line: escaped, and shortened."""
    safe = printable(text, lines=False).encode("utf-8", "backslashreplace").decode()
    return safe if len(safe) <= 200 else safe[:200] + "..."
