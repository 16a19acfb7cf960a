"""One run of a sweep, executed in a worker process (joblib/loky or Dask): small picklable task in, ledger out.

A task carries only the run's identity, configuration, topic qrels and the paths of its collection's cached
features and docids; a worker process loads each collection once and keeps the last few in memory, so runs
that share a collection never rebuild (or even re-read) its features.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from threadpoolctl import threadpool_limits

from tarsim.config.review import ReviewConfig
from tarsim.errors import InputWarning
from tarsim.features.matrices import Features
from tarsim.features.review import load_review_features
from tarsim.simulator.ledger import LedgerWriter
from tarsim.simulator.review import ReviewSimulation
from tarsim.simulator.run import run_review, topic_grades, topic_review
from tarsim.sweep.docids import DocidsError, read_docids
from tarsim.sweep.plan import RunSpec

_KEEP = 2
_LOADED: OrderedDict[tuple[str, str], tuple[Features, list[str], dict[str, int]]] = OrderedDict()


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run."""

    spec: RunSpec
    config: ReviewConfig
    query: str
    judged: dict[str, int]  # the topic's qrels
    header: dict  # the ledger header (also what --resume compares)
    features_path: str
    docids_path: str
    ledger_path: str
    unlabelled_rows: tuple[int, ...] = ()  # rows of a screening file left out (prior_idx counts them)


@dataclass(frozen=True)
class RunResult:
    """What a worker reports back: the run, its judgments and its wall time (never written to outputs)."""

    run_id: str
    judgments: int
    seconds: float


def collection_inputs(
    features_path: str, docids_path: str, collection_sha: str | None = None
) -> tuple[Features, list[str], dict[str, int]]:
    """A collection's features, docids and docid positions, loaded once per worker process (small LRU), both
    verified (made for `collection_sha` when given): a damaged cache file is a one-line CacheError."""
    key = (features_path, docids_path)
    if key in _LOADED:
        _LOADED.move_to_end(key)
        return _LOADED[key]
    features = load_review_features(Path(features_path))
    docids = read_docids(Path(docids_path), collection_sha)
    if len(docids) != features.n_documents:
        raise DocidsError(docids_path, f"{len(docids)} docids, the features have {features.n_documents} documents")
    remember(features_path, docids_path, features, docids)
    return _LOADED[key]


def remember(features_path: str, docids_path: str, features: Features, docids: list[str]) -> None:
    """Keep a loaded collection for later runs in this process (the parent primes it with what it built)."""
    _LOADED[(features_path, docids_path)] = (features, docids, {d: i for i, d in enumerate(docids)})
    while len(_LOADED) > _KEEP:
        _LOADED.popitem(last=False)


def _leave_ctrl_c_to_the_sweep() -> None:
    """In a worker process (loky's, as forked workers already do): ignore Ctrl-C, which the terminal sends to every
    process of the group, so the run in flight finishes with its ledger and the sweep, not the worker, says what
    stopped (a loky worker interrupted mid-task printed its traceback); and say a warning in one line as the CLI
    does (a fresh loky worker printed scikit-learn's ConvergenceWarning raw, with its source line under it)."""
    if multiprocessing.parent_process() is None:
        return
    warnings.showwarning = one_line_warning
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as the CLI writes it (tarsim.cli): `tarsim: warning: ...`, a library's with its kind, one line."""
    text = (
        str(message) if issubclass(category, InputWarning) else f"{category.__name__}: {' '.join(str(message).split())}"
    )
    sys.stderr.write(f"tarsim: warning: {text}\n")  # one write: two workers' lines do not interleave
    sys.stderr.flush()


def execute_run(task: RunTask) -> RunResult:
    """Simulate one run into its ledger (a hidden .partial file renamed into place only when complete)."""
    _leave_ctrl_c_to_the_sweep()
    started = time.perf_counter()
    features, docids, position = collection_inputs(
        task.features_path, task.docids_path, task.header["inputs"]["collection"]
    )
    config = task.config
    grades = topic_grades(task.judged, position, len(docids))
    review = topic_review(config, task.spec.topic, task.query, grades, features, docids, task.unlabelled_rows)
    simulation = ReviewSimulation(features, review, config, LedgerWriter(Path(task.ledger_path), task.header))
    # One BLAS/OpenMP thread per run: runs are the unit of parallelism, and results must not depend on
    # how many threads a worker happens to have.
    with threadpool_limits(limits=1):
        end = run_review(simulation)
    return RunResult(task.spec.run_id, int(end["judgments"]), time.perf_counter() - started)
