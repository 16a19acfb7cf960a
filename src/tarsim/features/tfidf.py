"""ASReview's tf-idf features: scikit-learn's TfidfVectorizer over title + " " + text, in float64.

The documents fit the vectoriser (exactly ASReview's `tfidf` feature extractor: its TextMerger joins title and
abstract with one space, missing parts as ""); every sentence is transformed with the same fitted vectoriser, so
sentence-level strategies share the documents' vocabulary and idf. Cached like BMI's features: one verified .npz
per collection digest and settings in the review's feature cache folder.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from tarsim.data.atomic import atomic_write
from tarsim.data.cache_files import arrays_checksum
from tarsim.data.collection import Collection
from tarsim.data.digests import collection_digest
from tarsim.errors import ConfigError, InputError
from tarsim.features.build import cache_label
from tarsim.features.matrices import Features
from tarsim.text.segmentation import segment_collection

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import TfidfVectorizer

TFIDF_FORMAT = 1
_PREFIX = "tfidf-"  # one of tarsim.features.cache.CACHE_ENTRY_PREFIXES
"""Bumped whenever the tf-idf computation or its cache layout changes."""


@dataclass(frozen=True)
class TfidfSettings:
    """TfidfVectorizer's settings (ASReview's defaults are scikit-learn's); part of the cache key.

    min_df >= 1 is a number of documents, below 1 a share of them; max_df <= 1 is a share, above 1 a number.
    """

    ngram_min: int = 1
    ngram_max: int = 1
    sublinear_tf: bool = False
    min_df: float = 1
    max_df: float = 1.0
    stop_words: str = "none"
    lowercase: bool = True
    use_idf: bool = True
    smooth_idf: bool = True
    norm: str = "l2"

    def __post_init__(self) -> None:
        if self.ngram_min > self.ngram_max:
            raise ConfigError(f"tfidf ngram_min ({self.ngram_min}) must not exceed ngram_max ({self.ngram_max})")

    def digest(self) -> str:
        """A short stable digest of the settings."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]

    def vectoriser(self, vocabulary: dict[str, int] | None = None) -> TfidfVectorizer:
        """The scikit-learn vectoriser these settings describe (unfitted)."""
        from sklearn.feature_extraction.text import TfidfVectorizer  # imported here: slow, only for building

        return TfidfVectorizer(
            ngram_range=(self.ngram_min, self.ngram_max),
            sublinear_tf=self.sublinear_tf,
            min_df=int(self.min_df) if self.min_df >= 1 else float(self.min_df),
            max_df=float(self.max_df) if self.max_df <= 1 else int(self.max_df),
            stop_words=None if self.stop_words == "none" else self.stop_words,
            lowercase=self.lowercase,
            use_idf=self.use_idf,
            smooth_idf=self.smooth_idf,
            norm=None if self.norm == "none" else self.norm,
            vocabulary=vocabulary,
        )


@dataclass(frozen=True, eq=False)
class TfidfFeatures(Features):
    """Features whose ad hoc rows (a topic's query) are transformed by the fitted tf-idf vectoriser."""

    def vectorise(self, text: str) -> sp.csr_matrix:
        """A 1 x V tf-idf row for arbitrary text."""
        return self._fitted_vectoriser().transform([text]).tocsr()

    def sentence_rows_maker(self):
        """Rows of any sentences from the fitted vectoriser, as build_tfidf_features transforms sentences."""
        vectoriser, n_terms = self._fitted_vectoriser(), len(self.vocabulary)

        def rows(sentences: list[str]) -> sp.csr_matrix:
            matrix = vectoriser.transform(sentences).tocsr() if sentences else sp.csr_matrix((0, n_terms))
            matrix.sort_indices()
            return matrix

        return rows

    def _fitted_vectoriser(self) -> TfidfVectorizer:
        """The vectoriser these features were made with: their vocabulary and idf."""
        vectoriser = self.settings.vectoriser({term: i for i, term in enumerate(self.vocabulary)})
        if self.settings.use_idf:
            vectoriser.idf_ = self.idf
        return vectoriser


def document_texts(collection: Collection) -> list[str]:
    """ASReview's text of each record: title + " " + abstract."""
    return [f"{document.title or ''} {document.text or ''}" for document in collection]


def build_tfidf_features(
    collection: Collection, settings: TfidfSettings, sentences: bool = True, segment_ahead: bool = False
) -> TfidfFeatures:
    """Fit the vectoriser on the documents; transform the documents and their sentences (float64 CSR).

    With `sentences=False` the documents only: their sentences are segmented when a review asks (Features.lazy)
    or, with `segment_ahead`, in the background from now on (see tarsim.features.build.build_features).
    """
    from tarsim.text.sentences import start_background

    background = start_background(list(collection)) if segment_ahead and not sentences else None
    vectoriser = settings.vectoriser()
    try:
        documents = vectoriser.fit_transform(document_texts(collection)).tocsr()
    except ValueError as error:  # empty vocabulary, or min_df/max_df leaving no term
        raise InputError(collection.source, None, f"tfidf features: {error}") from None
    if not sentences:
        from tarsim.features.build import with_lazy_sentences

        documents.sort_indices()
        idf = vectoriser.idf_ if settings.use_idf else np.ones(documents.shape[1])
        only = TfidfFeatures(
            documents=documents,
            sentences=None,
            sentence_offsets=None,
            sentence_words=None,
            vocabulary=tuple(vectoriser.get_feature_names_out()),
            idf=np.asarray(idf, dtype=np.float64),
            settings=settings,  # type: ignore[arg-type]
        )
        return with_lazy_sentences(only, collection, background=background)
    sentence_lists = segment_collection(collection)
    flat = [sentence for sentences in sentence_lists for sentence in sentences]
    sentences = vectoriser.transform(flat).tocsr() if flat else sp.csr_matrix((0, documents.shape[1]))
    documents.sort_indices()
    sentences.sort_indices()
    offsets = np.zeros(len(sentence_lists) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sentence_lists], out=offsets[1:])
    idf = vectoriser.idf_ if settings.use_idf else np.ones(documents.shape[1])
    return TfidfFeatures(
        documents=documents,
        sentences=sentences,
        sentence_offsets=offsets,
        sentence_words=np.fromiter((len(s.split()) for s in flat), dtype=np.int32, count=len(flat)),
        vocabulary=tuple(vectoriser.get_feature_names_out()),
        idf=np.asarray(idf, dtype=np.float64),
        settings=settings,  # type: ignore[arg-type] - TfidfSettings stands where FeatureSettings does
    )


def _cache_file(cache_dir: Path, digest: str, settings: TfidfSettings, documents_only: bool = False) -> Path:
    part = "-docs" if documents_only else ""
    return Path(cache_dir) / f"{_PREFIX}{digest[:24]}-{settings.digest()}{part}-v{TFIDF_FORMAT}.npz"


def _arrays(features: TfidfFeatures) -> dict[str, np.ndarray]:
    from tarsim.features.cache import feature_arrays

    arrays = feature_arrays(features)
    for name in ("documents", "sentences"):  # tf-idf keeps float64, as ASReview computes it
        arrays[f"{name}_data"] = np.asarray(arrays[f"{name}_data"], dtype=np.float64)
    return arrays


def _load(path: Path, collection_sha: str | None, settings: TfidfSettings | None) -> TfidfFeatures:
    """A cached entry, verified (checksum; with `collection_sha`/`settings`: made for them); ValueError if not."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("meta")))
    if settings is None:
        settings = TfidfSettings(**meta.get("settings", {}))
    if collection_sha is not None and meta.get("collection") != collection_sha:
        raise ValueError("made for another collection")
    if meta.get("settings") != asdict(settings):
        raise ValueError("made with other settings")
    if meta.get("arrays") != arrays_checksum(arrays):
        raise ValueError("checksum mismatch")

    def matrix(name: str) -> sp.csr_matrix:
        shape = tuple(int(n) for n in arrays[f"{name}_shape"])
        return sp.csr_matrix((arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]), shape)

    from tarsim.features.cache import is_documents_only

    documents = matrix("documents")
    only = is_documents_only(arrays, documents.shape[0])
    return TfidfFeatures(
        documents=documents,
        sentences=None if only else matrix("sentences"),
        sentence_offsets=None if only else arrays["sentence_offsets"],
        sentence_words=None if only else arrays["sentence_words"],
        vocabulary=tuple(str(term) for term in arrays["vocabulary"]),
        idf=arrays["idf"],
        settings=settings,  # type: ignore[arg-type]
    )


def cached_tfidf_features(
    collection: Collection,
    cache_dir: Path | None,
    settings: TfidfSettings,
    sentences: bool = True,
    segment_ahead: bool = False,
) -> TfidfFeatures:
    """Features from the cache when present and verified, else built (and cached when there is a cache folder).

    `sentences=False`: as tarsim.features.cache.cached_features, an entry with every sentence or a document-only one.
    """
    from tarsim.features.cache import cached_entry

    return cached_entry(  # type: ignore[return-value]
        collection,
        cache_dir,
        sentences,
        entry=lambda directory, digest, only: _cache_file(directory, digest, settings, only),
        load=lambda path, digest: _load_verified(path, digest, settings),
        build=lambda: build_tfidf_features(collection, settings, sentences, segment_ahead),
        save=lambda path, features, digest: _save(path, features, digest, cache_label(collection)),
    )


def _load_verified(path: Path, collection_sha: str | None, settings: TfidfSettings | None) -> TfidfFeatures:
    """_load, any damage as one CacheError line (as BMI's cache reports it)."""
    from tarsim.features.cache import CacheError

    try:
        return _load(path, collection_sha, settings)
    except Exception as error:  # any damage means: rebuild, never a different result
        raise CacheError.reading(path, error) from None


def _save(path: Path, features: TfidfFeatures, collection_sha: str, source: str = "") -> None:
    """Write an entry atomically: float64 arrays, their checksum, the settings, the collection digest and the
    collection's file (shown by `tarsim cache info`)."""
    arrays = _arrays(features)
    meta = {
        "format": TFIDF_FORMAT,
        "collection": collection_sha,
        "source": source,
        "settings": asdict(features.settings),
        "arrays": arrays_checksum(arrays),
    }
    with atomic_write(path, "wb") as handle:
        np.savez(handle, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)


def is_tfidf_cache_file(path: Path) -> bool:
    """Whether a feature cache file holds tf-idf features (by its name), not BMI's."""
    return Path(path).name.startswith(_PREFIX)


def tfidf_cache_path(cache_dir: Path, collection: Collection, settings: TfidfSettings) -> Path:
    """The cache file of a collection's tf-idf features under these settings (sentences included)."""
    return _cache_file(Path(cache_dir), collection_digest(collection), settings)


def load_tfidf_cache_file(path: Path) -> TfidfFeatures:
    """A tf-idf cache file's features, verified (CacheError if damaged), whatever collection it was made for."""
    return _load_verified(Path(path), None, None)
