"""BMI-style tf-idf features for documents and their sentences in one vocabulary (scipy.sparse CSR float32).

Follows the HiCAL/BMI engine: alphabetic tokens of at least 2 letters, lower-cased and Porter-stemmed;
terms in fewer than 2 documents dropped; weight (1 + ln tf) * ln(N / df) with N and df counted over
documents; every row L2-normalised. A document's term counts are the sum of its sentences' counts, so
the text is tokenised once; sentences are weighted with the collection's (document) idf.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from joblib import delayed
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import normalize

from tarsim.data.atomic import atomic_write
from tarsim.data.collection import Collection, Document
from tarsim.errors import ConfigError
from tarsim.processes import exit_with_parent, local_parallel
from tarsim.segmentation import segment_document

FEATURES_FORMAT = 1
"""Bumped whenever the feature computation changes, so that stale caches are not reused."""

_TOKEN = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class FeatureSettings:
    """How text becomes features; part of the cache key and of every ledger's configuration."""

    stem: bool = True
    min_df: int = 2
    sublinear_tf: bool = True

    def __post_init__(self) -> None:
        for name in ("stem", "sublinear_tf"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"feature setting {name} must be true or false, got {getattr(self, name)!r}")
        if isinstance(self.min_df, bool) or not isinstance(self.min_df, int) or self.min_df < 1:
            raise ConfigError(f"feature setting min_df must be an integer >= 1, got {self.min_df!r}")

    def digest(self) -> str:
        """A short stable digest of the settings."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Features:
    """Document and sentence matrices over one vocabulary, plus what is needed to vectorise a query."""

    documents: sp.csr_matrix  # n_docs x V, float32, rows L2-normalised
    sentences: sp.csr_matrix  # n_sentences x V, float32, rows L2-normalised
    sentence_offsets: np.ndarray  # n_docs + 1: sentences of doc i are rows offsets[i]:offsets[i+1]
    sentence_words: np.ndarray  # words (tokens of any kind) per sentence, for the reading-time model
    vocabulary: tuple[str, ...]
    idf: np.ndarray  # float32, length V
    settings: FeatureSettings

    @property
    def n_documents(self) -> int:
        return self.documents.shape[0]

    def sentences_of(self, doc: int) -> range:
        """Row indexes in `sentences` of document `doc`."""
        return range(int(self.sentence_offsets[doc]), int(self.sentence_offsets[doc + 1]))

    def vectorise(self, text: str) -> sp.csr_matrix:
        """A 1 x V tf-idf row for arbitrary text (the synthetic seed document of a topic query)."""
        analyse = make_analyser(self.settings.stem)
        index = {term: i for i, term in enumerate(self.vocabulary)}
        counts: dict[int, int] = {}
        for token in analyse(text):
            column = index.get(token)
            if column is not None:
                counts[column] = counts.get(column, 0) + 1
        columns = np.array(sorted(counts), dtype=np.int32)
        tf = np.array([counts[c] for c in columns], dtype=np.float32)
        row = sp.csr_matrix(
            (tf, columns, np.array([0, len(columns)])), shape=(1, len(self.vocabulary)), dtype=np.float32
        )
        return _weight(row, self.idf, self.settings)


@lru_cache(maxsize=4)
def make_analyser(stem: bool) -> Callable[[str], list[str]]:
    """Tokeniser: alphabetic runs of >= 2 letters, lower-cased, optionally Porter-stemmed (cached stems)."""
    if not stem:
        return lambda text: _TOKEN.findall(text.lower())
    import Stemmer

    stemmer = Stemmer.Stemmer("porter")
    cache: dict[str, str] = {}

    def analyse(text: str) -> list[str]:
        tokens = _TOKEN.findall(text.lower())
        unknown = [t for t in set(tokens) if t not in cache]
        if unknown:
            cache.update(zip(unknown, stemmer.stemWords(unknown), strict=True))
        return [cache[t] for t in tokens]

    return analyse


def _weight(counts: sp.csr_matrix, idf: np.ndarray, settings: FeatureSettings) -> sp.csr_matrix:
    weighted = counts.astype(np.float32, copy=True)
    if settings.sublinear_tf:
        np.log(weighted.data, out=weighted.data)
        weighted.data += 1.0
    weighted.data *= idf[weighted.indices]  # in place: a broadcast multiply() would build an int64 COO copy
    weighted.eliminate_zeros()
    return normalize(weighted, norm="l2", copy=False).astype(np.float32, copy=False)


def collection_digest(collection: Collection) -> str:
    """SHA-256 over docids and text, in order: the cache key part that identifies the input."""
    digest = hashlib.sha256()
    for document in collection:
        digest.update(document.docid.encode())
        digest.update(b"\x00")
        digest.update(document.title.encode())
        digest.update(b"\x00")
        digest.update(document.text.encode())
        if document.sentences is not None:
            digest.update(b"\x01" + "\x00".join(document.sentences).encode())
        digest.update(b"\x02")
    return digest.hexdigest()


PARALLEL_SEGMENTATION_MIN_DOCUMENTS = 5000
"""Below this size starting fresh worker processes (joblib's loky) costs more than segmenting in this one."""

FORKED_PARALLEL_MIN_DOCUMENTS = 200
"""The same for workers forked from this process, which start in milliseconds with everything imported."""


MIN_CHUNK_DOCUMENTS = 50
"""Smaller chunks cost more in inter-process traffic than they save."""


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports one, else os.cpu_count())."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _chunks(collection: Collection, n_jobs: int | None) -> list[Sequence[Document]]:
    """The collection as contiguous chunks: one when small or n_jobs is 1, else about 4 per worker."""
    n_jobs = n_jobs if n_jobs is not None else available_cores()
    documents = list(collection)
    threshold = FORKED_PARALLEL_MIN_DOCUMENTS if _can_fork() else PARALLEL_SEGMENTATION_MIN_DOCUMENTS
    if n_jobs <= 1 or len(documents) < threshold:
        return [documents]
    size = max(-(-len(documents) // (4 * n_jobs)), MIN_CHUNK_DOCUMENTS)
    return [documents[start : start + size] for start in range(0, len(documents), size)]


def _map_chunks(function: Callable, chunks: list, *args, n_jobs: int | None = None) -> list:
    """function(chunk, *args) for every chunk, in order: in this process for one chunk, else on n_jobs workers."""
    if len(chunks) == 1:
        return [function(chunks[0], *args)]
    workers = min(len(chunks), n_jobs if n_jobs is not None else available_cores())
    if _can_fork():
        # Forked workers start with scikit-learn already imported: about 0.7 s sooner than fresh loky workers.
        # Python >= 3.12 warns about forking a process with other OS threads; here those are only idle C-library
        # pools (OpenBLAS's, which registers fork handlers), and the workers only tokenise and count.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
            with multiprocessing.get_context("fork").Pool(workers, exit_with_parent, (os.getpid(),)) as pool:
                return pool.starmap(function, [(chunk, *args) for chunk in chunks])
    return local_parallel(workers)(delayed(function)(chunk, *args) for chunk in chunks)


def _can_fork() -> bool:
    """Forking is safe here: Linux, a main process (not a sweep's worker) and no other Python thread running."""
    return (
        sys.platform == "linux"
        and multiprocessing.parent_process() is None
        and not multiprocessing.current_process().daemon
        and threading.active_count() == 1
    )


def _segment_chunk(documents: Sequence[Document]) -> list[list[str]]:
    return [segment_document(document) for document in documents]


def segment_collection(collection: Collection, n_jobs: int | None = None) -> list[Sequence[str]]:
    """Every document's sentences, in collection order; large collections are segmented on all cores.

    Each document is segmented on its own, so contiguous chunks give the same result in any number of processes.
    """
    parts = _map_chunks(_segment_chunk, _chunks(collection, n_jobs), n_jobs=n_jobs)
    return [sentences for part in parts for sentences in part]


@dataclass(frozen=True)
class _ChunkCounts:
    """What one chunk of documents contributes: sentences per document, words per sentence, term counts."""

    sentences_per_document: np.ndarray
    words_per_sentence: np.ndarray
    counts: sp.csr_matrix  # sentences x terms (this chunk's own sorted vocabulary)
    terms: np.ndarray


def _count_chunk(documents: Sequence[Document], stem: bool) -> _ChunkCounts:
    """Segment a chunk and count its sentences' terms; run where the chunk is, so only counts travel back."""
    sentence_lists = _segment_chunk(documents)
    lengths = np.fromiter((len(s) for s in sentence_lists), dtype=np.int64, count=len(sentence_lists))
    flat = [sentence for sentences in sentence_lists for sentence in sentences]
    words = np.fromiter((len(s.split()) for s in flat), dtype=np.int32, count=len(flat))
    vectoriser = CountVectorizer(analyzer=make_analyser(stem), dtype=np.int32)
    try:
        counts = vectoriser.fit_transform(flat).tocsr()
        terms = vectoriser.get_feature_names_out()
    except ValueError:  # no term in this chunk at all (e.g. only empty documents)
        counts, terms = sp.csr_matrix((len(flat), 0), dtype=np.int32), np.array([], dtype=object)
    return _ChunkCounts(lengths, words, counts, terms)


def _merge_counts(parts: Sequence[_ChunkCounts]) -> tuple[sp.csr_matrix, np.ndarray]:
    """Stack chunk count matrices over the sorted union of their vocabularies (the order CountVectorizer uses).

    Each chunk's vocabulary is sorted and maps monotonically into the union: the same counts in the same columns
    as one CountVectorizer over all sentences (build_features then sorts each row's columns, which
    CountVectorizer leaves unsorted).
    """
    if len(parts) == 1:
        return parts[0].counts, parts[0].terms
    terms = np.unique(np.concatenate([part.terms for part in parts]))
    blocks = []
    for part in parts:
        columns = np.searchsorted(terms, part.terms).astype(part.counts.indices.dtype)
        matrix = part.counts
        blocks.append(
            sp.csr_matrix((matrix.data, columns[matrix.indices], matrix.indptr), shape=(matrix.shape[0], len(terms)))
        )
    return sp.vstack(blocks, format="csr"), terms


def build_features(
    collection: Collection, settings: FeatureSettings | None = None, n_jobs: int | None = None
) -> Features:
    """Compute document and sentence features for a whole collection (large ones on all cores)."""
    settings = settings or FeatureSettings()
    parts = _map_chunks(_count_chunk, _chunks(collection, n_jobs), settings.stem, n_jobs=n_jobs)
    lengths = np.concatenate([part.sentences_per_document for part in parts])
    words = np.concatenate([part.words_per_sentence for part in parts])
    sentence_counts, terms = _merge_counts(parts)
    sentence_counts.sort_indices()  # canonical CSR, however the collection was chunked
    if not len(terms):
        raise ValueError("empty vocabulary: no document has a word of at least 2 letters")
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # Document counts are sums of their sentences' rows: one sparse product with a membership matrix.
    membership = sp.csr_matrix(
        (np.ones(offsets[-1], dtype=np.int32), np.arange(offsets[-1]), offsets),
        shape=(len(lengths), offsets[-1]),
    )
    document_counts = (membership @ sentence_counts).tocsr()
    return features_from_counts(sentence_counts, document_counts, offsets, words, terms, settings)


def features_from_counts(
    sentence_counts: sp.csr_matrix,
    document_counts: sp.csr_matrix,
    sentence_offsets: np.ndarray,
    sentence_words: np.ndarray,
    terms: Sequence[str],
    settings: FeatureSettings,
) -> Features:
    """Features from raw term counts (sentences x terms, documents x terms): drop rare terms, weight, normalise.

    Shared by build_features and generators that produce counts directly (tarsim.synthetic's scale path).
    """
    document_frequency = np.bincount(document_counts.indices, minlength=document_counts.shape[1])
    keep = np.flatnonzero(document_frequency >= settings.min_df)
    n_docs = document_counts.shape[0]
    idf = np.log(n_docs / document_frequency[keep]).astype(np.float32)
    document_counts = document_counts[:, keep]
    sentence_counts = sentence_counts[:, keep]
    return Features(
        documents=_weight(document_counts, idf, settings),
        sentences=_weight(sentence_counts, idf, settings),
        sentence_offsets=sentence_offsets,
        sentence_words=sentence_words,
        vocabulary=tuple(str(terms[i]) for i in keep),
        idf=idf,
        settings=settings,
    )


def cache_path(cache_dir: Path, collection: Collection, settings: FeatureSettings) -> Path:
    """Where the features of this collection under these settings are cached."""
    key = f"{collection_digest(collection)[:24]}-{settings.digest()}-v{FEATURES_FORMAT}"
    return Path(cache_dir) / f"features-{key}.npz"


def save_features(path: Path, features: Features) -> None:
    """Write features to one .npz file (atomic)."""
    arrays: dict[str, np.ndarray] = {}
    for name in ("documents", "sentences"):
        matrix: sp.csr_matrix = getattr(features, name)
        arrays[f"{name}_data"] = matrix.data
        arrays[f"{name}_indices"] = matrix.indices
        arrays[f"{name}_indptr"] = matrix.indptr
        arrays[f"{name}_shape"] = np.array(matrix.shape)
    arrays["sentence_offsets"] = features.sentence_offsets
    arrays["sentence_words"] = features.sentence_words
    arrays["vocabulary"] = np.array(features.vocabulary, dtype=str)
    arrays["idf"] = features.idf
    arrays["settings"] = np.array(json.dumps(asdict(features.settings), sort_keys=True))
    with atomic_write(path, "wb") as handle:
        np.savez(handle, **arrays)


def load_features(path: Path) -> Features:
    """Read features written by save_features."""
    with np.load(path, allow_pickle=False) as arrays:

        def matrix(name: str) -> sp.csr_matrix:
            return sp.csr_matrix(
                (arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]),
                shape=tuple(arrays[f"{name}_shape"]),
            )

        return Features(
            documents=matrix("documents"),
            sentences=matrix("sentences"),
            sentence_offsets=arrays["sentence_offsets"],
            sentence_words=arrays["sentence_words"],
            vocabulary=tuple(arrays["vocabulary"].tolist()),
            idf=arrays["idf"],
            settings=FeatureSettings(**json.loads(str(arrays["settings"]))),
        )


def cached_features(
    collection: Collection, cache_dir: Path | None, settings: FeatureSettings | None = None
) -> Features:
    """Features from the on-disk cache when present, else built and cached (no cache when cache_dir is None)."""
    settings = settings or FeatureSettings()
    if cache_dir is None:
        return build_features(collection, settings)
    path = cache_path(Path(cache_dir), collection, settings)
    if path.exists():
        return load_features(path)
    features = build_features(collection, settings)
    save_features(path, features)
    return features
