"""A sweep's loky worker says a library's warning in one line, as the CLI does (probe 4: each run of `sweep --jobs 2`
printed scikit-learn's ConvergenceWarning raw, two lines with its source line, before `tarsim: interrupted`)."""

from __future__ import annotations

import multiprocessing
import signal
import warnings

from tarsim.sweep import worker


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
