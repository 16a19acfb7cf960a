"""Evaluation measures: ranked-list measures (trec_eval semantics), binary decisions, significance tests."""

from tarsim.metrics.decisions import evaluate_decisions
from tarsim.metrics.measures import DEFAULT_MEASURES, FAMILIES, Measure, parse_measure, parse_measures
from tarsim.metrics.ranked import aggregate, evaluate_run
from tarsim.metrics.recall_effort import (
    GRID_A,
    GRID_B,
    RecallCurve,
    effort_to_recall,
    recall_at_effort,
    recall_curve,
    summary_row,
    wss,
)
from tarsim.metrics.significance import paired_tests

__all__ = [
    "DEFAULT_MEASURES",
    "FAMILIES",
    "GRID_A",
    "GRID_B",
    "Measure",
    "RecallCurve",
    "aggregate",
    "effort_to_recall",
    "evaluate_decisions",
    "evaluate_run",
    "paired_tests",
    "parse_measure",
    "parse_measures",
    "recall_at_effort",
    "recall_curve",
    "summary_row",
    "wss",
]
