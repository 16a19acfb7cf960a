"""A sweep's docid list in the feature cache, verified: Dask and loky workers map qrels to rows through it.

The file `CACHE/docids-<collection digest>-v2.json` records the cache format, the collection's full digest, the
number of docids and a SHA-256 of the list beside the docids. The sweep checks it against the collection it has
loaded and rewrites it (one warning line) when it differs; a worker checks it against the run's collection digest
and raises a one-line CacheError when it is damaged, so a cache file can never change a run's result.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.errors import ConfigError, InputWarning
from tarsim.features.cache import CacheError, failure_reason

DOCIDS_FORMAT = 2
"""Version of the docid list file (1: a bare JSON list, never verified)."""


class DocidsError(CacheError):
    """A sweep's docid list that cannot be used: unreadable, damaged, or made for another collection."""

    def __init__(self, path: str | Path, reason: str, transient: bool = False) -> None:
        super().__init__(path, reason, transient)
        self.args = (f"{self.path}: unusable docid list ({reason})",)

    def __str__(self) -> str:
        return self.args[0]


def docids_path(cache_dir: Path, collection_sha: str) -> Path:
    """Where a collection's docid list lives in the feature cache."""
    return Path(cache_dir) / f"docids-{collection_sha[:24]}-v{DOCIDS_FORMAT}.json"


def _checksum(docids: Sequence[str]) -> str:
    return hashlib.sha256(json.dumps(list(docids)).encode("ascii")).hexdigest()


def _encode(docids: Sequence[str], collection_sha: str) -> bytes:
    record = {
        "format": DOCIDS_FORMAT,
        "collection": collection_sha,
        "count": len(docids),
        "checksum": _checksum(docids),
        "docids": list(docids),
    }
    return json.dumps(record).encode("ascii")  # ASCII escapes: any docid string round-trips


def read_docids(path: Path, collection_sha: str | None = None) -> list[str]:
    """The docids of a verified list (made for `collection_sha` when given); DocidsError (one line) if damaged."""
    try:
        record = json.loads(Path(path).read_bytes())
    except (OSError, ValueError, RecursionError) as error:  # ValueError: JSON and UTF-8 decoding
        raise DocidsError(path, failure_reason(error)) from None
    if isinstance(record, list):
        raise DocidsError(path, f"format 1 (a bare list), expected {DOCIDS_FORMAT}")
    if not isinstance(record, dict):
        raise DocidsError(path, "not a JSON object")
    if record.get("format") != DOCIDS_FORMAT:
        raise DocidsError(path, f"format {record.get('format')!r}, expected {DOCIDS_FORMAT}")
    docids = record.get("docids")
    if not isinstance(docids, list) or not all(isinstance(d, str) for d in docids):
        raise DocidsError(path, "no list of docids")
    if record.get("count") != len(docids):
        raise DocidsError(path, f"{len(docids)} docids, the file says {record.get('count')!r}")
    if record.get("checksum") != _checksum(docids):
        raise DocidsError(path, "checksum mismatch")
    if collection_sha is not None and record.get("collection") != collection_sha:
        raise DocidsError(path, "made for another collection")
    return docids


def write_docids(cache_dir: Path, docids: Sequence[str], collection_sha: str) -> Path:
    """Make sure the cache holds this collection's verified docid list: a damaged or different one gives one
    warning line and is replaced (a cache entry can make a run faster, never different). Returns its path."""
    path = docids_path(cache_dir, collection_sha)
    expected = list(docids)
    try:
        if read_docids(path, collection_sha) == expected:
            return path
        problem = "does not match the collection"
    except DocidsError as error:
        problem = error.reason if path.exists() else ""  # absent: written now, nothing to say
    if problem:
        warnings.warn(f"cache {path} is unreadable ({problem}): rebuilding", InputWarning, stacklevel=2)
    try:
        with atomic_write(path, "wb") as handle:
            handle.write(_encode(expected, collection_sha))
    except OSError as error:  # named after the folder, not the temporary file that could not be made
        reason = error.strerror or type(error).__name__
        raise ConfigError(
            f"the feature cache {cache_dir} cannot be written ({reason}): a sweep keeps its workers' docid list "
            "there; give a writable --cache-dir"
        ) from None
    return path
