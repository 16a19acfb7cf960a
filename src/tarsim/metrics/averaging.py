"""How per-query values become one figure: over the qrels topics (trec_eval) or over the run's topics too.

`judged` is trec_eval's mean: over every qrels topic evaluate_run scores (a topic judged only 0 or -1 scores 0;
with `missing="skip"` only those with a run line). `all` also counts each topic of `topics` that the qrels do
not judge (a query asked without judgments, such as a run topic not in the qrels) as 0: the mean the PD and
bBSARD seed recipes report. A thin step after tarsim.metrics.evaluate_run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from tarsim.errors import ConfigError
from tarsim.metrics.ranked import aggregate

AVERAGES = ("all", "judged")
"""Accepted values of `--average`."""


def check_average(mode: str) -> str:
    """The mode, or ConfigError naming the accepted ones."""
    if mode not in AVERAGES:
        raise ConfigError(f"average must be one of {', '.join(AVERAGES)}, got {mode!r}")
    return mode


def average(
    per_query: Mapping[str, Mapping[str, float]],
    measures: Sequence[str],
    *,
    mode: str = "judged",
    topics: Iterable[str] = (),
) -> dict[str, float]:
    """The mean of each measure: over the topics of `per_query` (`judged`), or over those and `topics`, 0 where a
    topic has no value (`all`). A measure with no topic to average over is left out."""
    if check_average(mode) == "judged":
        judged = aggregate(per_query)
        return {name: judged[name] for name in measures if name in judged}
    rows = averaged_per_query(per_query, measures, mode=mode, topics=topics)  # the listing --per-query prints
    if not rows:
        return {}
    return {name: math.fsum(row.get(name, 0.0) for row in rows.values()) / len(rows) for name in measures}


def averaged_per_query(
    per_query: Mapping[str, Mapping[str, float]],
    measures: Sequence[str],
    *,
    mode: str = "judged",
    topics: Iterable[str] = (),
) -> dict[str, dict[str, float]]:
    """The per-query values `average` takes the mean of, in sorted topic order: `per_query` itself (`judged`), or
    also each topic of `topics` without a value, at 0 on every measure (`all`); so a per-query listing reproduces
    the aggregate."""
    rows = {topic: dict(scores) for topic, scores in per_query.items()}
    if check_average(mode) == "all":
        for topic in topics:
            if topic not in rows:
                rows[topic] = {name: 0.0 for name in measures}
    return {topic: rows[topic] for topic in sorted(rows)}
