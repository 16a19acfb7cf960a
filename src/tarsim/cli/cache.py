"""`tarsim cache info|clear`: show or empty the user's feature cache (one per user, shared by every output)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ENTRY_PATTERNS = ("features-*.npz", "docids-*.json", ".features-*.tmp", ".docids-*.tmp")
"""Every file tarsim writes in a cache folder (entries, sweep docid lists, temporaries of killed writers)."""

STALE_TEMPORARY_SECONDS = 3600
"""`clear` leaves younger temporaries alone: they may belong to a writer that is still running."""


def register(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in (
        ("info", "where the feature cache is, its entries, their sizes and collections"),
        ("clear", "remove every entry of the feature cache (other files in the folder are left alone)"),
    ):
        action = actions.add_parser(name, help=help_text, description=help_text)
        action.add_argument(
            "--cache-dir", metavar="DIR", help="the cache folder (default: $TARSIM_CACHE_DIR, else the user cache dir)"
        )
        action.set_defaults(handler=info if name == "info" else clear)


def cache_files(directory: Path) -> list[Path]:
    """tarsim's files in a cache folder, sorted by name ([] when the folder does not exist)."""
    if not directory.is_dir():
        return []
    return sorted({path for pattern in ENTRY_PATTERNS for path in directory.glob(pattern) if path.is_file()})


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"  # pragma: no cover


def info(args: argparse.Namespace) -> int:
    from tarsim.features import CACHE_ENV, CacheError, read_cache_meta, resolve_cache_dir

    directory = resolve_cache_dir(args.cache_dir)
    files = cache_files(directory)
    origin = "--cache-dir" if args.cache_dir else (f"${CACHE_ENV}" if os.environ.get(CACHE_ENV) else "default")
    print(f"cache: {directory} ({origin})")
    entries = [path for path in files if path.name.startswith("features-")]
    total = sum(path.stat().st_size for path in files)
    print(f"{len(entries)} feature entr{'y' if len(entries) == 1 else 'ies'}, {len(files)} file(s), {_size(total)}")
    for path in entries:
        try:
            meta = read_cache_meta(path)
            source = meta.get("source") or "<unknown>"
            settings = ",".join(f"{k}={v}" for k, v in sorted(meta.get("settings", {}).items()))
        except CacheError as error:
            source, settings = f"<unreadable: {error.reason}>", ""
        print(f"  {path.name}  {_size(path.stat().st_size):>9}  {source}  {settings}")
    return 0


def clear(args: argparse.Namespace) -> int:
    from tarsim.features import resolve_cache_dir

    directory = resolve_cache_dir(args.cache_dir)
    now = time.time()
    files = [
        path
        for path in cache_files(directory)
        if not path.name.endswith(".tmp") or now - path.stat().st_mtime > STALE_TEMPORARY_SECONDS
    ]
    freed = 0
    for path in files:
        try:
            freed += path.stat().st_size
            path.unlink()
        except FileNotFoundError:  # removed meanwhile by another process
            pass
    print(f"removed {len(files)} file(s), {_size(freed)}, from {directory}")
    return 0
