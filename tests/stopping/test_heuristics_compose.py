"""The simple published heuristics and composition (any, all, notbefore) on hand-built ledgers whose stops are
derived by hand; each replayed and followed online (one judgment at a time), which must agree."""

from __future__ import annotations

import pytest

from ledger_factory import make_ledger, replayed_and_online_stop
from tarsim.errors import ConfigError
from tarsim.stopping import evaluate_stopping, parse_stopping_rule


def stops(ledger, rule: str) -> int | None:
    """The replayed stop, after checking that following the rule online stops at the same judgment."""
    return replayed_and_online_stop(ledger, rule)


# ---- 2399 ------------------------------------------------------------------------------------------------------
def test_2399_stops_at_1_2_r_plus_2399():
    # 100 relevant first, then non-relevant: from p = 100 on r = 100, so the first p >= 1.2 * 100 + 2399 is 2519.
    ledger = make_ledger([1] * 100 + [0] * 2500, size=5000)
    assert stops(ledger, "2399") == 2519
    assert evaluate_stopping(ledger, "2399").recall == 1.0


def test_2399_counts_the_reviewers_labels_with_its_parameters():
    # labels 1 1 1 1 1 then 0s (the truth says none is relevant): p >= r + 10 first holds at p = 15 (r = 5).
    ledger = make_ledger([0] * 25, labels=[1] * 5 + [0] * 20)
    assert stops(ledger, "2399:alpha=1,constant=10") == 15
    assert stops(ledger, "2399") is None  # 25 judgments never reach 1.2 * 5 + 2399


# ---- reviewhalf ------------------------------------------------------------------------------------------------
def test_reviewhalf_stops_at_half_the_collection():
    # a collection of 11 documents: floor(11 / 2) = 5 judgments (TARexp: n_annotated >= n_docs // 2)
    assert stops(make_ledger([1, 0, 0, 1, 0, 0, 0, 0], size=11), "reviewhalf") == 5
    assert stops(make_ledger([1, 0, 0, 1], size=11), "reviewhalf") is None  # 4 < 5


# ---- batchprecision --------------------------------------------------------------------------------------------
ROUNDS = [1 + i // 4 for i in range(20)]  # five rounds of four judgments
LABELS_A = [*[1, 1, 1, 0], *[1, 0, 0, 0], *[0, 0, 0, 0], *[1, 0, 0, 0], *[0, 0, 0, 0]]  # 0.75 .25 0 .25 0
LABELS_B = [*[1, 1, 1, 0], *[1, 0, 0, 0], *[1, 0, 0, 0], *[1, 0, 0, 0], *[0, 0, 0, 0]]  # 0.75 .25 .25 .25 0


def test_batchprecision_by_hand():
    # Rounds end (check points) after 4, 8, 12, 16 judgments (the review goes on: 20 is no check point).
    ledger = make_ledger(LABELS_A, rounds=ROUNDS)
    assert stops(ledger, "batchprecision:0.25") == 8  # round 2: 1/4 <= 0.25 (TARexp compares with <=)
    assert stops(ledger, "batchprecision:0.1") == 12  # round 2's 0.25 > 0.1; round 3: 0
    assert stops(ledger, "batchprecision:0.25:2") == 12  # two consecutive rounds at or below: rounds 2 and 3
    assert stops(ledger, "batchprecision:0.1:2") is None  # round 3 (0), round 4 (0.25) resets, round 5 unchecked


def test_batchprecision_checks_the_last_round_of_an_exhausted_pool():
    # precisions 0.75, 0.25, 0.25, 0.25, 0: only round 5 is at or below 0.1, and it ends a check point only when the
    # pool (20 documents) is exhausted.
    assert stops(make_ledger(LABELS_B, rounds=ROUNDS, size=20), "batchprecision:0.1") == 20
    assert stops(make_ledger(LABELS_B, rounds=ROUNDS, size=1000), "batchprecision:0.1") is None


# ---- fixed and fraction ----------------------------------------------------------------------------------------
def test_fixed_stops_when_the_last_n_labels_hold_no_relevant_one():
    # labels 1 0 0 1 0 0 0 0: the last three labels are all 0 first after judgment 7 (after 3: 1 0 0).
    assert stops(make_ledger([1, 0, 0, 1, 0, 0, 0, 0]), "fixed:3") == 7
    # destiny-evidence's window is every label so far before N are judged: a first non-relevant label stops at 1
    assert stops(make_ledger([0, 0, 1, 0, 0]), "fixed:5") == 1
    assert stops(make_ledger([0, 0, 1, 0, 0]), "nonrel:5") is None


def test_fraction_takes_n_from_the_collection_size():
    labels = [1, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    # 40 documents x 0.1 = 4: judgments 6..9 are the first four non-relevant in a row, so 9
    assert stops(make_ledger(labels, size=40), "fraction:0.1") == 9
    # 40 x 0.01 = 0.4, floored to 0 and raised to 1: the first non-relevant label, judgment 2
    assert stops(make_ledger(labels, size=40), "fraction:0.01") == 2


# ---- composition -----------------------------------------------------------------------------------------------
# labels 1 0 0 1 0 0 0 0 0 0: nonrel:3 stops at 7 (judgments 5, 6, 7), budget:5 at 5, oracle at 4 (the second of
# two relevant documents), budget:50 never.
COMPOSED = {
    "any(nonrel:3,budget:5)": 5,  # min(7, 5)
    "any(budget:50,nonrel:3)": 7,  # budget never fires: nonrel's 7
    "all(nonrel:3,budget:5)": 7,  # max(7, 5)
    "all(nonrel:3,budget:50)": None,  # one never fires
    "notbefore:6:oracle": 6,  # max(6, 4)
    "notbefore:3:nonrel:3": 7,  # max(3, 7)
    "notbefore:20:oracle": None,  # the ledger ends at 10 < 20
    "any(all(oracle,budget:6),notbefore:9:budget:2)": 6,  # min(max(4, 6), max(9, 2))
    "all(any(budget:8,nonrel:3),oracle)": 7,  # max(min(8, 7), 4)
    "notbefore:5:any(oracle,all(budget:2,nonrel:3))": 5,  # max(5, min(4, max(2, 7)))
    "ANY( nonrel:3 , budget:5 )": 5,  # names in any case, spaces around the rules
}


@pytest.mark.parametrize(("rule", "expected"), COMPOSED.items())
def test_composed_rules_by_hand(rule, expected):
    assert stops(make_ledger([1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), rule) == expected


def test_a_composed_rule_with_a_target_sample_costs_the_sample():
    docids = [f"d{i}" for i in range(10)]
    qrels = {"t": {"d0": 1, "d3": 1}}
    ledger = make_ledger([1, 0, 0, 1, 0, 0], size=10)
    alone = evaluate_stopping(ledger, "target:1", docids=docids, qrels=qrels)
    composed = evaluate_stopping(ledger, "any(budget:6,target:1)", docids=docids, qrels=qrels)
    assert composed.sample_size == alone.sample_size and composed.position == min(alone.position, 6)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("any()", "any() lists no rule; give one or more"),
        ("all( )", "all() lists no rule"),
        ("any(kne)", "did you mean knee?"),
        ("all(knee,nonrel:5", "unbalanced parentheses (1 '(' never closed)"),
        ("any(knee))", "unbalanced parentheses (a ')' closes no '(')"),
        ("any(knee,)", "an empty rule in the list"),
        ("any(knee)x", "unexpected 'x' after the closing ')'"),
        ("knee(6)", "knee takes no rules in parentheses; write knee:VALUE"),
        ("notbefore:0:knee", "n must be an integer >= 1"),
        ("notbefore:10", "missing rule; expected notbefore:N:RULE"),
        (
            "notbefore:5:",
            "notbefore needs a stopping rule after N, e.g. notbefore:5:knee",
        ),  # was "empty rule in the list"
        ("fraction:1.5", "fraction must be a number in (0, 1]"),
        ("batchprecision:2", "precision must be a number in [0, 1]"),
        ("any(knee,all(nonrel:x))", "stopping rule 'nonrel:x': run must be an integer >= 1"),
    ],
)
def test_bad_composed_specs_say_what_is_wrong_in_one_line(spec, problem):
    with pytest.raises(ConfigError) as error:
        parse_stopping_rule(spec)
    assert problem in str(error.value) and repr(spec) in str(error.value) and "\n" not in str(error.value)


def test_the_new_rules_are_listed_with_their_references():
    from tarsim.components import kind, summary

    rules = kind("stopping").components
    assert "Yang, Lewis & Frieder" in summary(rules["2399"]) and "TARexp" in summary(rules["reviewhalf"])
    assert "destiny-evidence" in summary(rules["fixed"]) and "destiny-evidence" in summary(rules["fraction"])
    assert "TARexp" in summary(rules["batchprecision"])


def test_named_parameters_inside_a_composition_stay_with_their_rule():
    rule = parse_stopping_rule("any(2399:alpha=1.1,constant=100,knee)")
    assert [inner.spec for inner in rule.rules] == ["2399:alpha=1.1,constant=100", "knee"]
    assert (rule.rules[0].alpha, rule.rules[0].constant) == (1.1, 100.0)
    with pytest.raises(ConfigError):
        parse_stopping_rule("any(knee,constant=100)")  # a named value after a rule that takes none by name
