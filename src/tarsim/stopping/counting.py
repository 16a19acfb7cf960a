"""Counting-process rules: a curve fitted to the rate at which the review finds relevant documents predicts how
many the collection holds (a Poisson bound on their number at a confidence level), and the review stops once it
has found the target share of that bound. Both see only the reviewer's labels and the collection's size, are
checked at the end of each training round, and draw no sample.

Each follows destiny-evidence/stopping-methods' arithmetic (methods/ipp.py, methods/curve_fitting.py) step by
step, with scipy's curve_fit from the same starting point, so that a replay decides as the reference does.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.optimize import curve_fit
from scipy.stats import poisson

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.stopping.round_checks import RoundEndRule
from tarsim.stopping.rules import ReplayContext, confidence_param, target_param

_FIT_FAILURES = (RuntimeError, ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, FloatingPointError)
"""What a curve fit on few or degenerate points raises; the references then do not stop (they catch everything)."""


def _power(x: np.ndarray, a: float, k: float) -> np.ndarray:
    return a * x**k


def _exponential(x: np.ndarray, a: float, k: float, b: float) -> np.ndarray:
    return a * np.exp(-k * x)  # b is unused, as in the reference's model (a third parameter curve_fit carries)


def _labels(ledger: Ledger, judged: int) -> np.ndarray:
    return (ledger.label[:judged] > 0).astype(np.int64)


@register("stopping")
@dataclass(frozen=True)
class IPPRule(RoundEndRule):
    """The inhomogeneous Poisson process rule of Sneyd & Stevenson ("Modelling stopping criteria for search results
    using Poisson processes", EMNLP 2021; Stevenson & Bin-Hezam, TOIS 2023), as destiny-evidence/stopping-methods'
    IPP computes it: a power curve a x^k fitted to the rate of relevant labels in windows of the screened
    documents; when the relevant labels found reach target x the curve's own count over them, the number of
    relevant documents is bounded by the smallest n >= 1 with Poisson(mu).cdf(n) >= confidence, mu the curve's
    integral from 1 to the collection's size; stop when the relevant labels found reach target x n.

    The windows are the reference's: the first windows x (s // windows) judgments reshaped into rows of `windows`
    judgments (so s // windows windows of `windows` judgments each, whose rates are divided by s // windows; SALT's
    IPP does the same, Sneyd's notebook makes `windows` windows of s // windows), at x = each row's first index
    (the first + 1). A fit that fails means no stop.
    """

    target: float = 0.95
    confidence: float = 0.95
    windows: int = 10
    name: ClassVar[str] = "ipp"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        confidence_param(),
        Param("windows", int, 10, "the reference's n_windows", low=1),
    )
    examples: ClassVar[tuple[str, ...]] = ("ipp", "ipp:target=0.8,windows=5")

    def fires(self, ledger: Ledger, context: ReplayContext, points: Sequence[int]) -> bool:
        labels = _labels(ledger, points[-1])
        seen, found = labels.size, int(labels.sum())
        size = seen // self.windows
        rows = np.arange(seen)[: size * self.windows].reshape(-1, self.windows)
        if not rows.shape[0]:
            return False  # fewer judgments than windows: the reference's window edges fail
        x = rows[:, 0].copy()
        x[0] += 1
        y = labels[rows].sum(axis=1) / size
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (a, k), _ = curve_fit(_power, x, y, [0.1, 0.001])
                expected = round(np.sum(_power(np.arange(1, seen + 1), a, k)))
                if not found >= self.target * expected:
                    return False
                mu = (a / (k + 1)) * (ledger.collection_size ** (k + 1) - 1)
                cdf = poisson.cdf(np.arange(ledger.collection_size) + 1, mu)
                bound = int(np.argmin(cdf < self.confidence)) + 1
        except _FIT_FAILURES:
            return False
        return self.target * bound <= found


@register("stopping")
@dataclass(frozen=True)
class CurveFitRule(RoundEndRule):
    """Curve fitting, as destiny-evidence/stopping-methods' CURVE_FITTING computes it after Sneyd & Stevenson's
    exponential Poisson-process rule (EMNLP 2021; their poisson_stopping_method code): an exponential rate a e^(-kx)
    fitted to windows - 1 windows of s // windows screened documents, each at its midpoint; once at least 10
    relevant labels are found and they reach target x the curve's count over the screened documents, the
    number of relevant documents is bounded by the smallest n with Poisson(mu).cdf(n) >= confidence (at most
    the collection's size), mu = (a / -k)(e^(-k N) - 1); stop when the relevant labels found reach target x n.

    As the reference: the last window is left out, the model carries an unused third parameter, and a fit that
    fails means no stop.
    """

    target: float = 0.95
    confidence: float = 0.95
    windows: int = 10
    min_relevant: ClassVar[int] = 10  # the reference's min_rel_in_sample (Sneyd's original: 20)
    name: ClassVar[str] = "curvefit"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        confidence_param(),
        Param("windows", int, 10, "the reference's n_windows", low=2),
    )
    examples: ClassVar[tuple[str, ...]] = ("curvefit:target=0.7", "curvefit:target=0.7,windows=5")

    def fires(self, ledger: Ledger, context: ReplayContext, points: Sequence[int]) -> bool:
        labels = _labels(ledger, points[-1])
        found = int(labels.sum())
        if found < self.min_relevant:
            return False
        size = int(len(labels) / self.windows)
        edges = [(size * w, size * (w + 1)) for w in range(self.windows - 1)]
        x = np.array([round(np.mean([start, end])) for start, end in edges])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a poor fit's warnings, and rates of empty windows (inf, nan)
                y = np.array([np.sum(labels[start:end]) / size for start, end in edges])
                (a, k, b), _ = curve_fit(_exponential, x, y, [0.1, 0.001, 1])
                expected = round(np.sum(_exponential(np.arange(1, len(labels) + 1), a, k, b)))
                if not found >= self.target * expected:
                    return False
                total = ledger.collection_size
                mu = (a / -k) * (np.exp(-k * total) - 1)
                bound = _poisson_bound(self.confidence, total, mu)
        except _FIT_FAILURES:
            return False
        return found >= self.target * bound


def _poisson_bound(confidence: float, total: int, mu: float) -> int:
    """The smallest i in 0..total with Poisson(mu).cdf(i) not below confidence, else total (the reference's loop,
    which also ends at a cdf that is nan: 0 when mu < 0)."""
    reached = np.flatnonzero(~(poisson.cdf(np.arange(total + 1), mu) < confidence))
    return int(reached[0]) if reached.size else total
