"""TAR evaluation measures of one ledger: WSS@r, RRF@x%, ERF@x%, (average) time to discovery, effort to reach a
recall level in any effort model, recall and cost at a stopping rule's stop.

WSS, RRF, ERF and TD/ATD are ASReview Insights' (`asreview metrics`, 1.6.1), computed by tarsim.metrics.insights on
the ledger's label sequence (documents in order of first presentation, padded to the collection size):
- RRF@x: recall after screening k records, k the largest with k/N <= x% (floor(x% of N)).
- ERF@x: (found(k) - round(linspace(0, R, N))[k - 1]) / R at that k (numpy rounding, half to even).
- WSS@r: (records random screening needs - records the review needed) / N to find the j-th relevant, j the
  largest with j/R <= r: Insights' WSS, not Cohen's (N - n_r)/N - (1 - r) (tarsim.metrics.recall_effort.wss).
- TD of a relevant record: its 1-based position (or the effort spent, under another effort model); ATD: the mean.
Priors (judgments marked `"prior": true`) are left out by default, as Insights does (priors="include" counts them).
A record the ledger never presented is treated as never found (as Insights pads an unfinished simulation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.qrels import Qrels
from tarsim.effort_models import EffortModel
from tarsim.metrics import insights
from tarsim.metrics.recall_effort import effort_to_recall, recall_curve


def rrf(ledger: Ledger, percent: float = 10.0, qrels: Qrels | None = None, priors: str = "exclude") -> float:
    """Relevant records found (recall) after screening `percent`% of the collection (Insights' RRF@x)."""
    _check_percent(percent)
    screen = insights.screening(ledger, priors, qrels)
    return insights.rrf(screen.labels, percent, screen.relevant) or 0.0


def erf(ledger: Ledger, percent: float = 10.0, qrels: Qrels | None = None, priors: str = "exclude") -> float:
    """Extra relevant records found after screening `percent`% of the collection, as a share of R (Insights' ERF);
    0 when less than one record is screened (Insights wraps round to the last record there)."""
    _check_percent(percent)
    screen = insights.screening(ledger, priors, qrels)
    if insights._k_screened(screen.n, percent / 100.0) == 0:
        return 0.0
    return insights.erf(screen.labels, percent, screen.relevant) or 0.0


def wss(
    ledger: Ledger, recall: float = 0.95, qrels: Qrels | None = None, priors: str = "exclude", kind: str = "presented"
) -> float | None:
    """Work saved over sampling at `recall` as Insights computes it (None when the ledger never reaches it); `kind`
    is the recall kind (presented or found)."""
    screen = insights.screening(ledger, priors, qrels, kind)
    return insights.wss(screen.labels, recall, screen.relevant)


def _check_percent(percent: float) -> None:
    if not 0.0 <= percent <= 100.0:
        raise ValueError(f"percent must be in [0, 100], got {percent}")


def time_to_discovery(
    ledger: Ledger,
    effort_model: str | EffortModel = "judge",
    qrels: Qrels | None = None,
    priors: str = "exclude",
) -> dict[str, float]:
    """docid -> effort spent when each relevant document was first presented (under `judge`: its 1-based position);
    with priors excluded, prior documents are left out and the effort spent on them is not counted."""
    insights.check_priors(priors)
    curve = recall_curve(ledger, effort_model, qrels)
    screen = insights.screening(ledger, "include", qrels)
    first = {}
    for index, docid in enumerate(ledger.docids):
        first.setdefault(docid, index)
    costs = np.diff(curve.effort, prepend=0.0)
    is_prior = np.asarray(ledger.prior, dtype=bool)
    before = np.cumsum(np.where(is_prior, costs, 0.0)) if priors == "exclude" else np.zeros(len(costs))
    found = {}
    for docid, label in zip(screen.docids, screen.labels, strict=False):
        index = first[docid]
        if label and not (priors == "exclude" and is_prior[index]):
            found[docid] = float(curve.effort[index] - before[index])
    return found


def average_time_to_discovery(
    ledger: Ledger,
    effort_model: str | EffortModel = "judge",
    qrels: Qrels | None = None,
    priors: str = "exclude",
) -> float | None:
    """ATD: mean time to discovery over the relevant documents found (None when none was found)."""
    times = list(time_to_discovery(ledger, effort_model, qrels, priors).values())
    return math.fsum(times) / len(times) if times else None


def tar_measures(
    ledger: Ledger,
    *,
    effort_model: str = "judge",
    wss_levels: Sequence[float] = (0.95,),
    percents: Sequence[float] = (10.0,),
    recall_levels: Sequence[float] = (0.8, 0.95, 1.0),
    qrels: Qrels | None = None,
) -> dict[str, float | None]:
    """The standard TAR measures of one ledger as a flat dict (wss_95, rrf_10, erf_10, atd, effort_to_95, ...)."""
    row: dict[str, float | None] = {}
    for level in wss_levels:
        row[f"wss_{_label(level * 100)}"] = wss(ledger, level, qrels)
    for percent in percents:
        row[f"rrf_{_label(percent)}"] = rrf(ledger, percent, qrels)
        row[f"erf_{_label(percent)}"] = erf(ledger, percent, qrels)
    row["atd"] = average_time_to_discovery(ledger, effort_model, qrels)
    for level in recall_levels:
        row[f"effort_to_{_label(level * 100)}"] = effort_to_recall(ledger, level, effort_model, qrels)
    return row


def _label(value: float) -> str:
    return f"{value:g}".replace(".", "_")
