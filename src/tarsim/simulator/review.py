"""One simulated review of one topic: a SimPy environment with a learner process and reviewer processes.

The clock is reviewer time in seconds. The learner trains (taking `retrain_seconds` of simulated time),
ranks the pool and publishes a ranking; reviewers take the next unjudged item of the current ranking, spend
the time model's seconds on it, and record a judgment in the ledger. Synchronous mode (BMI, the default)
publishes a batch of B items and retrains when all B are judged; asynchronous mode publishes the whole pool in
rank order and retrains after every B new judgments while reviewers keep working from the previous ranking.

What is shown, trained on and ranked is the configuration's ReviewStrategy (tarsim.simulator.strategies).
`rounds()` steps the SimPy environment to the end of each training round and yields a RoundState (the ledger so
far included); `run()` drives it to the end. The last round's state (a stop reason set) comes once the review has
ended, its ledger written with its end record; leaving `rounds()` before that (or an error in it) drops the
unfinished ledger: only a review run to its end writes one. Stopping rules of the configuration are checked after
every judgment (tarsim.stopping.online) and end the review where replaying them on the ledger would.
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cache, partial
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
import simpy

from tarsim.components import kind
from tarsim.config.review import Budget, ReviewConfig
from tarsim.data.score_log import ScoreLog, score_log_path
from tarsim.effort_models import make_effort_model
from tarsim.errors import ConfigError, TarsimError
from tarsim.features.matrices import Features
from tarsim.learners.named import check_learner, fit_and_score, make_learner, seeded
from tarsim.policies import make_batch_schedule, make_selection_policy
from tarsim.policies.seeding import check_prior_idx, draw_priors, query_text
from tarsim.policies.selection import RandomSampling
from tarsim.simulator.ledger import LedgerWriter, MemoryLedgerWriter
from tarsim.simulator.oracle import DocumentSentenceLabels, ReviewerErrors
from tarsim.simulator.rounds import LedgerSoFar, RoundState
from tarsim.simulator.strategies import Item, ReviewStrategy, TrainingSet
from tarsim.simulator.training_rows import DocumentTrainingRows
from tarsim.stopping.online import OnlineStop, OnlineStopping
from tarsim.stopping.rules import ReplayContext, needs_scores, parse_stopping_rule

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

_STREAMS = {"policy": 1, "presumed": 2, "reviewer": 3, "seeding": 4}


def stream(seed: int, topic: str, purpose: str) -> np.random.Generator:
    """An independent random stream per (seed, topic, purpose), stable across processes and platforms."""
    return np.random.default_rng([seed, zlib.crc32(topic.encode("utf-8")), _STREAMS[purpose]])


def prior_rows(
    config: ReviewConfig, topic: str, grades: np.ndarray, unlabelled_rows: tuple[int, ...] = ()
) -> list[int]:
    """The rows judged first as priors (none unless the configuration's seeding is `priors`): prior_idx as given,
    or the random draw of asreview simulate from the topic's relevant (grade > 0) and other rows."""
    if config.seeding.kind != "priors":
        return []
    if config.prior_idx:
        return check_prior_idx(config.prior_idx, len(grades), unlabelled_rows)
    seed = config.effective_prior_seed
    return draw_priors(grades > 0, config.n_prior_included, config.n_prior_excluded, seed, topic)


@dataclass
class Ranking:
    """What the learner last published: items in review order and the sentence scores behind them."""

    round: int
    order: np.ndarray
    sentence_scores: np.ndarray | None
    position: int = 0
    prior: bool = False  # the prior records, judged before the first training (`"prior": true` in the ledger)


@dataclass
class TopicReview:
    """Inputs of one topic's review."""

    topic: str
    query: str
    grades: np.ndarray  # qrels grade per document (0 when unjudged)
    sentence_labels: DocumentSentenceLabels
    docids: list[str]
    unlabelled_rows: tuple[int, ...] = ()  # file rows left out of the collection: prior_idx counts them


SEGMENT_AHEAD_DOCUMENTS = 1000
"""How far down its first ranking a review segments while the gold oracle fits (ReviewSimulation._while_oracle_fits;
it stops when the fit is done, after 500-600 Reuters stories): further down, fewer of the documents are judged
(Reuters-21578 gold: 164 of the top 200, 250 of the top 400, 313 of the top 800)."""

_FREE, _IN_FLIGHT, _JUDGED = 0, 1, 2
"""A document's status in _State.status."""


@dataclass
class _State:
    status: bytearray  # _FREE, _IN_FLIGHT or _JUDGED per document (set per judgment in O(1), read as numpy per round)
    training: TrainingSet = field(default_factory=TrainingSet)
    completed: int = 0
    relevant_found: int = 0
    spent: float = 0.0
    stopped: str | None = None
    stopped_at: float | None = None  # when the last reviewer stopped: the review's end (a pending retrain ends later)
    stop: OnlineStop | None = None  # the stopping rule that fired, and where
    ranking: Ranking | None = None
    available: int = 0  # documents neither judged nor in flight: the stop test reads it in O(1), not O(pool)


class ReviewSimulation:
    """Runs one topic's review and writes every judgment to a ledger writer."""

    def __init__(
        self,
        features: Features,
        review: TopicReview,
        config: ReviewConfig,
        writer: LedgerWriter | MemoryLedgerWriter,
        learner: BaseEstimator | None = None,
    ) -> None:
        self.features = features
        self.review = review
        self.config = config
        self.writer = writer
        try:
            self._set_up(features, review, config, learner)
        except BaseException:  # a review that cannot be set up (a bad setting, Ctrl-C) leaves no partial ledger
            writer.abort()
            raise

    def _set_up(
        self, features: Features, review: TopicReview, config: ReviewConfig, learner: BaseEstimator | None
    ) -> None:
        """The learner, policy, schedules, random streams, clock and processes' state of the review, checked."""
        if learner is not None and config.learner != "bmi":
            raise ConfigError(f"give a learner name (learner={config.learner!r}) or an estimator, not both")
        if learner is not None:  # a fresh copy per topic: a model refitted in place must not carry one topic's fit on
            from sklearn.base import clone

            check_learner(learner)
            learner = seeded(clone(learner), config.seed)
        self.learner = learner if learner is not None else make_learner(config.learner, config.lambda_, config.seed)
        self._learner_is_users = learner is not None or not kind("learner").is_builtin(config.learner)
        check_learner(self.learner)
        self.policy = make_selection_policy(config.policy)
        self._check_batches = not kind("policy").is_builtin(config.policy)  # a plugin's or a session's policy
        self.sizes = make_batch_schedule(config.batch).sizes()
        self.errors = ReviewerErrors(config.false_negative_rate, config.false_positive_rate)
        self.budget_model = make_effort_model(config.max_effort_model)
        self._grades: list[int] = review.grades.astype(np.int64).tolist()  # as int(grades[doc]) reads them
        relevant = int((review.grades > 0).sum())
        self.relevant = relevant
        self.budget = Budget.parse(config.max_effort).effort(relevant) if config.max_effort else None
        self.rng = {name: stream(config.seed, review.topic, name) for name in _STREAMS}
        n = features.n_documents
        self.state = _State(status=bytearray(n), available=n)
        self.strategy = ReviewStrategy.from_config(config)
        # The time model's seconds by words read, memoised (a pure function, and its round() is slow).
        self._seconds_of = cache(partial(config.time_model.seconds, self.strategy.shown.name))
        if self.strategy.needs_all_sentences and not features.has_all_sentences:
            raise ConfigError(
                f"strategy {config.feedback}/{config.train_on} scores every sentence: build the features with "
                "sentences (build_features(sentences=True))"
            )
        self.prior_rows = prior_rows(config, review.topic, review.grades, review.unlabelled_rows)
        query = query_text(review.topic, review.query) if config.seeding.kind == "query" else None
        self.query_row = features.vectorise(query) if query is not None else None
        header = {
            "topic": review.topic,
            "config": config.to_dict(),
            "seed": config.seed,
            "collection_size": n,
            "relevant": relevant,
        }
        self.so_far = LedgerSoFar(header, n)
        wants_scores = config.log_scores or any(needs_scores(parse_stopping_rule(s)) for s in config.stopping)
        self.score_log = ScoreLog(review.topic, n, docids=review.docids) if wants_scores else None
        self.stopping = OnlineStopping(config.stopping, self._replay_context()) if config.stopping else None
        self.env = simpy.Environment()
        self.judgment_count_changed = self.env.event()
        self.ranking_published = self.env.event()
        self._learner_waits_for = 0  # the judgment count the learner waits for (reached: every judgment wakes it)
        self._wake_on_target_only = config.reviewers == 1 or _judging_takes_time(config, self.strategy)
        self._finished_rounds: deque[RoundState] = deque()
        self._training_rows: DocumentTrainingRows | None = None  # the training matrix, grown in place
        self.end: dict | None = None
        self._started = False

    # ---- running -------------------------------------------------------------------------------------------
    def run(self) -> dict:
        """Simulate to the end; returns the end record written to the ledger."""
        for _ in self.rounds():
            pass
        return self.end

    def rounds(self) -> Iterator[RoundState]:
        """Run the review round by round: step the SimPy clock until a training round's batch is done, yield where
        the review stands, and write the end record once nothing is left to happen."""
        if self._started:
            raise ConfigError("a review simulation runs once; make a new ReviewSimulation")
        self._started = True
        self.env.process(self._learner())
        for reviewer in range(self.config.reviewers):
            self.env.process(self._reviewer(reviewer))
        finished, step, peek, infinity = self._finished_rounds, self.env.step, self.env.peek, simpy.core.Infinity
        last: RoundState | None = None
        try:
            while True:
                while not finished and peek() != infinity:
                    step()
                if not finished:
                    break
                state = finished.popleft()
                if state.stopped is not None and not finished:  # the last round: end the review before showing it
                    while peek() != infinity:
                        step()  # judgments other reviewers had in hand end too
                    if not finished:
                        self.end = self._finish()
                        state = self._final(state)
                last = state
                yield state
            if self.end is None:
                self.end = self._finish()
                if last is not None and last.stopped is None:
                    # The review stopped after the last round's batch, while the learner retrained or had ranked
                    # the whole pool (asynchronous retraining): that round's state again, with the review's end.
                    yield self._final(last)
        except BaseException:  # left early (the loop broken, the iterator closed), interrupted or failed
            if self.end is None:
                self.writer.abort()  # an unfinished review leaves no ledger file behind
            raise

    def _finish(self) -> dict:
        reason = self.state.stopped or "pool exhausted"
        if self.stopping is not None and self.state.stop is None:  # a rule may fire at the ledger's end
            self.state.stop = self.stopping.check(self.so_far.view(end={"reason": reason}, stable=False))
        stopped_at = self.state.stopped_at
        end_time = stopped_at if stopped_at is not None else self.env.now
        end = {"reason": reason, "judgments": self.state.completed, "time": round(end_time, 6)}
        if self.state.stop is not None:
            end["stop"] = self.state.stop.to_record()
        if self.config.log_scores and getattr(self.writer, "path", None) is not None:
            self.score_log.save(score_log_path(self.writer.path))  # before the ledger is complete: resume trusts it
        self.writer.finish(end)
        return end

    def _final(self, last: RoundState) -> RoundState:
        """The last round's state once the review has ended: its final counts, and the whole ledger with its end
        record (a loop that stops on it has the review's record, and the ledger is written)."""
        state = self.state
        return replace(
            last,
            stopped=self.end["reason"],
            judgments=state.completed,
            relevant_found=state.relevant_found,
            time=self.end["time"],
            ledger=self.so_far.view(end={"type": "end", **self.end}),
        )

    def _replay_context(self) -> ReplayContext:
        """What replayed stopping rules may need: the collection's docids and the topic's qrels grades."""
        grades = self.review.grades
        judged = {self.review.docids[i]: int(grades[i]) for i in np.flatnonzero(grades)}
        return ReplayContext(docids=self.review.docids, qrels={self.review.topic: judged}, scores=self.score_log)

    def _round_done(self, round_number: int) -> None:
        state = self.state
        self._finished_rounds.append(
            RoundState(
                round=round_number,
                judgments=state.completed,
                relevant_found=state.relevant_found,
                time=round(self.env.now, 6),
                stopped=state.stopped,
                ledger=self.so_far.view(),
            )
        )

    def _stop_reason(self) -> str | None:
        if self.state.relevant_found >= self.relevant and self.config.until == "all-relevant":
            return "all relevant documents presented"
        if self.budget is not None and self.state.spent >= self.budget:
            return f"effort budget {self.config.max_effort} ({self.config.max_effort_model}) reached"
        if self.state.stop is not None:
            return f"stopping rule {self.state.stop.rule} fired"
        if not self.state.available:
            return "pool exhausted"
        return None

    def _candidates(self) -> np.ndarray:
        return np.flatnonzero(np.frombuffer(self.state.status, dtype=np.uint8) == _FREE)

    def _publish(self, ranking: Ranking, size: int | None = None) -> None:
        if self.features.lazy is not None:  # segment (and vectorise) the batch the reviewers are about to take
            batch = ranking.order[: size if size is not None else len(ranking.order)]
            self.features.lazy.prefetch(batch, upcoming=ranking.order)
            self.features.lazy.prefetch_rows(self.review.sentence_labels.needs_rows(batch))
        self.state.ranking = ranking
        event, self.ranking_published = self.ranking_published, self.env.event()
        event.succeed()

    def _judgments_reached(self, target: int):
        self._learner_waits_for = target
        while self.state.completed < target and self.state.stopped is None:
            yield self.judgment_count_changed

    # ---- the learner process -------------------------------------------------------------------------------
    def _learner(self):
        state, config = self.state, self.config
        round_number = 0
        if self.prior_rows:  # all priors are judged, in their order, before the first training
            yield from self._dispatch(Ranking(0, np.array(self.prior_rows), None, prior=True), len(self.prior_rows))
        for docid in config.seeding.docids:
            doc = self._position(docid)
            if state.status[doc] != _JUDGED and state.stopped is None:
                yield from self._dispatch(Ranking(0, np.array([doc]), None), wait_for=1)
        while state.stopped is None and not self._has_positive_and_negative():
            # Random seeding (or a seed set without a relevant document): one random document at a time.
            pick = RandomSampling().select(None, self._candidates(), 1, self.rng["seeding"])
            yield from self._dispatch(Ranking(0, pick, None), wait_for=1)
        while state.stopped is None:
            round_number += 1
            size = next(self.sizes)
            start_count = state.completed
            trained_at = round(self.env.now, 6)
            scores, sentence_scores, training = self._train()  # on the labels known when training starts
            if self.score_log is not None:  # logged before any later judgment is written (ScoreLog.at)
                self.score_log.add(round_number, state.completed, scores)
            if config.retrain_seconds:
                yield self.env.timeout(config.retrain_seconds)
                if state.stopped is not None:  # the review stopped while it retrained: its ranking would serve nothing
                    break
            candidates = self._candidates()
            if not candidates.size:
                break
            k = size if not config.async_retrain else len(candidates)
            order = self.policy.select(scores, candidates, k, self.rng["policy"])
            if self._check_batches:
                order = self._checked_batch(order, k, candidates)
            self._while_oracle_fits(scores, candidates)
            round_record = {
                "type": "round",
                "round": round_number,
                "trained_at": trained_at,
                "time": round(self.env.now, 6),
                "batch_size": size,
                **training,
            }
            self.writer.write(round_record)
            self.so_far.add_round(round_record)
            ranking = Ranking(round_number, np.asarray(order, dtype=np.int64), sentence_scores)
            if config.async_retrain:
                self._publish(ranking, size)
                yield from self._judgments_reached(start_count + size)
            else:
                yield from self._dispatch(ranking, wait_for=len(order))
            self.writer.flush()
            self._round_done(round_number)

    def _checked_batch(self, order, k: int, candidates: np.ndarray) -> np.ndarray:
        """A plugin's or a session's policy's batch, refused in one line unless it is min(k, candidates) distinct
        candidates (one that returned judged, repeated, too many or no documents would silently end or skew the
        review); tarsim's own policies are not checked."""
        name = getattr(self.policy, "name", type(self.policy).__name__)
        batch = np.asarray(order)
        if batch.ndim != 1 or (batch.size and batch.dtype.kind not in "iu"):
            raise ConfigError(f"policy {name!r} returned {batch.dtype} {batch.shape}: expected document indexes")
        want = min(k, len(candidates))
        if len(batch) != want:
            raise ConfigError(
                f"policy {name!r} selected {len(batch)} documents for a batch of {want}: a policy chooses "
                f"min(k, candidates) of the candidates (k = {k}, {len(candidates)} candidates)"
            )
        batch = batch.astype(np.int64, copy=False)
        status = np.frombuffer(self.state.status, dtype=np.uint8)
        if ((batch < 0) | (batch >= len(status))).any() or (status[batch % len(status)] != _FREE).any():
            raise ConfigError(f"policy {name!r} selected a document that is not a candidate (judged, or no document)")
        seen = np.zeros(len(status), dtype=np.bool_)  # O(N + k), where a sort of k (the whole pool when asynchronous
        seen[batch] = True  # retraining ranks it all) cost 0.3 s a round at 800,000 documents
        if int(np.count_nonzero(seen)) != len(batch):
            raise ConfigError(f"policy {name!r} selected a document twice in one batch")
        return batch

    def _while_oracle_fits(self, scores: np.ndarray, candidates: np.ndarray) -> None:
        """Start the gold oracle's fit on a thread where it is fitted so (oracle.FittingLabels), now that this
        process's own first fit is done, and meanwhile segment the documents this round ranks highest: the review
        judges most of them soon (on Reuters-21578, 160-164 of a first round's top 200 before the last relevant
        document) and would otherwise wait for the fit at its first relevant document. No judgment, score or random
        draw depends on it (fits hold learners.FIT_LOCK): the ledger is the same."""
        labels, lazy = self.review.sentence_labels, self.features.lazy
        if lazy is None or not labels.fit_in_background() or not labels.pending():
            return
        top = candidates[np.argsort(-scores[candidates], kind="stable")[:SEGMENT_AHEAD_DOCUMENTS]]
        lazy.segment_while(top, labels.pending)

    def _dispatch(self, ranking: Ranking, wait_for: int):
        target = self.state.completed + wait_for
        self._publish(ranking)
        yield from self._judgments_reached(target)
        self.writer.flush()

    def _has_positive_and_negative(self) -> bool:
        labels = self.state.training.labels
        positive = self.query_row is not None or 1 in labels
        negative = self.config.presumed_nonrelevant > 0 or 0 in labels
        return positive and negative

    def _position(self, docid: str) -> int:
        try:
            return self.review.docids.index(docid)
        except ValueError:
            raise ConfigError(f"seed docid {docid!r} is not in the collection") from None

    def _train(self) -> tuple[np.ndarray, np.ndarray | None, dict]:
        """Fit on the judged units, the seed query and fresh presumed non-relevant units; score the pool."""
        features, training, strategy = self.features, self.state.training, self.strategy
        unit_matrix = strategy.trained.units(features)
        if self.config.presumed_with_replacement:  # HiCAL: 100 independent uniform draws (bmi.cc)
            presumed = self.rng["presumed"].integers(0, unit_matrix.shape[0], size=self.config.presumed_nonrelevant)
        else:
            presumed = self.rng["presumed"].choice(
                unit_matrix.shape[0], size=min(self.config.presumed_nonrelevant, unit_matrix.shape[0]), replace=False
            )
        built = None
        if not training.sentences:  # documents only: the judged rows stay in place from round to round
            if self._training_rows is None or self._training_rows.documents is not features.documents:
                self._training_rows = DocumentTrainingRows(features.documents, self.query_row)
            built = self._training_rows.build(training.docs, training.doc_labels, unit_matrix[presumed])
        X, y = built if built is not None else self._stacked_training(unit_matrix[presumed])
        need_sentences = strategy.needs_sentence_scores
        targets = ([features.sentences] if need_sentences else []) + strategy.ranked.targets(features)
        try:
            scored = fit_and_score(self.learner, X, y, *targets)
        except (TarsimError, MemoryError):
            raise
        except Exception as exc:  # a user's learner that cannot fit this training set: which, where and why, one line
            if not self._learner_is_users:
                raise  # tarsim's own learners: a bug to see with its traceback
            positives = int(y.sum())
            raise ConfigError(
                f"learner {self._learner_name()} failed to fit or score topic {self.review.topic!r} on {positives} "
                f"relevant and {len(y) - positives} non-relevant training examples ({self.state.completed} judged): "
                f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            ) from exc
        sentence_scores = scored[0] if need_sentences else None
        document_scores = strategy.ranked.document_scores(scored, sentence_scores, features)
        training_record = {
            "training_positives": int(y.sum()),
            "training_negatives": int(len(y) - y.sum()),
            "presumed_nonrelevant": strategy.trained.presumed_record(presumed, self.review.docids, features),
        }
        return document_scores, sentence_scores, training_record

    def _learner_name(self) -> str:
        """The learner as the ledger names it: the configuration's name, or the given estimator's class."""
        if self.config.learner != "bmi" or type(self.learner).__name__ == "BMILogisticRegression":
            return repr(self.config.learner)
        return type(self.learner).__name__

    def _stacked_training(self, presumed_rows: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
        """The training matrix and labels stacked anew: seed query row, judged documents, judged sentences,
        presumed non-relevant rows (DocumentTrainingRows holds the same rows in place when no sentence is judged)."""
        features, training = self.features, self.state.training
        parts, labels = [], []
        if self.query_row is not None:
            parts.append(self.query_row)
            labels.append(np.ones(1, dtype=np.int64))
        if training.docs:
            parts.append(features.documents[training.docs])
            labels.append(np.asarray(training.doc_labels, dtype=np.int64))
        if training.sentences:
            parts.append(features.sentences[training.sentences])
            labels.append(np.asarray(training.sentence_labels, dtype=np.int64))
        parts.append(presumed_rows)
        labels.append(np.zeros(presumed_rows.shape[0], dtype=np.int64))
        return sp.vstack(parts, format="csr"), np.concatenate(labels)

    # ---- the reviewer processes ----------------------------------------------------------------------------
    def _next_item(self) -> tuple[int, Ranking] | None:
        ranking, state = self.state.ranking, self.state
        if ranking is None:
            return None
        order, status = ranking.order, state.status
        while ranking.position < len(order):
            doc = order.item(ranking.position)
            ranking.position += 1
            if status[doc] == _FREE:
                return doc, ranking
        return None

    def _reviewer(self, reviewer: int):
        state, env, so_far, stopping = self.state, self.env, self.so_far, self.stopping
        write = self.writer.write_judgment
        budget_model = self.budget_model if self.budget is not None else None  # spent matters only under a budget
        wake_on_target_only = self._wake_on_target_only
        while True:
            if state.stopped is None and state.completed:
                state.stopped = self._stop_reason()
            if state.stopped is not None:
                state.stopped_at = env.now  # the last reviewer to stop sets it last
                self._wake_learner()
                return
            item = self._next_item()
            if item is None:
                yield self.ranking_published
                continue
            doc, ranking = item
            state.status[doc] = _IN_FLIGHT
            state.available -= 1
            record, seconds = self._judge(doc, ranking)
            yield env.timeout(seconds)
            state.status[doc] = _JUDGED
            state.completed += 1
            now = env.now
            record["seq"] = state.completed
            record["time"] = round(now, 6)
            record["reviewer"] = reviewer
            write(record)
            so_far.add_judgment(record)
            if record["truth"] > 0:
                state.relevant_found += 1
            if budget_model is not None:
                state.spent = budget_model.accumulate(state.spent, record["effort"], now)
            if stopping is not None and state.stop is None:
                state.stop = stopping.check(so_far.view(stable=False))
            if not wake_on_target_only or state.completed >= self._learner_waits_for or state.stopped is not None:
                self._wake_learner()

    def _wake_learner(self) -> None:
        event, self.judgment_count_changed = self.judgment_count_changed, self.env.event()
        event.succeed()

    def _judge(self, doc: int, ranking: Ranking) -> tuple[dict, float]:
        """What the reviewer sees, reads and says about one document, and what the learner learns from it."""
        features, review, strategy = self.features, self.review, self.strategy
        labels = review.sentence_labels.of(features, doc)
        first = features.sentences_of(doc).start if features.sentence_offsets is not None else 0
        words = features.sentence_words_of(doc)
        scores = ranking.sentence_scores
        best = first + int(np.argmax(scores[first : first + len(labels)])) if scores is not None else first
        item = Item(doc, first, labels, best, self._grades[doc], words)
        shown = strategy.shown.present(item, features, self.errors, self.rng["reviewer"])
        learned = strategy.trained.learn(self.state.training, item, shown)
        seconds = self._seconds_of(shown.words)
        record = {
            "type": "judgment",
            "round": ranking.round,
            "docid": review.docids[doc],
            "sentence": None if shown.shown is None else shown.shown - first,
            "label": shown.label,
            "truth": item.grade,
            "effort": {"judge": 1, "sent": shown.read, "words": shown.words, "seconds": seconds},
        }
        if learned:
            record.update(learned)
        if ranking.prior:
            record["prior"] = True
        return record, seconds


def _judging_takes_time(config: ReviewConfig, strategy: ReviewStrategy) -> bool:
    """Whether every judgment moves the clock (its fixed seconds alone round to more than 0).

    Then a reviewer's judgment cannot end at the instant another's wakes the learner, so waking the learner only
    when the judgment count it waits for is reached (or the review stops) resumes it exactly where waking it after
    every judgment would: the clock, and so the ledger, are the same.
    """
    return config.time_model.seconds(strategy.shown.name, 0) >= 1e-3
