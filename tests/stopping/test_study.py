"""The stopping study (tarsim.stopping.study) and its aggregates (tarsim.stopping.aggregate): target-aware rules
expanded once per target, the tidy table's rows, intervals, paired tests and Holm's correction, by hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from ledger_factory import make_ledger
from tarsim.components import Param, kind
from tarsim.errors import ConfigError
from tarsim.stopping.aggregate import (
    holm,
    mean_interval,
    paired_tests,
    paired_tests_text,
    proportion_interval,
    summarise,
    summary_text,
)
from tarsim.stopping.rules import ReplayContext, StoppingRule, target_param
from tarsim.stopping.study import (
    RuleRun,
    check_scores,
    declares_target,
    expand_rules,
    study_table,
    with_target,
)


@dataclass(frozen=True)
class ReachRule(StoppingRule):
    """A test-only target-aware rule: stop at the first judgment whose recall (known to it, as to an oracle)
    reaches its target. Registered only inside the tests that use it."""

    target: float = 0.95
    name: ClassVar[str] = "reachtest"
    params: ClassVar[tuple[Param, ...]] = (target_param(),)

    def stop_position(self, ledger, context: ReplayContext):
        found = np.cumsum(ledger.truth > 0) / max(ledger.relevant, 1)
        reached = np.flatnonzero(found >= self.target - 1e-12)
        return int(reached[0]) + 1 if reached.size else None


@pytest.fixture
def reach_rule():
    stopping = kind("stopping")
    stopping.load()
    stopping.components["reachtest"] = ReachRule
    yield ReachRule
    del stopping.components["reachtest"]


def test_target_aware_rules_run_once_per_target(reach_rule):
    assert declares_target("reachtest") == (True, False)
    assert declares_target("reachtest:target=0.5") == (True, True) and declares_target("reachtest:0.5") == (True, True)
    assert declares_target("knee") == (False, False) and declares_target("any(knee,nonrel:5)") == (False, False)
    assert with_target("reachtest", 0.9) == "reachtest:target=0.9"
    runs = expand_rules(["knee", "reachtest", "reachtest:target=0.5"], [0.8, 0.9])
    assert runs == [
        RuleRun("knee", "knee"),
        RuleRun("reachtest:target=0.8", "reachtest", 0.8),
        RuleRun("reachtest:target=0.9", "reachtest", 0.9),
        RuleRun("reachtest:target=0.5", "reachtest:target=0.5"),
    ]
    with pytest.raises(ConfigError, match="kneee"):
        expand_rules(["kneee"], [0.8])


def _ledgers():
    # two reviews of R = 4 in N = 20: relevant at judgments 1, 3, 6, 10 and 1, 2, 3, 9
    first = make_ledger([1, 0, 1, 0, 0, 1, 0, 0, 0, 1], size=20, seed=0)
    second = make_ledger([1, 1, 1, 0, 0, 0, 0, 0, 1, 0], size=20, seed=1)
    return [first, second]


def test_the_tidy_table_by_hand(reach_rule):
    table = study_table(_ledgers(), ["nonrel:3", "reachtest"], [0.5, 0.75], structures=((1, 1, 1, 1),))
    # nonrel:3 measured against both targets on both reviews; reachtest once per target, against its own
    assert len(table) == 2 * 2 + 2 * 2
    nonrel = table[table["rule"] == "nonrel:3"]
    assert list(nonrel["position"]) == [9, 9, 6, 6]  # non-relevant 7-9; 4-6
    assert list(nonrel["recall"]) == [0.75, 0.75, 0.75, 0.75]
    assert list(nonrel["target_met"]) == [True, True, True, True]
    reach = table[table["rule_given"] == "reachtest"]
    assert list(reach["rule"]) == ["reachtest:target=0.5", "reachtest:target=0.75"] * 2
    assert list(reach["position"]) == [3, 6, 2, 3]  # the oracle stops: excess 0, relative 1
    assert (reach["excess_judge"] == 0).all() and (reach["relative_judge"] == 1).all()
    assert list(table.columns[:9]) == [
        "ledger",
        "run_id",
        "collection",
        "topic",
        "policy",
        "seed",
        "rule",
        "rule_given",
        "target",
    ]
    again = study_table(_ledgers(), ["nonrel:3", "reachtest"], [0.5, 0.75], structures=((1, 1, 1, 1),))
    assert again.equals(table)


def test_summary_and_paired_tests(reach_rule):
    table = study_table(_ledgers(), ["reachtest", "nonrel:3", "budget:2"], [0.75], structures=())
    summary = summarise(table)
    assert list(summary["rule"]) == ["reachtest:target=0.75", "nonrel:3", "budget:2"]
    budget = summary.set_index("rule").loc["budget:2"]
    # budget:2 finds 1 and 2 of 4: reliability 0 of 2, Wilson's interval; mean recall 0.375
    assert budget["reliability"] == 0.0 and budget["reliability_high"] == pytest.approx(0.6576, abs=1e-4)
    assert budget["recall"] == pytest.approx(0.375) and budget["documents"] == 2.0
    tests = paired_tests(table, "reachtest")  # the rule as given names its expanded run too
    recall = tests[tests["measure"] == "recall"].set_index("rule")
    assert recall.loc["nonrel:3", "pairs"] == 2 and recall.loc["nonrel:3", "median_difference"] == 0.0
    assert recall.loc["nonrel:3", "p"] == 1.0  # no difference at all
    documents = tests[tests["measure"] == "documents"].set_index("rule")
    assert list(documents.loc["budget:2", ["mean_difference", "median_difference"]]) == [-2.5, -2.5]  # 2-6, 2-3
    assert documents.loc["budget:2", "p"] == pytest.approx(0.5)  # two negative differences: exact p = 2 / 2^2
    assert "reachtest" in summary_text(summary) and "budget:2" in paired_tests_text(tests)
    with pytest.raises(ConfigError, match="baseline rule 'knee'"):
        paired_tests(table, "knee")


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04: 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, 1 x 0.04 -> kept monotone at 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    adjusted = holm([float("nan"), 0.02])
    assert np.isnan(adjusted[0]) and adjusted[1] == pytest.approx(0.02)


def test_intervals():
    assert proportion_interval(5, 10) == pytest.approx((0.5, 0.2366, 0.7634), abs=1e-4)  # Wilson
    assert np.isnan(proportion_interval(0, 0)[0])
    values = np.arange(20, dtype=float)
    mean, low, high = mean_interval(values)
    assert mean == 9.5 and low < mean < high and (low, high) == mean_interval(values)[1:]  # fixed seed
    assert mean_interval([3.0, 3.0]) == (3.0, 3.0, 3.0) and np.isnan(mean_interval([])[0])


def test_score_rules_are_refused_before_any_replay(monkeypatch):
    import tarsim.stopping.study as study

    monkeypatch.setattr(study, "needs_scores", lambda rule: True)
    with pytest.raises(ConfigError, match="--log-scores"):
        check_scores(_ledgers(), [RuleRun("knee", "knee")])
