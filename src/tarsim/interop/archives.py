"""Zip and tar archives read within limits, every error one line naming the archive (and the member).

Before any member is read, the members' declared sizes must add up to no more than the decompression cap
(tarsim.data.limits; zipfile and tarfile never read a member past its declared size), no two members may share a
name, and every zip member must be readable: not encrypted, and compressed with a method Python's zipfile reads
(stored, Deflate, bzip2, LZMA; not Deflate64, which Windows' Explorer writes for large files). A member whose bytes
do not match its CRC is told apart from a file that is not a zip archive at all.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from tarsim.data.limits import check_total
from tarsim.errors import InputError

READABLE_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "Deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "LZMA",
}
METHOD_NAMES = {9: "Deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard", 95: "XZ", 98: "PPMd", 99: "AES-encrypted"}
ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
)
"""What zipfile, tarfile and their decompressors raise for a damaged archive (EOFError: a truncated gzip stream)."""


DAMAGED_ZIP = "damaged or truncated zip archive: its central directory (at the end of the file) is missing"
"""What zipfile cannot open in a file that starts as a zip archive: it was cut short (a download stopped)."""
_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


def starts_as_zip(handle: IO[bytes]) -> bool:
    """Whether an open file starts with a zip archive's signature (its first member, or an empty archive's end)."""
    handle.seek(0)
    return handle.read(4) in _ZIP_STARTS


def open_zip(path: str | os.PathLike[str], handle: IO[bytes], not_zip: str = "not a zip archive") -> zipfile.ZipFile:
    """The zip archive in an open regular file, its members checked (see the module docstring); a file that is no
    zip archive is refused with the problem `not_zip`."""
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise InputError(path, None, DAMAGED_ZIP if starts_as_zip(handle) else not_zip) from None
    try:
        for info in archive.infolist():
            if info.flag_bits & 0x1:
                problem = f"zip member {info.filename!r} is encrypted; tarsim reads no encrypted zip"
                raise InputError(path, None, problem)
            if info.compress_type not in READABLE_METHODS:
                method = METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
                raise InputError(
                    path,
                    None,
                    f"zip member {info.filename!r} is compressed with {method}, which tarsim cannot read; zip it again "
                    f"with one of {', '.join(READABLE_METHODS.values())}",
                )
        check_unique_names(path, [info.filename for info in archive.infolist()])
        check_total(path, "the zip archive", sum(info.file_size for info in archive.infolist()), _size(handle))
    except BaseException:
        archive.close()
        raise
    return archive


def check_unique_names(path: str | os.PathLike[str], names: list[str]) -> None:
    """Refuse an archive holding two members of one name: only one of them can be read by name (zipfile reads the
    last), and reading both gave one docid twice, reported as a duplicate read at the same place."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(path, None, f"the archive holds two members named {name!r}")
        seen.add(name)


def read_zip_member(path: str | os.PathLike[str], archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; a damaged member (bad CRC, a cut stream) is one line naming the archive and the member."""
    try:
        return archive.read(name)
    except ARCHIVE_ERRORS as exc:
        raise InputError(path, None, f"damaged zip archive: member {name!r}: {_said(exc)}") from None


def copy_zip_member(path: str | os.PathLike[str], archive: zipfile.ZipFile, name: str, target: Path) -> Path:
    """Copy a member to the file `target` (streamed); a damaged member is one line as in read_zip_member."""
    try:
        with archive.open(name) as source, open(target, "wb") as copy:
            shutil.copyfileobj(source, copy)
    except ARCHIVE_ERRORS as exc:
        raise InputError(path, None, f"damaged zip archive: member {name!r}: {_said(exc)}") from None
    return target


def tar_members(
    path: str | os.PathLike[str], handle: IO[bytes], wanted: Callable[[str], bool] = lambda _name: True
) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every regular-file member of a tar archive (plain, gzip, bzip2 or xz) whose name is
    `wanted`, in name order; a truncated or damaged archive is one line naming the file, and so is a wanted member
    that is neither a regular file nor a folder (a FIFO, a device, a link: left out, it would drop a record without
    a word)."""
    try:
        with tarfile.open(fileobj=handle) as archive:
            members = sorted(
                (m for m in archive.getmembers() if wanted(m.name) and not m.isdir()), key=lambda m: m.name
            )
            check_unique_names(path, [member.name for member in members])
            for member in members:
                if not member.isfile():
                    problem = f"member {member.name!r} is {_member_kind(member)}, not a regular file"
                    raise InputError(path, None, f"{problem}: tarsim reads regular files only")
            check_total(path, "the tar archive", sum(member.size for member in members), _size(handle))
            for member in members:
                extracted = archive.extractfile(member)
                if extracted is not None:
                    yield member.name, extracted.read()
    except InputError:
        raise
    except ARCHIVE_ERRORS as exc:
        raise InputError(path, None, f"damaged or truncated tar archive: {_said(exc)}") from None


def _member_kind(member: tarfile.TarInfo) -> str:
    if member.isfifo():
        return "a FIFO (named pipe)"
    if member.ischr() or member.isblk():
        return "a device"
    if member.issym():
        return f"a symbolic link to {member.linkname!r}"
    if member.islnk():
        return f"a hard link to {member.linkname!r}"
    return "of an unknown kind"


def is_tar(handle: IO[bytes]) -> bool:
    """Whether an open file is a tar archive (plain or compressed); the file is rewound."""
    handle.seek(0)
    try:
        return tarfile.is_tarfile(handle)  # type: ignore[arg-type]
    except ARCHIVE_ERRORS:
        return False
    finally:
        handle.seek(0)


def _size(handle: IO[bytes]) -> int:
    return os.fstat(handle.fileno()).st_size


def _said(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, EOFError):
        return f"the file ends too early ({text or 'truncated'})"
    return text or type(exc).__name__
