"""Sentence relevance oracles and the simulated reviewer's (optional) mistakes.

- `inherit`: every sentence has its document's label.
- `classifier`: a gold classifier trained once on the topic's complete document labels scores the sentences
  of relevant documents; those scoring at least `threshold` are relevant, and so is each relevant document's
  best sentence. Sentences of non-relevant documents are never relevant.
- explicit sentence qrels (a file): listed sentences with relevance > 0 are relevant, all others are not.
"""

from __future__ import annotations

import threading
import weakref
from abc import abstractmethod
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np

from tarsim.components import Param, kind, register
from tarsim.data.collection import Collection
from tarsim.data.lines import iter_lines, parse_int
from tarsim.data.qrels import SentenceQrels, read_sentence_qrels
from tarsim.errors import ConfigError, InputError
from tarsim.features.matrices import Features


class DocumentSentenceLabels:
    """The oracle's labels of one topic's sentences, asked per document as the review judges it."""

    def of(self, features: Features, doc: int) -> np.ndarray:  # pragma: no cover - interface
        """Labels (int8 0/1) of the sentences of document `doc`, in reading order."""
        raise NotImplementedError

    def needs_rows(self, docs: np.ndarray) -> np.ndarray:
        """Which of these documents' sentence rows `of` will score (vectorised ahead in one batch)."""
        return docs[:0]

    def fit_in_background(self) -> bool:
        """Start making the oracle on a thread, where it is made so (FittingLabels); whether it is."""
        return False

    def pending(self) -> bool:
        """Whether the oracle is still being made on its thread; `of` then waits for it."""
        return False


@dataclass(frozen=True)
class SentenceLabels(DocumentSentenceLabels):
    """0/1 relevance of every sentence row of the features, for one topic (sentence qrels, planted labels)."""

    labels: np.ndarray  # int8, one per sentence row

    def of(self, features: Features, doc: int) -> np.ndarray:
        rows = features.sentences_of(doc)
        return self.labels[rows.start : rows.stop]


@dataclass(frozen=True)
class InheritedLabels(DocumentSentenceLabels):
    """Each sentence has its document's label."""

    document_labels: np.ndarray

    def of(self, features: Features, doc: int) -> np.ndarray:
        return np.full(len(features.sentence_words_of(doc)), self.document_labels[doc], dtype=np.int8)


class _ScoresRelevantDocuments(DocumentSentenceLabels):
    """Labels whose `of` scores the sentence rows of relevant documents only (`document_labels` > 0)."""

    document_labels: np.ndarray

    def needs_rows(self, docs: np.ndarray) -> np.ndarray:
        return docs[self.document_labels[docs] > 0]


@dataclass(frozen=True)
class ClassifiedLabels(_ScoresRelevantDocuments):
    """The gold classifier's sentence labels: for features with every sentence, every relevant document's labels
    made when the oracle is built; for lazily built features, a document's when it is judged, from its rows. A
    sentence's score depends on its own row only, so built whole or lazily the features give the same labels."""

    coef: np.ndarray  # float32
    intercept: float
    threshold: float
    document_labels: np.ndarray
    relevant_labels: dict[int, np.ndarray] | None = field(default=None, compare=False, repr=False)
    """Sentence labels of each relevant document (read-only), when built from features with every sentence."""

    def of(self, features: Features, doc: int) -> np.ndarray:
        if not self.document_labels[doc] > 0:
            return np.zeros(len(features.sentence_words_of(doc)), dtype=np.int8)
        if self.relevant_labels is not None:
            return self.relevant_labels[doc]
        scores = np.asarray(features.sentence_rows_of(doc) @ self.coef).ravel() + self.intercept
        return _classified(scores, self.threshold)


class FittingLabels(_ScoresRelevantDocuments):
    """ClassifiedLabels whose gold classifier the review may have fitted on a thread (`fit_in_background`, after its
    first training) while it segments the documents it ranks first (ReviewSimulation._while_oracle_fits); else it
    is fitted where first asked for. `of` waits for the fit; the labels are the same either way.

    The fit holds learners.FIT_LOCK, as every learner's does (_fit_classifier_labels): liblinear draws from one
    random generator per process, reseeded at each fit, so fits on two threads at once would change each other's
    results. Used where there is segmenting to do meanwhile (_fit_on_a_thread): large collections, where the fit
    takes 0.2 s (Reuters-21578)."""

    def __init__(self, fit: Callable[[], ClassifiedLabels], document_labels: np.ndarray) -> None:
        self.document_labels = document_labels
        self._fit: Callable[[], ClassifiedLabels] | None = fit  # dropped once fitted: it holds the features
        self._labels: ClassifiedLabels | None = None
        self._future: Future[ClassifiedLabels] | None = None  # the thread's, while there is one
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one fit, whichever threads ask

    def _fitted_now(self) -> ClassifiedLabels:
        """Fit, keep the labels and drop what made them (a failure is not kept: the next ask fits again)."""
        assert self._fit is not None
        labels = self._fit()
        self._labels, self._fit = labels, None
        return labels

    def fit_in_background(self) -> bool:
        with self._lock:
            if self._labels is None and self._thread is None:
                future: Future[ClassifiedLabels] = Future()

                def run() -> None:
                    try:
                        future.set_result(self._fitted_now())
                    except BaseException as error:  # handed to the review, raised where it asks for the labels
                        future.set_exception(error)

                self._future = future
                self._thread = threading.Thread(target=run, name="tarsim-gold-oracle", daemon=True)
                self._thread.start()
            return self._thread is not None

    def fitted(self) -> ClassifiedLabels:
        """The oracle: fitted here if no thread fits it, else once the thread is done (and has ended, so that
        forking is safe again after)."""
        with self._lock:
            if self._labels is not None:
                return self._labels
            if self._thread is None:
                return self._fitted_now()
            thread, future = self._thread, self._future
            assert future is not None
            try:
                return future.result()
            finally:
                thread.join()
                self._thread = self._future = None  # done; after a failure, the next ask fits here

    def pending(self) -> bool:
        future = self._future
        return future is not None and not future.done()

    def of(self, features: Features, doc: int) -> np.ndarray:
        return self.fitted().of(features, doc)

    def __getattr__(self, name: str):  # coef, intercept, threshold, relevant_labels: the fitted oracle's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.fitted(), name)


def _fit_on_a_thread(features: Features) -> bool:
    """Whether the review has segmenting to do while the oracle fits: a collection segmented as judged (a large one:
    a smaller one forks its background segmenting at the review's first ranking, which no other thread may be alive
    for) whose sentences no earlier run stored. With them stored, a thread only costs (warm Reuters-21578 runs were
    0.03-0.05 s slower with it, cold ones 0.04-0.18 s faster: docs/speed.md §12)."""
    lazy = features.lazy
    return lazy is not None and lazy.segments_as_judged and lazy.known_documents == 0


def _classified(scores: np.ndarray, threshold: float) -> np.ndarray:
    """A relevant document's sentence labels from their scores: at or above the threshold, and its best sentence."""
    labels = (scores >= threshold).astype(np.int8)
    if len(scores):
        labels[scores >= scores.max()] = 1
    return labels


def inherit_labels(features: Features, document_labels: np.ndarray) -> InheritedLabels:
    """Each sentence takes its document's label."""
    return InheritedLabels(document_labels)


def classifier_labels(
    features: Features, document_labels: np.ndarray, threshold: float = 0.0, random_state: int = 0
) -> ClassifiedLabels | FittingLabels | InheritedLabels:
    """The gold-classifier oracle (DESIGN.md §3), trained once on all document labels of the topic.

    Remembered per features object (a sweep worker keeps a collection's features for all its runs): the runs of
    one topic that differ only in policy, priors or strategy get the same oracle without fitting it again."""
    if document_labels.min() == document_labels.max():
        return inherit_labels(features, document_labels)
    memo = _ORACLES.setdefault(features, {})
    key = (np.asarray(document_labels, dtype=np.int8).tobytes(), float(threshold), random_state)
    if key not in memo:
        while len(memo) >= ORACLES_REMEMBERED:
            memo.pop(next(iter(memo)))
        labels = _read_only(np.array(document_labels))
        if _fit_on_a_thread(features):
            memo[key] = FittingLabels(lambda: _fit_classifier_labels(features, labels, threshold, random_state), labels)
        else:
            memo[key] = _fit_classifier_labels(features, labels, threshold, random_state)
    return memo[key]


ORACLES_REMEMBERED = 16
"""Gold oracles kept per features object (each holds one coefficient vector and its relevant sentences' labels)."""

_ORACLES: weakref.WeakKeyDictionary[Features, dict] = weakref.WeakKeyDictionary()
"""The oracles fitted on each features object (by identity), dropped with the features."""


def _fit_classifier_labels(
    features: Features, document_labels: np.ndarray, threshold: float, random_state: int
) -> ClassifiedLabels:
    from tarsim.learners.estimators import BMILogisticRegression
    from tarsim.learners.named import FIT_LOCK

    with FIT_LOCK:  # whichever thread fits it (FittingLabels), as the review's own fits
        model = BMILogisticRegression(random_state=random_state).fit(features.documents, document_labels)
    coef, intercept = model.coef_.ravel().astype(np.float32), model.intercept_[0]
    scores = _relevant_sentence_scores(features, document_labels, coef, intercept)
    labels = None if scores is None else {doc: _read_only(_classified(s, threshold)) for doc, s in scores.items()}
    return ClassifiedLabels(coef, intercept, threshold, document_labels, labels)


def _read_only(array: np.ndarray) -> np.ndarray:
    """The array, made read-only: `of` hands the same labels to every judgment of its document."""
    array.flags.writeable = False
    return array


_ROWS_AT_ONCE = 1 << 16


def _relevant_sentence_scores(
    features: Features, document_labels: np.ndarray, coef: np.ndarray, intercept: float
) -> dict[int, np.ndarray] | None:
    """The sentence scores of every relevant document in one product (slicing a document's rows costs tens of
    microseconds a judgment); None for features without every sentence. Each score is the float scoring the
    document's rows alone gives: scipy's CSR product sums a row's terms in the same order either way."""
    if features.sentences is None:
        return None
    docs = np.flatnonzero(document_labels > 0)
    starts = features.sentence_offsets[docs]
    counts = features.sentence_offsets[docs + 1] - starts
    bounds = np.concatenate([[0], np.cumsum(counts)])
    rows = np.arange(bounds[-1]) - np.repeat(bounds[:-1] - starts, counts)
    chunks = [rows[i : i + _ROWS_AT_ONCE] for i in range(0, len(rows), _ROWS_AT_ONCE)]  # a bounded copy of rows
    products = [np.asarray(features.sentences[chunk] @ coef).ravel() for chunk in chunks]
    scores = (np.concatenate(products) if products else np.zeros(0, dtype=np.float32)) + intercept
    ends = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
    return {doc: scores[a:b] for doc, (a, b) in zip(docs.tolist(), ends, strict=True)}


def explicit_labels(
    path: Path, topic: str, collection: Collection, features: Features, sentence_qrels: SentenceQrels | None = None
) -> SentenceLabels:
    """Labels from a sentence qrels file; a line naming an unknown docid or a sentence past the end is an error."""
    if not features.has_all_sentences:
        raise ConfigError("a sentence qrels oracle needs features with every sentence (build_features(sentences=True))")
    qrels = sentence_qrels if sentence_qrels is not None else read_sentence_qrels(path)
    labels = np.zeros(features.sentences.shape[0], dtype=np.int8)
    if topic not in qrels:
        return SentenceLabels(labels)
    for number, line in iter_lines(path):
        fields = line.split()
        if fields[0] != topic:
            continue
        docid, index = fields[1], parse_int(path, number, fields[2], "sentence_index")
        if docid not in collection:
            raise InputError(path, number, f"docid {docid!r} is not in the collection")
        doc = collection.position(docid)
        count = int(features.sentence_offsets[doc + 1] - features.sentence_offsets[doc])
        if index >= count:
            raise InputError(
                path, number, f"sentence_index {index} is past the end of document {docid!r} ({count} sentence(s))"
            )
        labels[features.sentence_offsets[doc] + index] = 1 if int(fields[3]) > 0 else 0
    return SentenceLabels(labels)


class SentenceOracle:
    """Decides which sentences of a topic are relevant (the truth a sentence-level reviewer judges against)."""

    name: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()

    @abstractmethod
    def labels(
        self,
        topic: str,
        collection: Collection,
        features: Features,
        document_labels: np.ndarray,
        threshold: float,
        random_state: int,
    ) -> DocumentSentenceLabels:  # pragma: no cover - interface
        raise NotImplementedError


@register("oracle")
class InheritOracle(SentenceOracle):
    """Every sentence has its document's label."""

    name = "inherit"

    def labels(self, topic, collection, features, document_labels, threshold, random_state):
        return inherit_labels(features, document_labels)


@register("oracle")
class ClassifierOracle(SentenceOracle):
    """A gold classifier trained on the topic's document labels marks sentences of relevant documents
    (score >= the oracle threshold, and each relevant document's best sentence)."""

    name = "classifier"
    settings_elsewhere: ClassVar[dict[str, str]] = {
        "threshold": "--oracle-threshold, oracle_threshold in a sweep's [review] and in Python"
    }

    def labels(self, topic, collection, features, document_labels, threshold, random_state):
        return classifier_labels(features, document_labels, threshold, random_state)


@register("oracle")
class FileOracle(SentenceOracle):
    """Explicit sentence qrels: listed sentences with relevance > 0 are relevant, all others are not."""

    name = "file"
    form = "FILE"
    params = (
        Param(
            "path",
            str,
            None,
            "a sentence qrels file (topic docid sentence_index relevance)",
            required=True,
            accepted_text="an existing file",
        ),
    )

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"sentence oracle {path!r}: no such sentence qrels file")

    def labels(self, topic, collection, features, document_labels, threshold, random_state):
        return explicit_labels(self.path, topic, collection, features)


def make_sentence_labels(
    oracle: str,
    topic: str,
    collection: Collection,
    features: Features,
    document_labels: np.ndarray,
    threshold: float = 0.0,
    random_state: int = 0,
) -> DocumentSentenceLabels:
    """`inherit`, `classifier`, the path of a sentence qrels file, or a plugin's oracle."""
    return kind("oracle").make(oracle).labels(topic, collection, features, document_labels, threshold, random_state)


@dataclass(frozen=True)
class ReviewerErrors:
    """A fallible reviewer: flips a relevant label with probability `false_negative` and a non-relevant one
    with probability `false_positive`, drawing from its own seeded generator."""

    false_negative: float = 0.0
    false_positive: float = 0.0

    def __post_init__(self) -> None:
        for name in ("false_negative", "false_positive"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"reviewer {name} rate must be in [0, 1], got {value}")

    def judge(self, truth: int, rng: np.random.Generator) -> int:
        """The label the reviewer gives to an item whose true (oracle) label is `truth`."""
        if truth:
            return 0 if self.false_negative and rng.random() < self.false_negative else 1
        return 1 if self.false_positive and rng.random() < self.false_positive else 0
