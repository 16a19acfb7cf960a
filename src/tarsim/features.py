"""BMI-style tf-idf features for documents and their sentences in one vocabulary (scipy.sparse CSR float32).

Follows the HiCAL/BMI engine: alphabetic tokens of at least 2 letters, lower-cased and Porter-stemmed;
terms in fewer than 2 documents dropped; weight (1 + ln tf) * ln(N / df) with N and df counted over
documents; every row L2-normalised. A document's term counts are the sum of its sentences' counts, so
the text is tokenised once; sentences are weighted with the collection's (document) idf.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import struct
import sys
import warnings
import weakref
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from tarsim.data.atomic import atomic_write
from tarsim.data.collection import Collection, Document
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.processes import fork_is_safe, parallel_map
from tarsim.segmentation import segment_document
from tarsim.sentences import Background, LazySentences, start_background
from tarsim.term_counts import count_terms

FEATURES_FORMAT = 3
"""Bumped whenever the feature computation or the cache file layout changes, so that stale caches are not reused."""

COLLECTION_DIGEST_PREFIX = b"tarsim collection v2\n"
"""Starts every collection digest's input; names the encoding so that a change of encoding changes every digest."""

_TOKEN = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class FeatureSettings:
    """How text becomes features; part of the cache key and of every ledger's configuration."""

    stem: bool = True
    min_df: int = 2
    sublinear_tf: bool = True
    tokens: str = "bmi"  # "hical": HiCAL's BMITokenizer (see make_analyser)
    sentence_weights: str = "bmi"  # "hical": tf * idf / max(20, L2), HiCAL's paragraph features

    def __post_init__(self) -> None:
        for name in ("stem", "sublinear_tf"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"feature setting {name} must be true or false, got {getattr(self, name)!r}")
        if isinstance(self.min_df, bool) or not isinstance(self.min_df, int) or self.min_df < 1:
            raise ConfigError(f"feature setting min_df must be an integer >= 1, got {self.min_df!r}")
        for name in ("tokens", "sentence_weights"):
            if getattr(self, name) not in FEATURE_CHOICES:
                raise ConfigError(f"feature setting {name} must be bmi or hical, got {getattr(self, name)!r}")

    def record(self) -> dict:
        """The settings as recorded (ledger headers, cache keys): options added later only when not default."""
        record = asdict(self)
        for name, default in LATER_SETTINGS.items():
            if record[name] == default:
                del record[name]
        return record

    def digest(self) -> str:
        """A short stable digest of the settings."""
        return hashlib.sha256(json.dumps(self.record(), sort_keys=True).encode()).hexdigest()[:16]


FEATURE_CHOICES = ("bmi", "hical")
"""Values of the tokens and sentence_weights settings."""

LATER_SETTINGS = {"tokens": "bmi", "sentence_weights": "bmi"}
"""Settings added after ledgers and caches were first written: left out of records at these defaults."""


@dataclass(frozen=True, eq=False)
class Features:
    """Document and sentence matrices over one vocabulary, plus what is needed to vectorise a query.

    Compared and hashed by identity (arrays have no single truth value), so that what is derived from one features
    object can be remembered with it (tarsim.simulator.oracle).

    Built for documents only (`sentences`, `sentence_offsets` and `sentence_words` None), a document's sentences
    come from `lazy` when a review asks for them (tarsim.sentences); the per-document accessors below serve both.
    """

    documents: sp.csr_matrix  # n_docs x V, float32, rows L2-normalised
    sentences: sp.csr_matrix | None  # n_sentences x V, float32, rows L2-normalised
    sentence_offsets: np.ndarray | None  # n_docs + 1: sentences of doc i are rows offsets[i]:offsets[i+1]
    sentence_words: np.ndarray | None  # words (tokens of any kind) per sentence, for the reading-time model
    vocabulary: tuple[str, ...]
    idf: np.ndarray  # float32, length V
    settings: FeatureSettings
    lazy: LazySentences | None = field(default=None, compare=False, repr=False)

    @property
    def n_documents(self) -> int:
        return self.documents.shape[0]

    @property
    def has_all_sentences(self) -> bool:
        """Whether every sentence row was built (sentence-level strategies and sentence qrels need them)."""
        return self.sentences is not None

    @cached_property
    def _offsets(self) -> list[int]:
        """sentence_offsets as Python ints, made once: a review reads them at every judgment (numpy's scalars cost
        more there)."""
        return self.sentence_offsets.tolist()

    def sentences_of(self, doc: int) -> range:
        """Row indexes in `sentences` of document `doc`."""
        return range(self._offsets[doc], self._offsets[doc + 1])

    def sentence_words_of(self, doc: int) -> np.ndarray:
        """Words of each sentence of document `doc`, in reading order."""
        if self.sentence_words is None:
            return self._lazy().words(doc)
        return self.sentence_words[self._offsets[doc] : self._offsets[doc + 1]]

    def sentence_rows_of(self, doc: int) -> sp.csr_matrix:
        """The weighted sentence rows of document `doc`."""
        if self.sentences is None:
            return self._lazy().rows(doc)
        return self.sentences[self._offsets[doc] : self._offsets[doc + 1]]

    def _lazy(self) -> LazySentences:
        if self.lazy is None:
            raise ConfigError("these features were built for documents only and cannot segment (no collection)")
        return self.lazy

    def sentence_rows_maker(self) -> Callable[[list[str]], sp.csr_matrix]:
        """Weighted rows of any sentences, as build_features weighs a collection's sentences."""
        count = self._term_counter()
        weigh = _weight_paragraphs if self.settings.sentence_weights == "hical" else _weight
        return lambda sentences: weigh(count(sentences), self.idf, self.settings)

    def vectorise(self, text: str) -> sp.csr_matrix:
        """A 1 x V tf-idf row for arbitrary text (the synthetic seed document of a topic query)."""
        return _weight(self._term_counter()([text]), self.idf, self.settings)

    def _term_counter(self) -> Callable[[list[str]], sp.csr_matrix]:
        """Term counts (int32 CSR, sorted columns) of texts over this vocabulary, tokenised as the features were."""
        analyse = make_analyser(self.settings.stem, self.settings.tokens)
        index = {term: i for i, term in enumerate(self.vocabulary)}
        n_terms = len(self.vocabulary)

        def count(texts: list[str]) -> sp.csr_matrix:
            indptr, indices, data = [0], [], []
            for text in texts:
                counts: dict[int, int] = {}
                for token in analyse(text):
                    column = index.get(token)
                    if column is not None:
                        counts[column] = counts.get(column, 0) + 1
                for column in sorted(counts):
                    indices.append(column)
                    data.append(counts[column])
                indptr.append(len(indices))
            return sp.csr_matrix(
                (np.array(data, dtype=np.int32), np.array(indices, dtype=np.int32), np.array(indptr, dtype=np.int32)),
                shape=(len(texts), n_terms),
            )

        return count


@lru_cache(maxsize=4)
def make_analyser(stem: bool, tokens: str = "bmi") -> Callable[[str], list[str]]:
    """Tokeniser: alphabetic runs of >= 2 letters, lower-cased, optionally Porter-stemmed (cached stems).

    tokens="hical" is HiCAL's BMITokenizer (CALEngine/src/utils/text_utils.cc): maximal runs of ASCII letters and
    digits, a run containing a digit dropped whole (`abc123` gives nothing, not `abc`), lower-cased, stemmed
    (words of 1 or 2 letters left unstemmed, as Porter's C code does), stems shorter than 2 letters dropped.
    """
    tokenise, stem_words = analyser_parts(stem, tokens)  # hical: its one analyser, with no per-word map
    if stem_words is None:
        return tokenise
    cache: dict[str, str] = {}

    def analyse(text: str) -> list[str]:
        tokens = tokenise(text)
        unknown = [t for t in set(tokens) if t not in cache]
        if unknown:
            cache.update(zip(unknown, stem_words(unknown), strict=True))
        return [cache[t] for t in tokens]

    return analyse


def analyser_parts(
    stem: bool, tokens: str = "bmi"
) -> tuple[Callable[[str], list[str]], Callable[[list[str]], list[str]] | None]:
    """make_analyser(stem, tokens) as a tokeniser and a per-word map (None: none), for count_terms to stem each
    distinct word once instead of every token; make_analyser composes the two for `bmi` tokens."""
    if tokens == "hical":  # whole-token rules (a run with a digit dropped): one analyser, no per-word map
        return _hical_analyser(stem), None
    return _words, _porter_stems() if stem else None


_ASCII_TOKEN = re.compile(r"[a-z]{2,}")
"""_TOKEN on lower-cased ASCII text: its only letters are a-z (a third faster than the Unicode class)."""


def _words(text: str) -> list[str]:
    """Alphabetic runs of >= 2 letters, lower-cased (the unstemmed `bmi` tokens)."""
    lowered = text.lower()
    return (_ASCII_TOKEN if lowered.isascii() else _TOKEN).findall(lowered)


def _porter_stems() -> Callable[[list[str]], list[str]]:
    """PyStemmer's Porter stemmer over a list of words."""
    import Stemmer

    return Stemmer.Stemmer("porter").stemWords


_HICAL_TOKEN = re.compile(r"[A-Za-z0-9]+", re.ASCII)


def _hical_analyser(stem: bool) -> Callable[[str], list[str]]:
    """HiCAL's BMITokenizer (see make_analyser)."""
    import Stemmer

    stemmer = Stemmer.Stemmer("porter")
    cache: dict[str, str] = {}

    def analyse(text: str) -> list[str]:
        words = [run.lower() for run in _HICAL_TOKEN.findall(text) if run.isalpha()]
        if not stem:
            return [word for word in words if len(word) >= 2]
        unknown = [w for w in set(words) if w not in cache]
        if unknown:
            stems = stemmer.stemWords(unknown)
            cache.update((w, w if len(w) <= 2 else s) for w, s in zip(unknown, stems, strict=True))
        return [cache[w] for w in words if len(cache[w]) >= 2]

    return analyse


def _weight(counts: sp.csr_matrix, idf: np.ndarray, settings: FeatureSettings) -> sp.csr_matrix:
    weighted = counts.astype(np.float32, copy=True)
    if settings.sublinear_tf:
        np.log(weighted.data, out=weighted.data)
        weighted.data += 1.0
    weighted.data *= idf[weighted.indices]  # in place: a broadcast multiply() would build an int64 COO copy
    weighted.eliminate_zeros()
    from sklearn.preprocessing import normalize  # imported here: scikit-learn takes a second to import

    return normalize(weighted, norm="l2", copy=False).astype(np.float32, copy=False)


def _weight_paragraphs(counts: sp.csr_matrix, idf: np.ndarray, settings: FeatureSettings) -> sp.csr_matrix:
    """HiCAL's paragraph vectors (CALEngine/src/corpus_parser.cc): raw tf * idf, divided by max(20, L2 norm)."""
    weighted = counts.astype(np.float64, copy=True)
    weighted.data *= idf[weighted.indices]
    weighted.eliminate_zeros()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    divisor = np.repeat(np.maximum(norms, 20.0), np.diff(weighted.indptr))
    weighted.data /= divisor
    return weighted.astype(np.float32)


_DIGESTS: weakref.WeakKeyDictionary[Collection, str] = weakref.WeakKeyDictionary()
"""Digests of Collection objects already hashed (a Collection cannot change): a review asks twice, for its
feature cache and its ledger header (about 0.02 s each for Reuters-21578)."""


def collection_digest(collection: Collection) -> str:
    """SHA-256 of the documents in order, every field length-prefixed: the input identity of caches and ledgers.

    Per document: the byte lengths of docid, title and text and the number of sentences (-1 for none given), then
    each sentence's length, then the UTF-8 bytes. No string can reach across a field or document boundary, so a
    NUL or a line break inside a docid or title gives another digest, never that of another split of the text.
    """
    if isinstance(collection, Collection):
        known = _DIGESTS.get(collection)
        if known is None:
            known = _DIGESTS[collection] = _digest(collection)
        return known
    return _digest(collection)


def _digest(collection: Iterable[Document]) -> str:
    digest = hashlib.sha256(COLLECTION_DIGEST_PREFIX)
    header = struct.Struct("<4q").pack
    for document in collection:
        docid, title, text = _utf8(document.docid), _utf8(document.title), _utf8(document.text)
        if document.sentences is None:
            digest.update(header(len(docid), len(title), len(text), -1))
            digest.update(docid + title + text)
            continue
        sentences = [_utf8(sentence) for sentence in document.sentences]
        digest.update(header(len(docid), len(title), len(text), len(sentences)))
        digest.update(struct.pack(f"<{len(sentences)}q", *map(len, sentences)))
        digest.update(b"".join((docid, title, text, *sentences)))
    return digest.hexdigest()


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of any str (a lone surrogate from JSON input too); injective, so digests stay unambiguous."""
    return text.encode("utf-8", "surrogatepass")


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
    """The collection as contiguous chunks: one when small or n_jobs is 1, else chunks that shrink towards the end
    (guided_chunk_sizes), so that the processes finish together."""
    n_jobs = n_jobs if n_jobs is not None else available_cores()
    documents = list(collection)
    threshold = FORKED_PARALLEL_MIN_DOCUMENTS if _can_fork() else PARALLEL_SEGMENTATION_MIN_DOCUMENTS
    if n_jobs <= 1 or len(documents) < threshold:
        return [documents]
    bounds = list(itertools.accumulate(guided_chunk_sizes(len(documents), n_jobs), initial=0))
    return [documents[start:stop] for start, stop in itertools.pairwise(bounds)]


def guided_chunk_sizes(total: int, n_jobs: int) -> list[int]:
    """Chunk sizes summing to `total`: each 1/(2 n_jobs) of what is left, at least MIN_CHUNK_DOCUMENTS (OpenMP's
    guided schedule). The last chunks are small, so a process that joins late (parallel_map's caller after its
    import) or a worker's queued chunk leaves little to wait for; the sums come out the same however it is cut."""
    sizes, left = [], total
    while left > 0:
        size = min(left, max(-(-left // (2 * n_jobs)), MIN_CHUNK_DOCUMENTS))
        sizes.append(size)
        left -= size
    return sizes


def _map_chunks(function: Callable, chunks: list, *args, n_jobs: int | None = None) -> list:
    """function(chunk, *args) for every chunk, in order: in this process for one chunk, else on n_jobs workers."""
    if len(chunks) == 1:
        return [function(chunks[0], *args)]
    workers = min(len(chunks), n_jobs if n_jobs is not None else available_cores())
    # The workers count without scikit-learn (tarsim.term_counts), so they are forked before it is imported and
    # this process imports it, for the weighting that follows, while they count (about a second on 2 cores), on a
    # core of its own; then it takes the chunks no worker has started. Once imported, every core gets a worker.
    arguments = [(chunk, *args) for chunk in chunks]
    importing = None if "sklearn.preprocessing" in sys.modules else _import_scikit_learn
    return parallel_map(function, arguments, workers, fork=_can_fork(), while_waiting=importing)


def _import_scikit_learn() -> None:
    """Import what features_from_counts needs (scikit-learn's first import takes about a second)."""
    import sklearn.preprocessing  # noqa: F401


def _can_fork() -> bool:
    """Forking is safe here (tarsim.processes.fork_is_safe); the seam tests use to try both kinds of worker."""
    return fork_is_safe()


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


def _count_chunk(documents: Sequence[Document], stem: bool, tokens: str = "bmi") -> _ChunkCounts:
    """Segment a chunk and count its sentences' terms; run where the chunk is, so only counts travel back."""
    sentence_lists = _segment_chunk(documents)
    lengths = np.fromiter((len(s) for s in sentence_lists), dtype=np.int64, count=len(sentence_lists))
    flat = [sentence for sentences in sentence_lists for sentence in sentences]
    words = np.fromiter((len(s.split()) for s in flat), dtype=np.int32, count=len(flat))
    counts, terms = count_terms(flat, *analyser_parts(stem, tokens))
    return _ChunkCounts(lengths, words, counts, terms)


def _merge_counts(parts: Sequence[_ChunkCounts]) -> tuple[sp.csr_matrix, np.ndarray]:
    """Stack chunk count matrices over the sorted union of their vocabularies (the order CountVectorizer uses).

    Each chunk's vocabulary is sorted and maps monotonically into the union: the same counts in the same columns
    as one count over all sentences (build_features then sorts each row's columns; chunks come back sorted, so
    that only guards a single chunk's matrix from elsewhere). The union is sorted and looked up as Python strings
    (np.unique and searchsorted over object arrays took 0.08 s of a Reuters-21578 build, this 0.03 s).
    """
    if len(parts) == 1:
        return parts[0].counts, parts[0].terms
    vocabulary = sorted(set().union(*(part.terms.tolist() for part in parts)))
    column_of = {term: column for column, term in enumerate(vocabulary)}.__getitem__
    blocks = []
    for part in parts:
        matrix = part.counts
        columns = np.fromiter(map(column_of, part.terms.tolist()), dtype=matrix.indices.dtype, count=len(part.terms))
        blocks.append(
            sp.csr_matrix(
                (matrix.data, columns[matrix.indices], matrix.indptr), shape=(matrix.shape[0], len(vocabulary))
            )
        )
    return sp.vstack(blocks, format="csr"), np.array(vocabulary, dtype=object)


def _document_text(document: Document) -> str:
    """The text whose tokens are the document's: its own sentences when given, else its title and text."""
    if document.sentences is not None:
        return "\n".join(document.sentences)
    return document.title + "\n" + document.text


def _count_documents_chunk(documents: Sequence[Document], stem: bool) -> _ChunkCounts:
    """Count a chunk's document terms straight from the text, without segmenting it."""
    counts, terms = count_terms((_document_text(document) for document in documents), *analyser_parts(stem))
    return _ChunkCounts(np.ones(len(documents), dtype=np.int64), np.zeros(0, dtype=np.int32), counts, terms)


def document_counts(
    collection: Collection, settings: FeatureSettings | None = None, n_jobs: int | None = None
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Term counts of every document (sorted columns) and the sorted terms, taken from the text unsegmented.

    Alphabetic tokens never cross a sentence boundary, so these are the sums of the documents' sentence counts
    that build_features computes (checked on all of Reuters-21578 and srd by benchmarks/document_counts.py and
    on a sample by tests/test_speed_paths.py): build_features(sentences=False) builds documents from them.
    """
    settings = settings or FeatureSettings()
    parts = _map_chunks(_count_documents_chunk, _chunks(collection, n_jobs), settings.stem, n_jobs=n_jobs)
    counts, terms = _merge_counts(parts)
    counts.sort_indices()
    return counts, terms


def segmented_document_counts(
    collection: Collection, settings: FeatureSettings | None = None, n_jobs: int | None = None
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Document term counts as build_features takes them: the sums of the segmented sentences' counts."""
    settings = settings or FeatureSettings()
    parts = _map_chunks(_count_chunk, _chunks(collection, n_jobs), settings.stem, n_jobs=n_jobs)
    lengths = np.concatenate([part.sentences_per_document for part in parts])
    sentence_counts, terms = _merge_counts(parts)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    membership = sp.csr_matrix(
        (np.ones(offsets[-1], dtype=np.int32), np.arange(offsets[-1]), offsets), shape=(len(lengths), offsets[-1])
    )
    counts = (membership @ sentence_counts).tocsr()
    counts.sort_indices()
    return counts, terms


def build_features(
    collection: Collection,
    settings: FeatureSettings | None = None,
    n_jobs: int | None = None,
    sentences: bool = True,
    segment_ahead: bool = False,
) -> Features:
    """Compute document and sentence features for a whole collection (large ones on all cores).

    With `sentences=False` only the documents are built, from their text unsegmented (same document rows to
    the bit); their sentences are segmented when a review asks for them (Features.lazy), or, with
    `segment_ahead` (a review about to start), from now on in the background when the collection is small.
    """
    settings = settings or FeatureSettings()
    if not sentences and settings.tokens == "bmi":
        return _build_document_features(collection, settings, n_jobs, segment_ahead)
    parts = _map_chunks(_count_chunk, _chunks(collection, n_jobs), settings.stem, settings.tokens, n_jobs=n_jobs)
    lengths = np.concatenate([part.sentences_per_document for part in parts])
    words = np.concatenate([part.words_per_sentence for part in parts])
    sentence_counts, terms = _merge_counts(parts)
    sentence_counts.sort_indices()  # canonical CSR, however the collection was chunked
    if not len(terms):
        raise InputError(
            collection.source, None, "every document is empty after tokenisation (no word of at least 2 letters)"
        )
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # Document counts are sums of their sentences' rows: one sparse product with a membership matrix.
    membership = sp.csr_matrix(
        (np.ones(offsets[-1], dtype=np.int32), np.arange(offsets[-1]), offsets),
        shape=(len(lengths), offsets[-1]),
    )
    document_counts = (membership @ sentence_counts).tocsr()
    if not (np.bincount(document_counts.indices, minlength=len(terms)) >= settings.min_df).any():
        raise InputError(collection.source, None, f"no term occurs in at least min_df={settings.min_df} documents")
    return features_from_counts(sentence_counts, document_counts, offsets, words, terms, settings)


def _build_document_features(
    collection: Collection, settings: FeatureSettings, n_jobs: int | None, segment_ahead: bool = False
) -> Features:
    """Document rows from unsegmented counts (equal to the sentence sums: HiCAL tokens are counted segmented).

    With `segment_ahead` a small collection starts segmenting in the background first (tarsim.sentences.
    start_background): its review reads most of it, and the workers run while this process counts, imports
    scikit-learn and trains.
    """
    background = start_background(list(collection)) if segment_ahead else None
    try:
        counts, terms = document_counts(collection, settings, n_jobs)
        if not len(terms):
            raise InputError(
                collection.source, None, "every document is empty after tokenisation (no word of at least 2 letters)"
            )
        if not (np.bincount(counts.indices, minlength=len(terms)) >= settings.min_df).any():
            raise InputError(collection.source, None, f"no term occurs in at least min_df={settings.min_df} documents")
        features = features_from_counts(None, counts, None, None, terms, settings)
    except BaseException:  # no review will take these sentences: stop the workers now, not after their queue
        if background is not None:
            background.close()
        raise
    return with_lazy_sentences(features, collection, background=background)


def cache_label(collection: Collection) -> str:
    """What `tarsim cache info` shows an entry was made from: the collection's file as an absolute path (a relative
    one means nothing from another folder), or its own label ("<memory>", a demo) as it is."""
    source = str(getattr(collection, "source", "") or "")
    return os.path.abspath(source) if source and os.path.exists(source) else source


def with_lazy_sentences(
    features: Features,
    collection: Collection,
    store: Path | None = None,
    collection_sha: str = "",
    background: Background | None = None,
) -> Features:
    """Document-only features that segment the collection's documents when a review asks (tarsim.sentences);
    `background`: segmenting already begun on them (start_background), adopted."""
    source, settings = cache_label(collection), asdict(features.settings)
    documents = list(collection)
    lazy = LazySentences(documents, features.sentence_rows_maker(), store, collection_sha, source, settings, background)
    return replace(features, lazy=lazy)


def features_from_counts(
    sentence_counts: sp.csr_matrix | None,
    document_counts: sp.csr_matrix,
    sentence_offsets: np.ndarray | None,
    sentence_words: np.ndarray | None,
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
    weigh_sentences = _weight_paragraphs if settings.sentence_weights == "hical" else _weight
    return Features(
        documents=_weight(document_counts, idf, settings),
        sentences=None if sentence_counts is None else weigh_sentences(sentence_counts[:, keep], idf, settings),
        sentence_offsets=sentence_offsets,
        sentence_words=sentence_words,
        vocabulary=tuple(str(terms[i]) for i in keep),
        idf=idf,
        settings=settings,
    )


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


def failure_reason(error: BaseException) -> str:
    """Why a cache file could not be read, in one clause: the error's type and its message's first sentence (numpy's
    advice to load a file with pickled objects unsafely is not for a cache that tarsim rebuilds anyway)."""
    lines = str(error).splitlines()
    first = re.split(r"(?<=[.!?])\s", lines[0], maxsplit=1)[0] if lines else ""
    return f"{type(error).__name__}: {first}"


def read_cache_meta(path: Path) -> dict:
    """The meta record of a cache file, unverified and without reading its arrays (for `tarsim cache info`)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(str(stored["meta"][()]))
    except _CACHE_READ_ERRORS as error:
        raise CacheError.reading(path, error) from None
    if not isinstance(meta, dict):
        raise CacheError(path, "no valid meta record")
    return meta


def arrays_checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over the arrays' names, dtypes, shapes and bytes in name order (each array's length is implied)."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(json.dumps([name, array.dtype.str, list(array.shape)]).encode() + b"\n")
        digest.update(array.tobytes())
    return digest.hexdigest()


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
    return Path(raw)


CACHE_ENTRY_PREFIXES = ("features-", "tfidf-", "sentences-")
"""The names of cache entries start so: tarsim.features' (bmi), tarsim.features_tfidf's and the sentence stores of
document-only entries (tarsim.sentences)."""

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
    """tarsim's files in a cache folder, sorted by name ([] when the folder does not exist)."""
    directory = Path(cache_dir)
    if not directory.is_dir():
        return []
    return sorted({p for pattern in CACHE_FILE_PATTERNS for p in directory.glob(pattern) if p.is_file()})


def clear_cache(cache_dir: Path) -> tuple[int, int, list[Path]]:
    """Remove tarsim's files from a cache folder (other files stay); return (files removed, bytes freed, the
    temporary files kept: written in the last hour, perhaps by a run still at work)."""
    removed, freed, kept = 0, 0, []
    for path in cache_files(cache_dir):
        try:
            size = path.stat().st_size
            if is_recent_temporary(path):
                kept.append(path)
                continue
            path.unlink()
        except FileNotFoundError:  # removed meanwhile by another process
            continue
        removed, freed = removed + 1, freed + size
    return removed, freed, kept


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
    """The meta record and the arrays of a cache file, every CRC checked; CacheError when damaged."""
    with zipfile.ZipFile(path) as archive:
        damaged = archive.testzip()  # reads every member: a flipped bit fails here, before numpy parses headers
        if damaged is not None:
            raise CacheError(path, f"bad CRC-32 for {damaged}")
        names = {name.removesuffix(".npy") for name in archive.namelist()}
    if names != {*_CACHE_ARRAYS, "meta"}:
        missing = sorted({*_CACHE_ARRAYS, "meta"} - names)
        raise CacheError(path, f"missing {', '.join(missing)}" if missing else "unexpected arrays")
    with np.load(path, allow_pickle=False) as stored:
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
    reviews segment are kept in a store beside it (tarsim.sentences). A cache entry that is unreadable, corrupt
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
        if not path.exists():
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
    """The sentence store of a document-only entry (tarsim.sentences.store_path)."""
    from tarsim.sentences import store_path

    return store_path(cache_dir, collection_sha, settings_digest)


def _with_store(features: Features, collection: Collection, cache_dir: Path, digest: str) -> Features:
    """Document-only features segment lazily, keeping what they segment in the cache's sentence store."""
    if features.has_all_sentences:
        return features
    store = sentence_store_path(cache_dir, digest, features.settings.digest())
    if features.lazy is not None:  # just built: keep its segmenting (perhaps begun in the background)
        features.lazy.keep_in(store, digest)
        return features
    return with_lazy_sentences(features, collection, store, digest)


@contextlib.contextmanager
def cache_write_failure_warned(path: Path) -> Iterator[None]:
    """Run a cache write; a read-only or full cache folder costs speed (one warning line), never the run."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or str(error)
        warnings.warn(f"cannot write the feature cache {path} ({reason}): not cached", InputWarning, stacklevel=3)
