"""Checks of output paths given on the command line, made before any work so that a bad one costs nothing."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from tarsim.data.atomic import not_replaceable
from tarsim.data.regular_files import file_kind
from tarsim.errors import ConfigError

SWEEP_RESULT_TABLES = ("results.csv", "results.parquet")
"""What `tarsim sweep` writes beside OUT/ledgers once every run is done (tarsim.sweep.tables.write_results): what
marks a sweep's output folder, and a finished one."""


def check_output_path(text: str | os.PathLike[str], option: str = "--out", *, directory: bool = False) -> Path:
    """The path to write `option` to, or a ConfigError naming the option, the value and what it must be.

    Refused: an empty (or blank) value, which would write into the current directory under a hidden temporary
    name; for a file, an existing directory, a path whose parent is a file, or a parent folder that does not
    exist (most likely a typo: an output file's folder is never created); for a directory, an existing file (a
    missing output folder is created, with its parents, when written). Nothing is created here.
    """
    raw = os.fspath(text)
    if not raw.strip():
        kind = "folder" if directory else "file"
        raise ConfigError(f"{option} is empty: give the {kind} to write")
    if not raw.isprintable():  # a newline or tab in a name breaks every line-based listing and script that names it
        shown = next(f"U+{ord(c):04X}" for c in raw if not c.isprintable())
        raise ConfigError(f"{option} {raw!r}: holds {shown}, a control or line-separator character; name it plainly")
    path = Path(raw)
    problem = symlink_problem(path, include_path=directory)
    if problem is not None:
        raise ConfigError(f"{option} {raw}: {problem}")
    if directory:
        if path.exists() and not path.is_dir():
            mode = os.stat(path).st_mode
            what = "a file" if stat.S_ISREG(mode) else file_kind(mode)  # a FIFO is no file to the user
            what = f"a symlink to {os.path.realpath(path)}, {what}" if path.is_symlink() else what
            raise ConfigError(f"{option} {raw}: is {what}, expected a folder to write into")
    elif path.is_dir():
        raise ConfigError(f"{option} {raw}: is a folder, expected a file name to write (e.g. {path / 'out'})")
    elif (problem := not_replaceable(path)) is not None:  # a device or a FIFO: before any work
        raise ConfigError(f"{option} {raw}: {problem}")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise ConfigError(f"{option} {raw}: {parent} is a file, not a folder")
    if not directory and not os.path.isdir(os.path.abspath(path.parent)):
        raise ConfigError(f"{option} {raw}: folder {path.parent} does not exist (create it first)")
    return path


def symlink_problem(path: Path, include_path: bool = True) -> str | None:
    """A symlink on the way to `path` (and `path` itself with `include_path`) that cannot be followed, named: a loop
    (mkdir said only "File exists", and an output file's folder was called missing) or a link to nothing; None when
    every symlink on the way leads somewhere. An output file itself may be either: it is replaced when written."""
    parts = (*reversed(path.parents), path) if include_path else tuple(reversed(path.parents))
    for part in parts:
        if not part.is_symlink():
            continue
        try:
            os.stat(part)
        except OSError as error:
            if error.errno == errno.ELOOP:
                return f"{part} is a symlink loop (it leads back to itself)"
            if error.errno == errno.ENOENT:
                return f"{part} is a symlink to {os.readlink(part)}, which does not exist"
            return f"{part}: {error.strerror}"
    return None


def missing_folders(path: Path) -> list[Path]:
    """`path` and those of its ancestors that do not exist yet, deepest first (what a mkdir(parents=True) creates)."""
    # judged by the normalised path: in `x/../y` (x missing) mkdir makes x, while y may be the user's own folder
    return [folder for folder in (path, *path.parents) if not os.path.exists(os.path.abspath(folder))]


def remove_if_empty(folders: list[Path]) -> None:
    """Remove these folders, deepest first, with the empty folders inside them; any folder holding a file stays."""
    if not folders:
        return
    top = min(folders, key=lambda folder: len(folder.parts))
    inside = [path for path in top.rglob("*") if path.is_dir()] if top.is_dir() else []
    for folder in sorted({*inside, *folders}, key=lambda folder: len(folder.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or gone): kept
            folder.rmdir()
