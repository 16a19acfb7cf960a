"""Synthetic collections with planted topics: the built-in demo data and the scale benchmark's input.

Words come from a Zipfian background vocabulary of made-up pronounceable tokens; each topic owns a small set
of its own words. A document is a sequence of sentences; in a document relevant to a topic, a few sentences
(at least one) mix in the topic's words, so relevant documents, relevant sentences and a query (the topic's
most frequent words) are all known by construction. Generation is vectorised and fully determined by `seed`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
