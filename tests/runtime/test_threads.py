"""BLAS/OpenMP threads per process (issue 31, fast by default): 1 unless `--threads N` or $TARSIM_THREADS says
otherwise, set at CLI entry for every command and around the Python API's reviews."""

from __future__ import annotations

import os
from typing import ClassVar

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from threadpoolctl import threadpool_info, threadpool_limits

import tarsim
from tarsim.cli import _command, main
from tarsim.runtime.threads import (
    LIBRARY_VARIABLES,
    THREADS_VARIABLE,
    ThreadsError,
    checked_threads,
    configured_threads,
    process_threads,
    thread_limit,
)

TWO_CORES = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a limit of 1 shows only where 2 threads are possible")


def _most_threads() -> int:
    return max(pool["num_threads"] for pool in threadpool_info())


def test_the_default_is_one_thread_unless_the_environment_says_otherwise(monkeypatch):
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert configured_threads() == 1
    assert configured_threads({THREADS_VARIABLE: " 3 "}) == 3
    with pytest.raises(ThreadsError, match=r"\$TARSIM_THREADS: expected a whole number of threads >= 1, got '0'"):
        configured_threads({THREADS_VARIABLE: "0"})
    with pytest.raises(ThreadsError, match="--threads"):
        checked_threads("two")


def test_process_threads_sets_every_librarys_variable_and_puts_them_back(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    with process_threads(2) as threads:
        assert threads == 2
        assert all(os.environ[name] == "2" for name in (THREADS_VARIABLE, *LIBRARY_VARIABLES))
    assert os.environ["OMP_NUM_THREADS"] == "8"
    assert "OPENBLAS_NUM_THREADS" not in os.environ and THREADS_VARIABLE not in os.environ


@TWO_CORES
def test_thread_limit_holds_for_the_block_only():
    with threadpool_limits(limits=2):
        with thread_limit(1):
            assert _most_threads() == 1
        assert _most_threads() == 2


class _ThreadWatcher(ClassifierMixin, BaseEstimator):
    """A classifier that records the most BLAS/OpenMP threads any pool had while it was fitted."""

    seen: ClassVar[list[int]] = []

    def fit(self, X, y):
        type(self).seen.append(_most_threads())
        self.classes_ = np.unique(y)
        self.mean_ = np.asarray(X[y == 1].mean(axis=0)).ravel()
        return self

    def decision_function(self, X):
        return np.asarray(X @ self.mean_).ravel()


@TWO_CORES
@pytest.mark.slow
def test_the_api_reviews_on_one_thread_by_default_and_on_threads_when_asked(demo, monkeypatch):
    """Failed before issue 31: tarsim.simulate ran its fits with every thread the libraries had (2 here)."""
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    with threadpool_limits(limits=2):
        _ThreadWatcher.seen = []
        tarsim.simulate(demo, topic="T2", learner=_ThreadWatcher(), max_effort="R")
        assert _ThreadWatcher.seen and max(_ThreadWatcher.seen) == 1
        _ThreadWatcher.seen = []
        tarsim.simulate(demo, topic="T2", learner=_ThreadWatcher(), max_effort="R", threads=2)
        assert max(_ThreadWatcher.seen) == 2
        _ThreadWatcher.seen = []
        with tarsim.review_rounds(demo, topic="T2", learner=_ThreadWatcher(), max_effort="R") as steps:
            next(steps)
            assert _most_threads() == 2  # the caller's code between steps is not limited
            next(steps)
        assert max(_ThreadWatcher.seen) == 1


def test_threads_is_taken_before_or_after_the_command(monkeypatch, capsys):
    assert _command(["--threads", "2", "list", "learner"]) == "list"
    assert _command(["list", "--threads", "2"]) == "list"
    seen = []
    monkeypatch.setattr("tarsim.cli.list.run", lambda args: seen.append(os.environ[THREADS_VARIABLE]) or 0)
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert main(["--threads", "2", "list", "learner"]) == 0
    assert main(["list", "learner", "--threads", "3"]) == 0
    assert main(["list", "learner"]) == 0
    assert seen == ["2", "3", "1"]
    assert THREADS_VARIABLE not in os.environ  # put back after main()


def test_a_bad_thread_count_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--threads", "0"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "argument --threads: expected a whole number of threads >= 1, got '0'" in err[0]


def test_a_bad_tarsim_threads_variable_is_one_line_and_exit_2(capsys, monkeypatch):
    monkeypatch.setenv(THREADS_VARIABLE, "many")
    assert main(["list", "learner"]) == 2
    assert capsys.readouterr().err == (
        "tarsim: error: $TARSIM_THREADS: expected a whole number of threads >= 1, got 'many'\n"
    )
