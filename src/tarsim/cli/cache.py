"""`tarsim cache info|clear`: show or empty the user's feature cache (one per user, shared by every output)."""

from __future__ import annotations

import argparse
import os


def register(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, handler, help_text in (
        ("info", info, "where the feature cache is, its entries, their sizes and collections"),
        ("clear", clear, "remove every file tarsim wrote in the feature cache (any other file is left, and named)"),
    ):
        action = actions.add_parser(name, help=help_text, description=help_text)
        action.add_argument(
            "--cache-dir", metavar="DIR", help="the cache folder (default: $TARSIM_CACHE_DIR, else the user cache dir)"
        )
        action.set_defaults(handler=handler)


def _size(n: float) -> str:
    if n < 1000:
        return f"{int(n)} B"
    for unit in ("kB", "MB", "GB"):
        n /= 1000
        if n < 1000 or unit == "GB":
            break
    return f"{n:.1f} {unit}"


def info(args: argparse.Namespace) -> int:
    from tarsim.features.cache import (
        CACHE_ENTRY_PREFIXES,
        CACHE_ENV,
        CacheError,
        cache_files,
        is_recent_temporary,
        other_files,
        read_cache_meta,
        resolve_cache_dir,
    )
    from tarsim.text.sentences import STORE_PREFIX

    directory = resolve_cache_dir(args.cache_dir)
    files = cache_files(directory)
    origin = "--cache-dir" if args.cache_dir else (f"${CACHE_ENV}" if os.environ.get(CACHE_ENV) else "default")
    print(f"cache: {directory} ({origin})")
    entries = [path for path in files if path.name.startswith(CACHE_ENTRY_PREFIXES)]
    stores = sum(path.name.startswith(STORE_PREFIX) for path in entries)
    temporaries = [path for path in files if path.name.endswith(".tmp")]
    total = sum(path.stat().st_size for path in files)
    features = len(entries) - stores
    print(
        f"{features} feature entr{'y' if features == 1 else 'ies'}, {stores} sentence store(s), "
        f"{len(temporaries)} temporary file(s) of unfinished writes; {len(files)} file(s), {_size(total)}"
    )
    for path in entries:
        try:
            meta = read_cache_meta(path)
            source = meta.get("source") or "<unknown>"
            settings = ",".join(f"{k}={v}" for k, v in sorted(meta.get("settings", {}).items()))
        except CacheError as error:
            source, settings = f"<unreadable: {error.reason}>", ""
        print(f"  {path.name}  {_size(path.stat().st_size):>9}  {source}  {settings}")
    for path in temporaries:
        state = "being written, or left by a killed run" if is_recent_temporary(path) else "left by a killed run"
        print(f"  {path.name}  {_size(path.stat().st_size):>9}  <temporary: {state}>")
    others = other_files(directory)  # a FIFO under an entry's name was left out without a word
    if others:
        shown = "; ".join(f"{path.name} ({reason})" for path, reason in others[:_NAMED])
        more = f"; and {len(others) - _NAMED} more" if len(others) > _NAMED else ""
        print(f"{len(others)} other file(s), not tarsim's (`cache clear` leaves them): {shown}{more}")
    return 0


def clear(args: argparse.Namespace) -> int:
    from tarsim.features.cache import clear_cache, resolve_cache_dir

    directory = resolve_cache_dir(args.cache_dir)
    cleared = clear_cache(directory)
    print(f"removed {cleared.removed} file(s), {_size(cleared.freed)}, from {directory}")
    if cleared.kept:
        names = ", ".join(path.name for path in cleared.kept)
        print(
            f"kept {len(cleared.kept)} temporary file(s) written in the last hour, perhaps by a run still at work: "
            f"{names} (run `tarsim cache clear` again later, or delete them when no tarsim run is active)"
        )
    if cleared.left:
        shown = "; ".join(f"{path.name} ({reason})" for path, reason in cleared.left[:_NAMED])
        more = f"; and {len(cleared.left) - _NAMED} more" if len(cleared.left) > _NAMED else ""
        print(f"left {len(cleared.left)} file(s) tarsim did not write: {shown}{more}")
    return 0


_NAMED = 10
"""`cache clear` names this many of the files it left, then counts the rest."""
