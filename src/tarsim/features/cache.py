"""The feature cache: one checksummed file per collection and settings, read back instead of rebuilt."""

from __future__ import annotations

import contextlib
import json
import os
import re
import struct
import warnings
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from tarsim.data.atomic import atomic_write
from tarsim.data.cache_files import arrays_checksum, cache_write_failure_warned, failure_reason
from tarsim.data.collection import Collection
from tarsim.data.digests import collection_digest
from tarsim.data.regular_files import existing_path_problem, is_regular_file, not_regular_problem, open_regular
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.features.build import build_features, cache_label, with_lazy_sentences
from tarsim.features.matrices import FEATURES_FORMAT, Features, FeatureSettings


class CacheError(InputError):
    """A feature cache file that cannot be used: unreadable, corrupt, or made for other input or settings."""

    def __init__(self, path: str | os.PathLike[str], reason: str, transient: bool = False) -> None:
        self.reason = reason
        self.transient = transient  # reading failed (memory, I/O), not the content: the file may be good
        super().__init__(path, None, f"unusable feature cache ({reason})")

    @classmethod
    def reading(cls, path: str | os.PathLike[str], error: BaseException) -> CacheError:
        """The CacheError of an exception raised while reading `path`."""
        return cls(path, failure_reason(error), transient=isinstance(error, (MemoryError, OSError)))

    def __reduce__(self):  # type: ignore[override]
        return (type(self), (self.path, self.reason, self.transient))  # intact when it crosses from a sweep worker


_CACHE_ARRAYS: dict[str, str] = {
    "documents_data": "float32",
    "documents_indices": "i",
    "documents_indptr": "i",
    "documents_shape": "i",
    "sentences_data": "float32",
    "sentences_indices": "i",
    "sentences_indptr": "i",
    "sentences_shape": "i",
    "sentence_offsets": "i",
    "sentence_words": "i",
    "vocabulary": "U",
    "idf": "float32",
}
"""Every array of a cache file (besides `meta`) and its dtype (or kind: i any integer, U text); all are 1-D."""

_CACHE_READ_ERRORS = (
    OSError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    MemoryError,
    OverflowError,
    zipfile.BadZipFile,
    NotImplementedError,  # a flipped bit in a member header can name an unknown compression method
    RuntimeError,  # ... or set the "encrypted" flag
    zlib.error,
    struct.error,
    ConfigError,
)
"""What reading a damaged .npz can raise (numpy, zipfile and scipy each have their own ways of failing)."""


_META_KEYS = frozenset({"format", "collection", "settings", "arrays", "source"})


def read_cache_meta(path: Path) -> dict:
    """The meta record of a cache file, unverified and without reading its arrays (for `tarsim cache info`)."""
    try:
        with _open_entry(path) as handle, np.load(handle, allow_pickle=False) as stored:
            meta = json.loads(str(stored["meta"][()]))
    except _CACHE_READ_ERRORS as error:
        raise CacheError.reading(path, error) from None
    if not isinstance(meta, dict):
        raise CacheError(path, "no valid meta record")
    return meta


def _open_entry(path: Path):
    """A cache entry opened for reading, when it is a regular file: a FIFO would block the read forever and a device
    such as /dev/zero fill the memory (CacheError naming what it is)."""
    try:
        return open_regular(path)
    except InputError as error:
        raise CacheError(path, error.problem) from None


def _cache_file(cache_dir: Path, digest: str, settings: FeatureSettings, documents_only: bool = False) -> Path:
    part = "-docs" if documents_only else ""
    return Path(cache_dir) / f"features-{digest[:24]}-{settings.digest()}{part}-v{FEATURES_FORMAT}.npz"


CACHE_ENV = "TARSIM_CACHE_DIR"
"""Environment variable that moves the user's feature cache (--cache-dir and cache_dir= take precedence)."""


def default_cache_dir() -> Path:
    """The user's feature cache: $TARSIM_CACHE_DIR, else platformdirs' user cache dir; shared by every output."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return _cache_folder(configured, CACHE_ENV)
    import platformdirs

    return Path(platformdirs.user_cache_dir("tarsim", appauthor=False)) / "features"


def resolve_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """`cache_dir` when given (refused when blank or a file), else the user's feature cache (default_cache_dir)."""
    return default_cache_dir() if cache_dir is None else _cache_folder(cache_dir, "--cache-dir")


def _cache_folder(value: str | os.PathLike[str], option: str) -> Path:
    """A cache folder as given; blank (the current directory, unasked) or an existing file is a ConfigError. A folder
    that cannot be written costs a warning when the cache is written, not the run."""
    raw = os.fspath(value)
    if not raw.strip():
        raise ConfigError(f"{option} is empty: give the cache folder")
    if Path(raw).is_file():
        raise ConfigError(f"{option} {raw}: is a file, expected a folder for the feature cache")
    # the folder itself a FIFO, a device, a loop or a link to nothing: named, not "File exists" or "0 entries" (an
    # unwritable place above it is left to the warning when the cache is written)
    problem = existing_path_problem(raw, "folder") if os.path.lexists(raw) else None
    if problem is not None:
        raise ConfigError(f"{option} {raw}: {problem} (the feature cache must be a folder)")
    return Path(raw)


CACHE_ENTRY_PREFIXES = ("features-", "tfidf-", "sentences-")
"""The names of cache entries start so: tarsim.features' (bmi), tarsim.features.tfidf's and the sentence stores of
document-only entries (tarsim.text.sentences)."""

CACHE_FILE_PATTERNS = (
    *(f"{prefix}*.npz" for prefix in CACHE_ENTRY_PREFIXES),
    "docids-*.json",
    *(f".{prefix}*.tmp" for prefix in CACHE_ENTRY_PREFIXES),
    ".docids-*.tmp",
)
"""Every file tarsim writes in a cache folder (entries, sweep docid lists, temporaries of killed writers)."""

STALE_TEMPORARY_SECONDS = 3600
"""clear_cache leaves younger temporaries alone: they may belong to a writer that is still running."""


def cache_files(cache_dir: Path) -> list[Path]:
    """tarsim's files in a cache folder, sorted by name ([] when the folder does not exist): those `cache clear`
    removes (not_written_by_tarsim), so that `cache info` counts a foreign `features-zzzz.npz` among the others."""
    directory = Path(cache_dir)
    if not directory.is_dir():
        return []
    candidates = {p for pattern in CACHE_FILE_PATTERNS for p in directory.glob(pattern) if p.is_file()}
    return sorted(p for p in candidates if not_written_by_tarsim(p) is None)


_ENTRY_NAME = re.compile(r"(?:features|tfidf|sentences)-[0-9a-f]{24}-[0-9a-f]{16}(?:-docs)?-v[0-9]+\.npz")
"""The exact names of cache entries (tarsim.features, tarsim.features.tfidf, tarsim.text.sentences' stores)."""
_DOCIDS_NAME = re.compile(r"docids-[0-9a-f]{24}-v[0-9]+\.json")
"""The exact names of a sweep's docid lists (tarsim.sweep.docids)."""
_TEMPORARY_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]+\.tmp")
"""tarsim.data.atomic.atomic_write's temporary files: `.TARGET.RANDOM.tmp`."""
_ZIP_LOCAL_HEADER = struct.Struct("<4s22xHH")
"""A zip member's local header: signature, then (past version, flags, method, time, date, CRC and sizes) the
lengths of its name and extra field; the name follows."""


def _npz_starts_with_meta(head: bytes) -> bool:
    """Whether bytes start an .npz as tarsim writes it: a zip whose first member is `meta.npy`."""
    if len(head) < _ZIP_LOCAL_HEADER.size:
        return False
    signature, name_length, _ = _ZIP_LOCAL_HEADER.unpack_from(head)
    start = _ZIP_LOCAL_HEADER.size
    return signature == b"PK\x03\x04" and head[start : start + name_length] == b"meta.npy"


def not_written_by_tarsim(path: Path) -> str | None:
    """None when `path` is a file tarsim writes in a cache folder, else why it is not (in words): an entry or a docid
    list by its exact name and the start of its content (an .npz whose first member is `meta.npy`, a JSON record
    starting with `format`); a temporary file of a writer of one by its exact name (a killed writer's may be cut
    anywhere). A symlink, FIFO or device never is: tarsim writes regular files only."""
    temporary = _TEMPORARY_NAME.fullmatch(path.name)
    name = temporary.group("target") if temporary else path.name
    if _ENTRY_NAME.fullmatch(name):
        valid = _npz_starts_with_meta
    elif _DOCIDS_NAME.fullmatch(name):
        valid = lambda head: head.startswith(b'{"format": ')  # noqa: E731 - json.dumps of the docid record
    else:
        return "not a name tarsim gives a cache file"
    if path.is_symlink():
        return f"a symlink to {os.path.realpath(path)}; tarsim writes no symlink"
    try:
        with open_regular(path) as handle:
            head = handle.read(64)
    except InputError as error:
        return error.problem
    if temporary is not None:  # a killed writer's, cut anywhere: its name, exact to the target's, says whose
        return None
    return None if valid(head) else "its content is not what tarsim writes under this name"


def other_files(cache_dir: Path) -> list[tuple[Path, str]]:
    """The files of a cache folder that cache_files leaves out, each with why (not_written_by_tarsim): a FIFO, a
    device or a symlink under an entry's name, anyone else's file; what `cache clear` would leave. Never read
    blocking (a FIFO is looked at with stat only)."""
    directory = Path(cache_dir)
    ours = set(cache_files(directory))
    found = []
    for path in sorted(directory.iterdir()) if directory.is_dir() else []:
        if path not in ours:
            reason = not_written_by_tarsim(path)
            found.append((path, reason or "not a regular file"))
    return found


class ClearedCache(tuple):
    """What clear_cache did: (files removed, bytes freed, temporary files kept as perhaps still being written,
    files left because tarsim did not write them, each with why)."""

    removed: int
    freed: int
    kept: list[Path]
    left: list[tuple[Path, str]]

    def __new__(cls, removed: int, freed: int, kept: list[Path], left: list[tuple[Path, str]]) -> ClearedCache:
        self = super().__new__(cls, (removed, freed, kept, left))
        self.removed, self.freed, self.kept, self.left = removed, freed, kept, left
        return self


def clear_cache(cache_dir: Path) -> ClearedCache:
    """Remove the files tarsim wrote in a cache folder (exact name and content start: not_written_by_tarsim), never
    another: a file named like an entry that is not one, a symlink, a FIFO is left and named in `left`. Temporary
    files written in the last hour are kept: a run may still be writing them."""
    directory = Path(cache_dir)
    removed, freed, kept, left = 0, 0, [], []
    for path in sorted(directory.iterdir()) if directory.is_dir() else []:
        reason = not_written_by_tarsim(path)
        if reason is not None:
            left.append((path, reason))
            continue
        try:
            size = path.stat().st_size
            if is_recent_temporary(path):
                kept.append(path)
                continue
            path.unlink()
        except FileNotFoundError:  # removed meanwhile by another process
            continue
        removed, freed = removed + 1, freed + size
    return ClearedCache(removed, freed, kept, left)


def is_recent_temporary(path: Path) -> bool:
    """A cache writer's temporary file younger than STALE_TEMPORARY_SECONDS: a run may still be writing it."""
    import time

    return path.name.endswith(".tmp") and time.time() - path.stat().st_mtime <= STALE_TEMPORARY_SECONDS


def cache_path(
    cache_dir: Path, collection: Collection, settings: FeatureSettings, documents_only: bool = False
) -> Path:
    """Where the features of this collection under these settings are cached (one file in `cache_dir`; another
    for document-only features, which document-level reviews build when there is no whole entry)."""
    return _cache_file(cache_dir, collection_digest(collection), settings, documents_only)


def feature_arrays(features: Features) -> dict[str, np.ndarray]:
    """The arrays a cache entry stores: both CSR matrices in parts, sentence offsets and words, vocabulary, idf."""
    arrays: dict[str, np.ndarray] = {}
    for name in ("documents", "sentences"):
        matrix: sp.csr_matrix = getattr(features, name)
        if matrix is None:  # documents only: no sentence row (offsets [0] mark the entry as such)
            matrix = sp.csr_matrix((0, len(features.vocabulary)), dtype=features.documents.dtype)
        arrays[f"{name}_data"] = matrix.data
        arrays[f"{name}_indices"] = matrix.indices
        arrays[f"{name}_indptr"] = matrix.indptr
        arrays[f"{name}_shape"] = np.array(matrix.shape, dtype=np.int64)
    only = not features.has_all_sentences
    arrays["sentence_offsets"] = np.zeros(1, dtype=np.int64) if only else features.sentence_offsets
    arrays["sentence_words"] = np.zeros(0, dtype=np.int32) if only else features.sentence_words
    arrays["vocabulary"] = np.array(features.vocabulary, dtype=str)
    arrays["idf"] = features.idf
    return arrays


def is_documents_only(arrays: dict[str, np.ndarray], n_documents: int) -> bool:
    """Whether cached arrays hold documents only: feature_arrays marks them with sentence offsets [0]."""
    return len(arrays["sentence_offsets"]) == 1 and n_documents > 0


def save_features(path: Path, features: Features, collection_sha: str = "", source: str = "") -> None:
    """Write features to one .npz file with a checksum of its arrays, the settings and the collection digest.

    `source` (where the collection was read from) is only shown by `tarsim cache info`.

    Written atomically under a unique temporary name, so two processes writing the same entry leave one
    complete file and a reader never sees a partial one.
    """
    arrays = feature_arrays(features)
    meta = {
        "format": FEATURES_FORMAT,
        "collection": collection_sha,
        "settings": asdict(features.settings),
        "arrays": arrays_checksum(arrays),
        "source": source,
    }
    with atomic_write(path, "wb") as handle:
        np.savez(handle, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)


def _read_cache(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta record and the arrays of a cache file, every CRC checked; CacheError when damaged, or when it is no
    regular file (never read)."""
    with _open_entry(path) as handle:
        with zipfile.ZipFile(handle) as archive:
            damaged = archive.testzip()  # reads every member: a flipped bit fails here, before numpy parses headers
            if damaged is not None:
                raise CacheError(path, f"bad CRC-32 for {damaged}")
            names = {name.removesuffix(".npy") for name in archive.namelist()}
        if names != {*_CACHE_ARRAYS, "meta"}:
            missing = sorted({*_CACHE_ARRAYS, "meta"} - names)
            raise CacheError(path, f"missing {', '.join(missing)}" if missing else "unexpected arrays")
        handle.seek(0)
        with np.load(handle, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in _CACHE_ARRAYS}
            meta = json.loads(str(stored["meta"][()]))
    for name, kind in _CACHE_ARRAYS.items():  # so that the checks below and scipy cannot be fed odd types
        dtype = arrays[name].dtype
        if arrays[name].ndim != 1 or (dtype.kind if len(kind) == 1 else dtype.name) != kind:
            raise CacheError(path, f"{name} has dtype {arrays[name].dtype} and shape {arrays[name].shape}")
    if not isinstance(meta, dict) or set(meta) != _META_KEYS:
        raise CacheError(path, "no valid meta record")
    return meta, arrays


def _features_from_arrays(path: Path, arrays: dict[str, np.ndarray], settings: FeatureSettings) -> Features:
    """Features from verified arrays, after checking that their shapes fit together."""

    def matrix(name: str) -> sp.csr_matrix:
        shape = tuple(int(n) for n in arrays[f"{name}_shape"])
        result = sp.csr_matrix(
            (arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]), shape=shape
        )
        result.check_format(full_check=True)
        return result

    documents, sentences = matrix("documents"), matrix("sentences")
    offsets, words = arrays["sentence_offsets"], arrays["sentence_words"]
    n_terms = len(arrays["vocabulary"])
    if documents.shape[1] != n_terms or sentences.shape[1] != n_terms or len(arrays["idf"]) != n_terms:
        raise CacheError(path, "matrices, vocabulary and idf disagree on the number of terms")
    only = is_documents_only(arrays, documents.shape[0])
    if not only and (len(offsets) != documents.shape[0] + 1 or offsets[0] != 0):
        raise CacheError(path, "sentence offsets do not fit the matrices")
    if offsets[0] != 0 or offsets[-1] != sentences.shape[0]:
        raise CacheError(path, "sentence offsets do not fit the matrices")
    if (np.diff(offsets) < 0).any() or len(words) != sentences.shape[0]:
        raise CacheError(path, "sentence offsets or word counts do not fit the matrices")
    return Features(
        documents=documents,
        sentences=None if only else sentences,
        sentence_offsets=None if only else offsets,
        sentence_words=None if only else words,
        vocabulary=tuple(arrays["vocabulary"].tolist()),
        idf=arrays["idf"],
        settings=settings,
    )


def load_features(
    path: Path,
    *,
    collection_sha: str | None = None,
    settings: FeatureSettings | None = None,
    n_documents: int | None = None,
) -> Features:
    """Read features written by save_features, verified: CacheError (one line, the reason) on any damage.

    The arrays must match their stored checksum; with `collection_sha`, `settings` or `n_documents` the file must
    also have been made for that collection, those settings and that many documents.
    """
    path = Path(path)
    try:
        meta, arrays = _read_cache(path)
        if meta["format"] != FEATURES_FORMAT:
            raise CacheError(path, f"format {meta['format']!r}, expected {FEATURES_FORMAT}")
        if arrays_checksum(arrays) != meta["arrays"]:
            raise CacheError(path, "checksum mismatch")
        stored_settings = FeatureSettings(**meta["settings"])
        if settings is not None and stored_settings != settings:
            raise CacheError(path, "made with other feature settings")
        if collection_sha is not None and meta["collection"] != collection_sha:
            raise CacheError(path, "made for another collection")
        features = _features_from_arrays(path, arrays, stored_settings)
    except CacheError:
        raise
    except _CACHE_READ_ERRORS as error:
        raise CacheError.reading(path, error) from None
    if n_documents is not None and features.n_documents != n_documents:
        raise CacheError(path, f"{features.n_documents} documents, the collection has {n_documents}")
    return features


def cached_features(
    collection: Collection,
    cache_dir: Path | None,
    settings: FeatureSettings | None = None,
    sentences: bool = True,
    segment_ahead: bool = False,
) -> Features:
    """Features from the on-disk cache when present and verified, else built and cached (no cache for None).

    With `sentences=False` (a review that reads only the sentences of what it judges) an entry with every
    sentence is used when there is one, else a document-only entry, built without segmenting; the sentences its
    reviews segment are kept in a store beside it (tarsim.text.sentences). A cache entry that is unreadable, corrupt
    or made for other input gives one InputWarning and is rebuilt, so the cache never changes a result.
    """
    settings = settings or FeatureSettings()
    source = cache_label(collection)
    return cached_entry(
        collection,
        cache_dir,
        sentences,
        entry=lambda directory, digest, only: _cache_file(directory, digest, settings, only),
        load=lambda path, digest: load_features(
            path, collection_sha=digest, settings=settings, n_documents=len(collection)
        ),
        build=lambda: build_features(collection, settings, sentences=sentences, segment_ahead=segment_ahead),
        save=lambda path, features, digest: save_features(path, features, collection_sha=digest, source=source),
    )


def cached_entry(
    collection: Collection,
    cache_dir: Path | None,
    sentences: bool,
    *,
    entry: Callable[[Path, str, bool], Path],
    load: Callable[[Path, str], Features],
    build: Callable[[], Features],
    save: Callable[[Path, Features, str], None],
) -> Features:
    """Load-or-build for every feature extractor's cache: `entry(dir, digest, documents_only)` names the file,
    `load(path, digest)` reads it verified (CacheError when unusable), `build()` and `save(path, features, digest)`
    make it. A review that needs every sentence takes only a whole entry; one that does not takes a whole entry,
    else a document-only one (segmenting lazily into a sentence store beside it)."""
    if cache_dir is None:
        return build()
    directory, digest = Path(cache_dir), collection_digest(collection)
    full, documents_only = entry(directory, digest, False), entry(directory, digest, True)
    damaged: list[CacheError] = []
    for path in (full,) if sentences else (full, documents_only):
        if not path.exists() and not path.is_symlink():
            continue
        if not is_regular_file(path):  # a FIFO would block every reader, /dev/zero fill the memory: never read
            damaged.append(CacheError(path, _not_regular(path)))
            continue
        try:
            features = load(path, digest)
        except CacheError as error:
            damaged.append(error)
            continue
        _warn_damaged(damaged, rebuilding=False)  # a damaged whole entry beside a good document-only one
        return _with_store(features, collection, directory, digest)
    _warn_damaged(damaged, rebuilding=True)
    features = build()
    path = full if features.has_all_sentences else documents_only
    with cache_write_failure_warned(path):
        save(path, features, digest)
    if not path.exists():  # the cache folder is unwritable (warned once): no sentence store either
        return features
    return _with_store(features, collection, directory, digest)


def _not_regular(path: Path) -> str:
    """What a cache path that is no regular file is, in words (a dangling symlink, a FIFO, a device)."""
    try:
        return not_regular_problem(path, os.stat(path).st_mode)
    except OSError as error:
        return f"a symlink that cannot be followed ({error.strerror})"


def _warn_damaged(damaged: list[CacheError], rebuilding: bool) -> None:
    """One warning line per unreadable entry. A damaged one is deleted: it can never serve, and left in place it would
    be reported again by every run that falls back past it; one that failed to read (memory, I/O) is kept."""
    for error in damaged:
        if not error.transient:
            with contextlib.suppress(OSError):
                Path(error.path).unlink()
        outcome = "rebuilding" if rebuilding else "not used" if error.transient else "removed"
        warnings.warn(f"cache {error.path} is unreadable ({error.reason}): {outcome}", InputWarning, stacklevel=4)


def sentence_store_path(cache_dir: Path, collection_sha: str, settings_digest: str) -> Path:
    """The sentence store of a document-only entry (tarsim.text.sentences.store_path)."""
    from tarsim.text.sentences import store_path

    return store_path(cache_dir, collection_sha, settings_digest)


def _with_store(features: Features, collection: Collection, cache_dir: Path, digest: str) -> Features:
    """Document-only features segment lazily, keeping what they segment in the cache's sentence store."""
    if features.has_all_sentences:
        return features
    store = sentence_store_path(cache_dir, digest, features.settings.digest())
    if (store.exists() or store.is_symlink()) and not is_regular_file(store):  # never read (a FIFO would block)
        _warn_damaged([CacheError(store, _not_regular(store))], rebuilding=True)
    if features.lazy is not None:  # just built: keep its segmenting (perhaps begun in the background)
        features.lazy.keep_in(store, digest)
        return features
    return with_lazy_sentences(features, collection, store, digest)
