"""Feedback strategies as objects: what the reviewer is shown, what the learner trains on, how documents are ranked.

A ReviewStrategy combines one of each, chosen from a ReviewConfig (`feedback`, `train_on`, `ranking_unit`), so
the review loop asks the strategy instead of branching on strings. Adding a strategy is adding a class here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from tarsim.config.review import ReviewConfig
from tarsim.effort_models import sentences_read
from tarsim.features.matrices import Features
from tarsim.simulator.oracle import ReviewerErrors


@dataclass(slots=True)
class Item:
    """One document taken for review: its row, the rows of its sentences, their labels, and its best sentence."""

    doc: int
    first: int  # row of its first sentence
    labels: np.ndarray  # oracle labels of its sentences, in reading order
    best: int  # row of its highest-scoring sentence (the first when no sentence scores exist)
    grade: int  # qrels grade of the document
    words: np.ndarray  # words of each of its sentences, in reading order


@dataclass(slots=True)
class Presentation:
    """What the reviewer saw and said: the shown sentence row (None: the whole document), label, reading cost."""

    shown: int | None
    label: int
    read: int  # sentences read
    words: int  # words read


@dataclass
class TrainingSet:
    """The judged units the learner trains on: documents and sentences (rows), with the reviewer's labels."""

    docs: list[int] = field(default_factory=list)
    doc_labels: list[int] = field(default_factory=list)
    sentences: list[int] = field(default_factory=list)
    sentence_labels: list[int] = field(default_factory=list)

    @property
    def labels(self) -> list[int]:
        return self.doc_labels + self.sentence_labels


# ---- what is shown --------------------------------------------------------------------------------------------


class ShownUnit:
    """What the reviewer is shown of a document, and the label and reading effort that result."""

    name = ""
    needs_sentence_scores = False

    def present(self, item: Item, features: Features, errors: ReviewerErrors, rng: np.random.Generator) -> Presentation:
        raise NotImplementedError  # pragma: no cover - interface


class ShowDocument(ShownUnit):
    """The whole document: read in order up to the first relevant sentence (or to the end), judged as a whole."""

    name = "document"

    def present(self, item, features, errors, rng):
        relevant = item.grade > 0
        label = errors.judge(int(relevant), rng)
        read = sentences_read(item.labels, relevant)
        total = sum(item.words[:read].tolist())  # words are integers (every build, the cache checks); no numpy call
        return Presentation(None, label, read, total)


class ShowSentence(ShownUnit):
    """The document's best sentence alone, judged by its own (oracle) label."""

    name = "sentence"
    needs_sentence_scores = True

    def present(self, item, features, errors, rng):
        label = errors.judge(int(item.labels[item.best - item.first]), rng)
        return Presentation(item.best, label, 1, int(item.words[item.best - item.first]))


# ---- what is trained on ---------------------------------------------------------------------------------------


class TrainedUnit:
    """Which unit a judgment adds to the training set, and what the presumed non-relevant units are."""

    name = ""
    needs_sentence_scores = False

    def units(self, features: Features) -> sp.csr_matrix:
        """The matrix presumed non-relevant units are drawn from."""
        raise NotImplementedError  # pragma: no cover - interface

    def presumed_record(self, presumed: np.ndarray, docids: list[str], features: Features) -> list:
        """How the ledger's round record names the presumed non-relevant units."""
        raise NotImplementedError  # pragma: no cover - interface

    def learn(self, training: TrainingSet, item: Item, shown: Presentation) -> dict:
        """Add the judged unit to `training`; returns fields the judgment record adds."""
        raise NotImplementedError  # pragma: no cover - interface


class TrainOnDocuments(TrainedUnit):
    """The judged document, with the reviewer's label."""

    name = "document"

    def units(self, features):
        return features.documents

    def presumed_record(self, presumed, docids, features):
        return [docids[i] for i in presumed]

    def learn(self, training, item, shown):
        training.docs.append(item.doc)
        training.doc_labels.append(shown.label)
        return {}


class TrainOnSentences(TrainedUnit):
    """One sentence: the shown one, else the one that convinced the reviewer, else the document's best."""

    name = "sentence"
    needs_sentence_scores = True

    def units(self, features):
        return features.sentences

    def presumed_record(self, presumed, docids, features):
        offsets = features.sentence_offsets
        owner = np.searchsorted(offsets, presumed, side="right") - 1
        return [[docids[d], int(i - offsets[d])] for i, d in zip(presumed, owner, strict=True)]

    def learn(self, training, item, shown):
        if shown.shown is not None:
            unit = shown.shown
        elif shown.label and item.grade > 0 and item.labels[shown.read - 1] > 0:
            unit = item.first + shown.read - 1  # the sentence that convinced the reviewer
        else:
            unit = item.best
        training.sentences.append(unit)
        training.sentence_labels.append(shown.label)
        return {"trained_sentence": unit - item.first}  # what the learner learned from


# ---- how documents are ranked ---------------------------------------------------------------------------------


class RankingUnit:
    """Which matrices the learner scores and how document scores follow from them."""

    name = ""
    needs_sentence_scores = False

    def targets(self, features: Features) -> list[sp.csr_matrix]:
        """Matrices to score besides the sentences (scored first when any strategy needs them)."""
        raise NotImplementedError  # pragma: no cover - interface

    def document_scores(self, scored: list[np.ndarray], sentence_scores: np.ndarray | None, features: Features):
        raise NotImplementedError  # pragma: no cover - interface


class RankDocuments(RankingUnit):
    """Each document by its own score."""

    name = "document"

    def targets(self, features):
        return [features.documents]

    def document_scores(self, scored, sentence_scores, features):
        return scored[-1]


class RankByBestSentence(RankingUnit):
    """Each document by its best sentence's score."""

    name = "sentence"
    needs_sentence_scores = True

    def targets(self, features):
        return []

    def document_scores(self, scored, sentence_scores, features):
        return np.maximum.reduceat(sentence_scores, features.sentence_offsets[:-1])


SHOWN = {unit.name: unit for unit in (ShowDocument(), ShowSentence())}
TRAINED = {unit.name: unit for unit in (TrainOnDocuments(), TrainOnSentences())}
RANKED = {unit.name: unit for unit in (RankDocuments(), RankByBestSentence())}


@dataclass(frozen=True)
class ReviewStrategy:
    """What is shown, what is trained on, and how documents are ranked, in one review."""

    shown: ShownUnit
    trained: TrainedUnit
    ranked: RankingUnit

    @classmethod
    def from_config(cls, config: ReviewConfig) -> ReviewStrategy:
        """The strategy a configuration names (feedback, train_on, ranking_unit; validated by ReviewConfig)."""
        return cls(SHOWN[config.feedback], TRAINED[config.train_on], RANKED[config.ranking_unit])

    @property
    def needs_sentence_scores(self) -> bool:
        """Whether the learner must score every sentence."""
        return any(part.needs_sentence_scores for part in (self.shown, self.trained, self.ranked))

    @property
    def needs_all_sentences(self) -> bool:
        """Whether the review needs every sentence row built; otherwise those of the judged documents suffice."""
        return self.needs_sentence_scores


LAZY_SENTENCE_ORACLES = ("inherit", "classifier")
"""Oracles that label a document's sentences from its own rows, so they work on lazily segmented features."""


def needs_all_sentences(config: ReviewConfig) -> bool:
    """Whether a review needs every sentence built up front (else the sentences of judged documents suffice)."""
    return ReviewStrategy.from_config(config).needs_all_sentences or config.sentence_oracle not in LAZY_SENTENCE_ORACLES
