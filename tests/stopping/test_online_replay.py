"""Every registered stopping rule stops a running review (`--stop SPEC`) exactly where replaying it on the finished
ledger does, with one reviewer and with two reviewers retraining asynchronously; and each rule declares examples,
a citation and, for target-aware rules, a target recall that refuses values outside (0, 1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tarsim.components import kind
from tarsim.errors import ConfigError
from tarsim.simulator import ReviewConfig, review_topics
from tarsim.stopping import evaluate_stopping, parse_stopping_rule

TOPIC = "T2"  # 117 relevant documents of 2,000
BASES = {
    "one reviewer": ReviewConfig(until="exhausted", log_scores=True),
    "two reviewers": ReviewConfig(
        until="exhausted", reviewers=2, async_retrain=True, retrain_seconds=10, seed=2, log_scores=True
    ),
}
ROUND_END = ("knee", "batchprecision")


def _rule_classes() -> list[type]:
    rules = kind("stopping")
    return [rules.get(name) for name in rules.names(plugins=False)]


EXAMPLES = [spec for cls in _rule_classes() for spec in cls.examples]


@pytest.fixture(scope="module")
def full_ledgers(demo):
    return {name: review_topics(demo, base, [TOPIC]).ledgers[TOPIC] for name, base in BASES.items()}


def _replay(ledger, spec, demo):
    costs = {docid: {"judge": 1, "sent": 3, "words": 60, "seconds": 8.9} for docid in demo.collection.docids}
    # sampled documents priced, not estimated from the ledger (an estimate reads the whole ledger)
    return evaluate_stopping(ledger, spec, docids=demo.collection.docids, qrels=demo.qrels, sample_costs=costs)


def test_every_built_in_rule_has_examples():
    assert len(_rule_classes()) >= 13
    missing = [cls.name for cls in _rule_classes() if not cls.examples]
    assert not missing, f"rules without examples: {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("spec", EXAMPLES)
def test_a_rule_stops_a_running_review_where_its_replay_stops(demo, full_ledgers, base, spec):
    full = full_ledgers[base]
    replayed = _replay(full, spec, demo)
    assert replayed.stopped, f"{spec} fires within this review (else the test shows nothing)"
    stopped = review_topics(demo, replace(BASES[base], stopping=(spec,)), [TOPIC]).ledgers[TOPIC]
    assert stopped.end["stop"] == {"rule": spec, "seq": replayed.position}
    assert _replay(stopped, spec, demo) == replayed
    extra = BASES[base].reviewers - 1 + 1  # in-flight judgments, and the next round's first for round-end rules
    assert replayed.position <= len(stopped) <= replayed.position + extra + 1


@pytest.mark.parametrize("cls", _rule_classes(), ids=lambda cls: cls.name)
def test_a_target_aware_rule_refuses_a_target_outside_0_1(cls):
    names = [param.name for param in cls.params]
    if "target" not in names:
        pytest.skip("no target recall")
    with pytest.raises(ConfigError, match="target"):
        parse_stopping_rule(f"{cls.name}:target=1.5")


def test_a_score_based_rule_on_a_review_without_scores_is_refused_naming_the_fix(demo):
    scored = [cls for cls in _rule_classes() if cls.needs_scores]
    if not scored:
        pytest.skip("no score-based rule registered")
    ledger = review_topics(demo, ReviewConfig(max_effort="R"), [TOPIC]).ledgers[TOPIC]
    with pytest.raises(ConfigError, match="--log-scores"):
        _replay(ledger, scored[0].examples[0], demo)
