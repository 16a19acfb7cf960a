"""`tarsim.review_rounds(...)`: step one topic's review round by round from Python, as TARexp's workflow loop does.

The same review as `tarsim.simulate` with the same settings (the ledger is byte for byte the same when run to its
end). Each step yields a RoundState: the round's number, judgments, relevant found, clock time, the stop reason and
the ledger so far. Closing the steps early (`steps.close()`, or leaving a `with` block) is stopping the review by hand:
the RoundState in hand is its record, and no ledger file is written (only a review run to its end writes one), so
nothing unfinished is left in OUT.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tarsim.api.review import check_tables, resolve_dataset, review_config
from tarsim.config.review import ReviewConfig
from tarsim.data.dataset import Dataset
from tarsim.data.digests import collection_digest
from tarsim.data.ledger import iter_ledger_paths, read_ledger
from tarsim.data.lines import PathLike
from tarsim.data.output_lock import writing_to
from tarsim.errors import ConfigError
from tarsim.features.cache import resolve_cache_dir
from tarsim.reporting.tables import DEFAULT_EFFORT_MODELS, write_simulation_reports
from tarsim.runtime.threads import DEFAULT_THREADS, checked_threads, configured_threads, thread_limit
from tarsim.simulator.rounds import RoundState
from tarsim.simulator.run import (
    cached_review_features,
    check_output_ledgers,
    checked_topics,
    keeping_sentences,
    ledger_header,
    ledger_name,
    topic_grades,
    topic_simulation,
)

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


def review_rounds(
    dataset: Dataset | PathLike | None = None,
    *,
    topic: str,
    docs: PathLike | None = None,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
    config: ReviewConfig | None = None,
    out: PathLike | None = None,
    learner: BaseEstimator | str | None = None,
    unlabelled: str = "error",
    cache_dir: PathLike | None = None,
    effort: Sequence[str] = DEFAULT_EFFORT_MODELS,
    recall: str = "presented",
    threads: int | None = None,
    **settings,
) -> ReviewSteps:
    """Review `topic` round by round: ReviewSteps, an iterator of RoundState, one per training round's batch.

    Inputs and settings are `tarsim.simulate`'s. With `out`, the ledger of a review run to its end is written to
    OUT/ledgers/<topic>.jsonl and OUT's tables are written anew over every ledger there (as simulate writes them,
    `effort` models and `recall` kind included); the output folder is locked, for this process too, until the steps
    end or are closed. The settings, the dataset and the topic are checked at once; features are built at the first
    step. Each step uses `threads` BLAS/OpenMP threads (default: $TARSIM_THREADS, else 1), the caller's own code
    between steps none of this limit.
    """
    check_tables(effort, recall)
    threads = configured_threads() if threads is None else checked_threads(threads, "threads")
    config, estimator = review_config(dataset, config, learner, settings)
    data = resolve_dataset(dataset, docs=docs, qrels=qrels, topics=topics, unlabelled=unlabelled)
    [name], config = checked_topics(data, config, [topic])
    position = {docid: i for i, docid in enumerate(data.collection.docids)}
    grades = topic_grades(data.qrels.get(name, {}), position, len(position))
    if not (grades > 0).any():
        raise ConfigError(f"topic {name!r} has no relevant document in the collection: there is nothing to review")
    folder = Path(out) if out is not None else None
    cache = resolve_cache_dir(cache_dir) if cache_dir is not None else None  # a blank one or a file: refused now
    inputs = _TopicSteps(data, config, name, grades, folder, estimator, cache, tuple(effort), recall)
    return ReviewSteps(inputs.steps(), threads)


class ReviewSteps:
    """The rounds of one review, as an iterator; `close()` (or the end of a `with` block) stops the review where it
    stands: its unfinished ledger is dropped and the output folder unlocked, at once rather than when Python collects
    the iterator."""

    def __init__(self, steps: Iterator[RoundState], threads: int = DEFAULT_THREADS) -> None:
        self._steps = steps
        self._threads = threads

    def __iter__(self) -> ReviewSteps:
        return self

    def __next__(self) -> RoundState:
        with thread_limit(self._threads):  # per step: a limit held across yields would bind the caller's code too
            return next(self._steps)

    def close(self) -> None:
        """Stop the review here (nothing happens if it has ended)."""
        with thread_limit(self._threads):  # the last tables may be written here
            self._steps.close()

    def __enter__(self) -> ReviewSteps:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class _TopicSteps:
    """What one stepped review needs, checked when review_rounds was called; `steps` runs it."""

    data: Dataset
    config: ReviewConfig
    topic: str
    grades: np.ndarray
    out: Path | None
    learner: BaseEstimator | None
    cache: Path | None
    effort: tuple[str, ...]
    recall: str

    def steps(self) -> Iterator[RoundState]:
        if self.out is None:
            yield from self._review()
            return
        with writing_to(self.out, alone=True):  # held across yields: nothing else in this process may write OUT
            yield from self._review()

    def _review(self) -> Iterator[RoundState]:
        data, config, topic, grades, out = self.data, self.config, self.topic, self.grades, self.out
        with keeping_sentences(cached_review_features(data, config, self.cache)) as features:
            collection_sha = collection_digest(data.collection)
            header = ledger_header(data, topic, config, collection_sha, int((grades > 0).sum()), self.learner)
            path = None
            if out is not None:
                check_output_ledgers(out / "ledgers", config, collection_sha, header["learner"], [topic])
                path = out / "ledgers" / ledger_name(topic)
            simulation = topic_simulation(data, config, topic, grades, features, header, path, self.learner)
            try:
                yield from simulation.rounds()
            finally:
                if out is not None and simulation.end is not None:  # ended, even if the loop was left on its last
                    ledgers = [read_ledger(p) for p in iter_ledger_paths(out / "ledgers")]  # state: the tables
                    write_simulation_reports(out, ledgers, self.effort, {}, self.recall)  # cover its new ledger
