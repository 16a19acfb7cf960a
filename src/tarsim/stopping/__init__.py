"""Stopping rules for high-recall review, replayed on finished ledgers.

`parse_stopping_rule(spec)` validates a spec (`budget:2R+100`, `budget:500`, `knee`, `knee:6`, `target:10`,
`nonrel:50`, `oracle`); `evaluate_stopping(ledger, rule, ...)` returns a StopOutcome: whether the rule fired,
judgments reviewed at the stop, recall there, effort in every effort model, and whether a recall target was met.
"""

from tarsim.stopping.evaluate import (
    DEFAULT_STOP_EFFORT_MODELS,
    DEFAULT_TARGET_RECALL,
    SAMPLE_COST_ESTIMATED,
    SAMPLE_COST_EXACT,
    SAMPLE_COST_OTHER_RELEVANCE,
    SAMPLE_COSTS,
    StopOutcome,
    evaluate_recorded_rules,
    evaluate_stopping,
    recorded_rules,
)
from tarsim.stopping.rules import (
    ACCEPTED,
    BudgetRule,
    KneeRule,
    NonRelevantRunRule,
    OracleRule,
    ReplayContext,
    StoppingRule,
    TargetRule,
    check_points,
    parse_stopping_rule,
    slope_ratio,
)
from tarsim.stopping.target import TargetSample, draw_target_sample

# sampling and capture-recapture rules (imported to register them: autostop, chao, scal)
# isort: split
from tarsim.stopping import autostop, capture, scal  # noqa: F401

__all__ = [
    "ACCEPTED",
    "DEFAULT_STOP_EFFORT_MODELS",
    "DEFAULT_TARGET_RECALL",
    "SAMPLE_COSTS",
    "SAMPLE_COST_ESTIMATED",
    "SAMPLE_COST_EXACT",
    "SAMPLE_COST_OTHER_RELEVANCE",
    "BudgetRule",
    "KneeRule",
    "NonRelevantRunRule",
    "OracleRule",
    "ReplayContext",
    "StopOutcome",
    "StoppingRule",
    "TargetRule",
    "TargetSample",
    "check_points",
    "draw_target_sample",
    "evaluate_recorded_rules",
    "evaluate_stopping",
    "parse_stopping_rule",
    "recorded_rules",
    "slope_ratio",
]
