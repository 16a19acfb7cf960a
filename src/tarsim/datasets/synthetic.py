"""Synthetic collections with planted topics: the built-in demo data and the scale benchmark's input.

Words come from a Zipfian background vocabulary of made-up pronounceable tokens; each topic owns a small set
of its own words. A document is a sequence of sentences; in a document relevant to a topic, a few sentences
(at least one) mix in the topic's words, so relevant documents, relevant sentences and a query (the topic's
most frequent words) are all known by construction. Generation is vectorised and fully determined by `seed`.

For scale (ScaleSpec, make_scale_collection): documents are mixtures of Zipfian themes with one planted topic,
generated chunk by chunk as token ids and counted straight into float32 CSR features, or written as files.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset
from tarsim.data.qrels import Qrels, SentenceQrels

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ch", "sh", "tr", "pl")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")


@dataclass(frozen=True)
class SyntheticSpec:
    """Size and shape of a synthetic collection."""

    n_documents: int = 2000
    prevalences: tuple[float, ...] = (0.02, 0.05, 0.1)
    vocabulary_size: int = 5000
    topic_words: int = 40
    zipf_exponent: float = 1.1
    sentences_per_document: tuple[int, int] = (3, 12)
    words_per_sentence: tuple[int, int] = (6, 20)
    topic_word_share: float = 0.35
    seed: int = 0


def make_vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` distinct pronounceable made-up words (2 to 4 syllables)."""
    syllables = np.array([o + v for o in _ONSETS for v in _VOWELS])
    words: dict[str, None] = {}
    while len(words) < size:
        count = rng.integers(2, 5, size=size)
        picks = rng.integers(0, len(syllables), size=(size, 4))
        for n, row in zip(count, picks, strict=True):
            words.setdefault("".join(syllables[row[:n]]), None)
            if len(words) == size:
                break
    return np.array(list(words))


def make_synthetic_dataset(spec: SyntheticSpec | None = None) -> tuple[Dataset, SentenceQrels]:
    """A dataset with one topic per prevalence, plus the sentence qrels of its planted relevant sentences."""
    spec = spec or SyntheticSpec()
    rng = np.random.default_rng(spec.seed)
    n_topics = len(spec.prevalences)
    vocabulary = make_vocabulary(spec.vocabulary_size + n_topics * spec.topic_words, rng)
    background = vocabulary[: spec.vocabulary_size]
    topic_vocab = vocabulary[spec.vocabulary_size :].reshape(n_topics, spec.topic_words)
    ranks = np.arange(1, spec.vocabulary_size + 1, dtype=np.float64)
    background_p = ranks**-spec.zipf_exponent
    background_p /= background_p.sum()
    topic_p = ranks[: spec.topic_words] ** -1.0
    topic_p /= topic_p.sum()

    n = spec.n_documents
    relevance = rng.random((n, n_topics)) < np.asarray(spec.prevalences)[np.newaxis, :]
    sentence_counts = rng.integers(spec.sentences_per_document[0], spec.sentences_per_document[1] + 1, size=n)
    total_sentences = int(sentence_counts.sum())
    lengths = rng.integers(spec.words_per_sentence[0], spec.words_per_sentence[1] + 1, size=total_sentences)
    words = background[rng.choice(spec.vocabulary_size, size=int(lengths.sum()), p=background_p)]
    sentence_doc = np.repeat(np.arange(n), sentence_counts)
    sentence_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])

    qrels: Qrels = {}
    sentence_qrels: SentenceQrels = {}
    topic_ids = [f"T{i + 1}" for i in range(n_topics)]
    doc_offsets = np.concatenate([[0], np.cumsum(sentence_counts)])
    docids = [f"d{i:07d}" for i in range(n)]
    for t, topic in enumerate(topic_ids):
        relevant_docs = np.flatnonzero(relevance[:, t])
        qrels[topic] = {docid: 0 for docid in docids[: min(n, 50)]}
        sentence_qrels[topic] = {}
        for doc in relevant_docs:
            first, count = doc_offsets[doc], sentence_counts[doc]
            planted = rng.choice(count, size=max(1, int(rng.integers(1, max(2, count // 3) + 1))), replace=False)
            for s in planted:
                row = first + s
                mask = rng.random(lengths[row]) < spec.topic_word_share
                mask[0] = True
                start = sentence_starts[row]
                words[start : start + lengths[row]][mask] = topic_vocab[t][
                    rng.choice(spec.topic_words, size=int(mask.sum()), p=topic_p)
                ]
            qrels[topic][docids[doc]] = 1
            sentence_qrels[topic][docids[doc]] = {int(s): 1 for s in sorted(planted)}
    sentences = np.split(words, sentence_starts[1:])
    documents = []
    for doc in range(n):
        rows = range(doc_offsets[doc], doc_offsets[doc + 1])
        text = [" ".join(sentences[r]).capitalize() + "." for r in rows]
        documents.append(Document(docid=docids[doc], text=" ".join(text), title="", sentences=tuple(text)))
    del sentence_doc
    topics = {topic: " ".join(topic_vocab[t][:4]) for t, topic in enumerate(topic_ids)}
    dataset = Dataset(collection=Collection(documents, source="synthetic"), qrels=qrels, topics=topics, name="demo")
    return dataset, sentence_qrels


def demo_dataset() -> Dataset:
    """The built-in demo: 2,000 synthetic documents, three topics of 2%, 5% and 10% prevalence (seed 0)."""
    return make_synthetic_dataset(SyntheticSpec())[0]


# ---- the scale path: features (and optionally docs.jsonl.gz) of collections of any size, generated in chunks -----


@dataclass(frozen=True)
class ScaleSpec:
    """A large synthetic collection with one planted topic.

    Background: `themes` topical themes, each a Zipfian distribution over its own random ordering of the vocabulary,
    plus a shared Zipfian "function word" component (`common_share` of the words). A document is a mixture of
    `themes_per_document` themes (each sentence draws one). In a relevant document (probability `prevalence`) each
    sentence is, with probability `topic_sentence_share`, drawn from the planted topic's own theme instead, and at
    least one is; those sentences are the relevant ones. The topic theme shares the vocabulary (its frequent words
    are ordinary words of other themes), so relevance is learnable but not trivially keyed by one word.
    """

    n_documents: int = 100_000
    prevalence: float = 0.01
    vocabulary_size: int = 50_000
    themes: int = 100
    themes_per_document: int = 3
    common_share: float = 0.4
    zipf_exponent: float = 1.05
    sentences_per_document: tuple[int, int] = (2, 10)
    words_per_sentence: tuple[int, int] = (5, 20)
    topic_sentence_share: float = 0.3
    chunk_documents: int = 50_000
    seed: int = 0


@dataclass(frozen=True)
class SyntheticChunk:
    """Documents [start, start + n) of a scale collection as token ids, one run of tokens per sentence."""

    start: int
    sentence_counts: np.ndarray  # per document
    sentence_lengths: np.ndarray  # words per sentence
    tokens: np.ndarray  # int32 vocabulary ids, sentences concatenated
    relevant: np.ndarray  # bool per document
    planted: np.ndarray  # bool per sentence: drawn from the topic's theme (a relevant sentence)


@dataclass(frozen=True)
class ScaleCollection:
    """Features of a scale collection with its planted topic's ground truth."""

    features: object  # tarsim.features.matrices.Features (imported lazily: features imports the segmenter)
    docids: list[str]
    relevant: np.ndarray  # bool per document
    sentence_labels: np.ndarray  # int8 per sentence row: 1 for planted (relevant) sentences
    query: str
    topic: str = "planted"


class _ScaleModel:
    """The fixed parts of a scale collection: vocabulary, theme orderings, Zipf CDF, the topic's query."""

    def __init__(self, spec: ScaleSpec) -> None:
        if spec.n_documents < 1 or not 0.0 < spec.prevalence < 1.0:
            raise ValueError("n_documents must be >= 1 and prevalence in (0, 1)")
        rng = np.random.default_rng([spec.seed, 0])
        self.vocabulary = make_vocabulary(spec.vocabulary_size, rng)
        ranks = np.arange(1, spec.vocabulary_size + 1, dtype=np.float64)
        p = ranks**-spec.zipf_exponent
        self.cdf = np.cumsum(p / p.sum())
        # Row 0: the shared function-word ordering; rows 1..themes: background themes; the last row: the topic.
        self.orderings = np.stack(
            [np.arange(spec.vocabulary_size, dtype=np.int32)]
            + [rng.permutation(spec.vocabulary_size).astype(np.int32) for _ in range(spec.themes + 1)]
        )
        self.topic_theme = spec.themes + 1
        self.query = " ".join(self.vocabulary[self.orderings[self.topic_theme, :4]])

    def zipf_ranks(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.minimum(np.searchsorted(self.cdf, rng.random(size)), len(self.cdf) - 1).astype(np.int32)


def iter_scale_chunks(spec: ScaleSpec) -> Iterator[SyntheticChunk]:
    """The collection in chunks of `chunk_documents` documents (vectorised; deterministic given the spec)."""
    model = _ScaleModel(spec)
    yield from _chunks(spec, model)


def _chunks(spec: ScaleSpec, model: _ScaleModel) -> Iterator[SyntheticChunk]:
    for index, start in enumerate(range(0, spec.n_documents, spec.chunk_documents)):
        rng = np.random.default_rng([spec.seed, 1, index])
        n = min(spec.chunk_documents, spec.n_documents - start)
        counts = rng.integers(spec.sentences_per_document[0], spec.sentences_per_document[1] + 1, size=n)
        s = int(counts.sum())
        sentence_doc = np.repeat(np.arange(n), counts)
        lengths = rng.integers(spec.words_per_sentence[0], spec.words_per_sentence[1] + 1, size=s)
        doc_themes = rng.integers(1, spec.themes + 1, size=(n, spec.themes_per_document))
        theme = doc_themes[sentence_doc, rng.integers(0, spec.themes_per_document, size=s)]
        relevant = rng.random(n) < spec.prevalence
        planted = relevant[sentence_doc] & (rng.random(s) < spec.topic_sentence_share)
        firsts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rel_docs = np.flatnonzero(relevant)
        forced = firsts[rel_docs] + (rng.random(len(rel_docs)) * counts[rel_docs]).astype(np.int64)
        planted[forced] = True
        theme[planted] = model.topic_theme
        token_theme = np.repeat(theme, lengths)
        token_theme[rng.random(len(token_theme)) < spec.common_share] = 0
        tokens = model.orderings[token_theme, model.zipf_ranks(rng, len(token_theme))]
        yield SyntheticChunk(start, counts, lengths.astype(np.int32), tokens, relevant, planted)


def _count_rows(row_of_token: np.ndarray, tokens: np.ndarray, rows: int, columns: int) -> sp.csr_matrix:
    """rows x columns CSR of token counts (one sort of row * columns + token keys)."""
    keys, counts = np.unique(row_of_token.astype(np.int64) * columns + tokens, return_counts=True)
    row = keys // columns
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=rows), out=indptr[1:])
    return sp.csr_matrix(((counts.astype(np.int32)), (keys % columns).astype(np.int32), indptr), shape=(rows, columns))


def make_scale_collection(spec: ScaleSpec | None = None) -> ScaleCollection:
    """Features (float32 CSR, BMI weighting, no stemming: the words are made up) of a scale collection.

    Counts are built per chunk from token ids, so no text is materialised and memory stays proportional to the
    collection's non-zeros.
    """
    from tarsim.features.build import features_from_counts
    from tarsim.features.matrices import FeatureSettings

    spec = spec or ScaleSpec()
    model = _ScaleModel(spec)
    v = spec.vocabulary_size
    sentence_parts, document_parts, counts, lengths, relevant, planted = [], [], [], [], [], []
    for chunk in _chunks(spec, model):
        n, s = len(chunk.sentence_counts), len(chunk.sentence_lengths)
        sentence_of_token = np.repeat(np.arange(s, dtype=np.int64), chunk.sentence_lengths)
        sentence_parts.append(_count_rows(sentence_of_token, chunk.tokens, s, v))
        doc_of_token = np.repeat(np.repeat(np.arange(n, dtype=np.int64), chunk.sentence_counts), chunk.sentence_lengths)
        del sentence_of_token
        document_parts.append(_count_rows(doc_of_token, chunk.tokens, n, v))
        counts.append(chunk.sentence_counts)
        lengths.append(chunk.sentence_lengths)
        relevant.append(chunk.relevant)
        planted.append(chunk.planted)
    sentence_counts = sp.vstack(sentence_parts, format="csr")
    del sentence_parts
    document_counts = sp.vstack(document_parts, format="csr")
    del document_parts
    offsets = np.zeros(spec.n_documents + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=offsets[1:])
    features = features_from_counts(
        sentence_counts,
        document_counts,
        offsets,
        np.concatenate(lengths),
        model.vocabulary,
        FeatureSettings(stem=False),
    )
    return ScaleCollection(
        features=features,
        docids=[f"s{i:08d}" for i in range(spec.n_documents)],
        relevant=np.concatenate(relevant),
        sentence_labels=np.concatenate(planted).astype(np.int8),
        query=model.query,
    )


def write_scale_collection(spec: ScaleSpec, directory: Path) -> Path:
    """The same collection as files tarsim reads: docs.jsonl.gz (with sentences), qrels.txt, topics.tsv and
    sentence_qrels.txt (the planted sentences), written chunk by chunk."""
    import gzip
    import json

    model = _ScaleModel(spec)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with (
        gzip.open(directory / "docs.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as docs,
        open(directory / "qrels.txt", "w", encoding="utf-8") as qrels,
        open(directory / "sentence_qrels.txt", "w", encoding="utf-8") as sentence_qrels,
    ):
        for chunk in _chunks(spec, model):
            words = model.vocabulary[chunk.tokens]
            sentences = np.split(words, np.cumsum(chunk.sentence_lengths)[:-1])
            first = 0
            for i, count in enumerate(chunk.sentence_counts):
                docid = f"s{chunk.start + i:08d}"
                text = [" ".join(sentences[r]).capitalize() + "." for r in range(first, first + count)]
                docs.write(json.dumps({"docid": docid, "text": " ".join(text), "sentences": text}) + "\n")
                if chunk.relevant[i]:
                    qrels.write(f"planted 0 {docid} 1\n")
                    for k in np.flatnonzero(chunk.planted[first : first + count]):
                        sentence_qrels.write(f"planted {docid} {k} 1\n")
                first += count
    (directory / "topics.tsv").write_text(f"planted\t{model.query}\n", encoding="utf-8")
    return directory
