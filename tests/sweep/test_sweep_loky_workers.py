"""A sweep on loky's workers (probe 4, `sweep --jobs 2` where BLAS threads rule out forking): a worker says a library's
warning in one line, as the CLI does (each run printed scikit-learn's ConvergenceWarning raw, two lines with its source
line), and Ctrl-C says at once that the runs in progress end now (it said only `tarsim: interrupted`)."""

from __future__ import annotations

import multiprocessing
import signal
import warnings

import pytest

from tarsim.sweep import backends, worker


class ConvergenceWarning(UserWarning):
    """Stands for scikit-learn's."""


def test_a_worker_process_writes_a_library_warning_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())  # as in a loky worker
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # restored after the test
    before = signal.getsignal(signal.SIGINT)
    try:
        worker._leave_ctrl_c_to_the_sweep()
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn(
                "Liblinear failed to converge,\n increase the number of iterations.", ConvergenceWarning, stacklevel=1
            )
    finally:
        signal.signal(signal.SIGINT, before)
    err = capsys.readouterr().err
    expected = "tarsim: warning: ConvergenceWarning: Liblinear failed to converge, increase the number of iterations.\n"
    assert err == expected


def test_ctrl_c_on_loky_workers_says_at_once_that_the_runs_in_progress_end_now(monkeypatch, capsys):
    # probe 4: with BLAS threads running, fork_is_safe() is False and the sweep's workers are loky's, which joblib
    # ends at once on Ctrl-C; the sweep said only "tarsim: interrupted"
    def parallel(jobs, return_as):
        def results(calls):
            list(calls)  # joblib takes the calls first
            yield 0, (True, "first")
            raise KeyboardInterrupt

        return results

    monkeypatch.setattr(backends, "fork_is_safe", lambda: False)
    monkeypatch.setattr(backends, "local_parallel", parallel)
    finished = []
    with pytest.raises(KeyboardInterrupt):
        backends.run_joblib(["a", "b", "c"], str, 2, finished.append, lambda *failure: None)
    assert finished == ["first"]
    assert capsys.readouterr().err == (
        "tarsim: stopping: the runs in progress end now (their partial ledgers are removed); 2 of 3 runs not "
        "finished, the finished runs' ledgers are kept\n"
    )
