"""Stopping rules for high-recall review, replayed on finished ledgers or followed during a review.

`parse_stopping_rule(spec)` validates a spec (`knee`, `budget:2R+100`, `quant:target=0.9`, `any(knee,cmh)`, ...:
`tarsim list stopping` lists every rule); `evaluate_stopping(ledger, rule, ...)` returns a StopOutcome: whether the
rule fired, judgments reviewed at the stop, recall there, effort in every effort model, and whether a recall target
was met; `measure_stop` adds the stopping literature's measures (docs/stopping.md). The rule modules register
themselves when imported (components.kinds lists them); study and aggregate import pandas and scipy, so they are
imported from their modules.
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
from tarsim.stopping.measures import COST_STRUCTURES, ReviewFacts, measure_stop, optimistic_cost
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
    "COST_STRUCTURES",
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
    "ReviewFacts",
    "StopOutcome",
    "StoppingRule",
    "TargetRule",
    "TargetSample",
    "check_points",
    "draw_target_sample",
    "evaluate_recorded_rules",
    "evaluate_stopping",
    "measure_stop",
    "optimistic_cost",
    "parse_stopping_rule",
    "recorded_rules",
    "slope_ratio",
]
