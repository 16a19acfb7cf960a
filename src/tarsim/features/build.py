"""Building features from a collection: its digest, term counts in parallel chunks, weighting into Features.

A document's term counts are the sum of its sentences' counts, so the text is tokenised once; sentences are weighted
with the collection's (document) idf.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from tarsim.data.collection import Collection, Document
from tarsim.errors import InputError
from tarsim.features.matrices import Features, FeatureSettings, weight, weight_paragraphs
from tarsim.runtime.chunks import chunks, importing, map_chunks
from tarsim.text.analysers import analyser_parts
from tarsim.text.segmentation import segment_documents
from tarsim.text.sentences import Background, LazySentences, start_background
from tarsim.text.term_counts import count_terms


@dataclass(frozen=True)
class _ChunkCounts:
    """What one chunk of documents contributes: sentences per document, words per sentence, term counts."""

    sentences_per_document: np.ndarray
    words_per_sentence: np.ndarray
    counts: sp.csr_matrix  # sentences x terms (this chunk's own sorted vocabulary)
    terms: np.ndarray


def _count_chunk(documents: Sequence[Document], stem: bool, tokens: str = "bmi") -> _ChunkCounts:
    """Segment a chunk and count its sentences' terms; run where the chunk is, so only counts travel back."""
    sentence_lists = segment_documents(documents)
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
    on a sample by tests/runtime/test_speed_paths.py): build_features(sentences=False) builds documents from them.
    """
    settings = settings or FeatureSettings()
    parts = _map_counting(_count_documents_chunk, chunks(collection, n_jobs), settings.stem, n_jobs=n_jobs)
    counts, terms = _merge_counts(parts)
    counts.sort_indices()
    return counts, terms


def segmented_document_counts(
    collection: Collection, settings: FeatureSettings | None = None, n_jobs: int | None = None
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Document term counts as build_features takes them: the sums of the segmented sentences' counts."""
    settings = settings or FeatureSettings()
    parts = _map_counting(_count_chunk, chunks(collection, n_jobs), settings.stem, n_jobs=n_jobs)
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
    parts = _map_counting(_count_chunk, chunks(collection, n_jobs), settings.stem, settings.tokens, n_jobs=n_jobs)
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

    With `segment_ahead` a small collection starts segmenting in the background first (tarsim.text.sentences.
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
    """Document-only features that segment the collection's documents when a review asks (tarsim.text.sentences);
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

    Shared by build_features and generators that produce counts directly (tarsim.datasets.synthetic's scale path).
    """
    document_frequency = np.bincount(document_counts.indices, minlength=document_counts.shape[1])
    keep = np.flatnonzero(document_frequency >= settings.min_df)
    n_docs = document_counts.shape[0]
    idf = np.log(n_docs / document_frequency[keep]).astype(np.float32)
    document_counts = document_counts[:, keep]
    weigh_sentences = weight_paragraphs if settings.sentence_weights == "hical" else weight
    return Features(
        documents=weight(document_counts, idf, settings),
        sentences=None if sentence_counts is None else weigh_sentences(sentence_counts[:, keep], idf, settings),
        sentence_offsets=sentence_offsets,
        sentence_words=sentence_words,
        vocabulary=tuple(str(terms[i]) for i in keep),
        idf=idf,
        settings=settings,
    )


def _map_counting(function: Callable, chunks: list, *args, n_jobs: int | None = None) -> list:
    """map_chunks for the counting workers: they count without scikit-learn (tarsim.text.term_counts), so they are
    forked before it is imported and this process imports it meanwhile, for the weighting that follows."""
    return map_chunks(function, chunks, *args, n_jobs=n_jobs, while_waiting=importing("sklearn.preprocessing"))
