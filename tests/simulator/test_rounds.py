"""A review as an iterator of rounds, online stopping (equal to replaying the rule), and strategies as objects."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest

from conftest import demo_simulation
from ledger_factory import replayed_and_online_stop
from tarsim.data.ledger import ledger_from_lines
from tarsim.errors import ConfigError
from tarsim.simulator import ReviewConfig, review_topics
from tarsim.simulator.ledger import MemoryLedgerWriter
from tarsim.simulator.review import ReviewSimulation
from tarsim.simulator.rounds import LedgerSoFar
from tarsim.simulator.strategies import (
    RankByBestSentence,
    RankDocuments,
    ReviewStrategy,
    ShowDocument,
    ShowSentence,
    TrainOnDocuments,
    TrainOnSentences,
)
from tarsim.stopping import ReplayContext, StoppingRule, evaluate_stopping, parse_stopping_rule
from tarsim.stopping.checks import KneeCheck
from tarsim.stopping.online import OnlineStopping
from tarsim.stopping.rules import KNEE_MIN_REVIEWED

TOPIC = "T2"  # 117 relevant documents of 2,000

BASES = {
    0: ReviewConfig(until="exhausted", max_effort="2R"),
    1: ReviewConfig(until="exhausted", max_effort="2R", feedback="sentence", train_on="sentence", seed=1),
    2: ReviewConfig(until="exhausted", max_effort="2R", reviewers=2, async_retrain=True, retrain_seconds=10, seed=2),
}
"""One configuration per seed: BMI; sentences shown and trained on; two reviewers with asynchronous retraining."""

RULES = (
    "budget:0.5R",
    "budget:R:clock",
    "knee:6",
    "target:5",
    "nonrel:20",
    "oracle",
    "batchprecision:0.2",
    "any(knee:6,budget:0.5R)",
    "all(nonrel:20,target:5)",
    "notbefore:100:any(nonrel:20,batchprecision:0.1)",
)
"""One rule per family (budget also in the clock model, whose costs come from the ledger's times), and composed
rules (2399 and reviewhalf do not fire within these reviews: the long review below checks them)."""
ROUND_END = ("knee", "batchprecision")
"""Rules checked at a round's end: the review holds one judgment more (the next round's first)."""


@pytest.fixture(scope="module")
def features(demo_features):
    return demo_features


@pytest.fixture(scope="module")
def full_ledgers(demo, features):
    return {seed: review_topics(demo, base, [TOPIC], features=features).ledgers[TOPIC] for seed, base in BASES.items()}


def _replay(ledger, rule, demo):
    costs = {docid: {"judge": 1, "sent": 3, "words": 60, "seconds": 8.9} for docid in demo.collection.docids}
    return evaluate_stopping(
        ledger,
        rule,
        docids=demo.collection.docids,
        qrels=demo.qrels,
        sample_costs=costs,  # priced, not estimated from the ledger (an estimate reads the whole ledger)
        effort_models=("judge", "sent", "lambda:0.5", "seconds", "clock"),
    )


def _judgments(ledger) -> list[tuple]:
    return list(zip(ledger.docids, ledger.label, ledger.time, ledger.reviewer, ledger.round, strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(BASES))
@pytest.mark.parametrize("rule", RULES)
def test_online_stopping_equals_replaying_the_rule_on_the_finished_ledger(demo, features, full_ledgers, seed, rule):
    full = full_ledgers[seed]
    stopped = review_topics(demo, replace(BASES[seed], stopping=(rule,)), [TOPIC], features=features).ledgers[TOPIC]
    replayed = _replay(full, rule, demo)
    assert replayed.stopped, "every rule fires within these reviews (else the test shows nothing)"
    assert _replay(stopped, rule, demo) == replayed
    assert stopped.end["stop"] == {"rule": rule, "seq": replayed.position}
    assert stopped.end["reason"] == f"stopping rule {rule} fired"
    # the review went no further than needed: in-flight judgments of other reviewers, or one judgment more for a
    # rule checked at a round's end (the next round's first judgment says that the round ended)
    extra = BASES[seed].reviewers - 1 + any(name in rule for name in ROUND_END)
    assert replayed.position <= len(stopped) <= replayed.position + max(extra, 0) + 1
    assert len(stopped) < len(full)
    if BASES[seed].reviewers == 1:  # the same review up to the stop
        assert _judgments(stopped) == _judgments(full)[: len(stopped)]


class _EveryNth(StoppingRule):
    """A rule of no built-in kind (as a plugin's): replayed in full after every judgment."""

    def stop_position(self, ledger, context):
        return 7 if len(ledger) >= 7 else None


@pytest.mark.parametrize("seed", sorted(BASES))
def test_rules_followed_incrementally_stop_where_their_replay_does(demo, full_ledgers, seed):
    full = full_ledgers[seed]
    context = ReplayContext(docids=demo.collection.docids, qrels=demo.qrels)
    rules = ["knee", "knee:3", "knee:6", "nonrel:5", "nonrel:40", "oracle", "target:2", "target:20", "budget:R:sent"]
    for rule in [*rules, _EveryNth("every7")]:
        stop = replayed_and_online_stop(full, rule, context)  # asserts the online stop equals the replayed one
        if not isinstance(rule, str):
            assert stop == 7, rule


def _long_review(n: int = 3000) -> tuple[dict, list[dict]]:
    """A long review's header and judgment records with irregular effort (6-decimal times, as ledgers hold)."""
    rng = np.random.default_rng(7)
    seconds = np.round(rng.uniform(3.0, 40.0, n), 6)
    time = np.round(np.cumsum(seconds + rng.uniform(0.0, 5.0, n)), 6)  # clock: reading plus waiting
    records = [
        {
            "docid": f"d{i}",
            "sentence": None,
            "label": int(i % 7 == 0),
            "truth": int(i % 7 == 0),
            "reviewer": 0,
            "round": 1 + i // 10,
            "time": float(time[i]),
            "effort": {"judge": 1.0, "sent": float(1 + i % 13), "words": 30.0, "seconds": float(seconds[i])},
        }
        for i in range(n)
    ]
    return {"topic": "long", "collection_size": 2 * n, "relevant": n // 7, "seed": 0}, records


@pytest.mark.parametrize("model", ["judge", "sent", "lambda:0.3", "seconds", "clock"])
def test_a_budget_followed_incrementally_stops_where_its_replay_does_on_a_long_review(model):
    header, records = _long_review()
    so_far = LedgerSoFar(header, len(records))
    for record in records:
        so_far.add_judgment(record)
    full = so_far.view(end={"reason": "pool exhausted"})
    costs = {
        "judge": [r["effort"]["judge"] for r in records],
        "sent": [r["effort"]["sent"] for r in records],
        "lambda:0.3": [0.7 * r["effort"]["judge"] + 0.3 * r["effort"]["sent"] for r in records],
        "seconds": [r["effort"]["seconds"] for r in records],
        "clock": [b - a for a, b in itertools.pairwise([0.0, *(r["time"] for r in records)])],
    }[model]
    # budgets at the effort after judgment 1, 1234 and 2999 (summed another way: the edge of the tolerance) or never
    targets = [1, 1234, 2999, None]
    budgets = [repr(math.fsum(costs[:p])) if p else f"{2 * math.fsum(costs):.0f}" for p in targets]
    for target, budget in zip(targets, budgets, strict=True):
        spec = f"budget:{budget}:{model}"
        replayed = parse_stopping_rule(spec).stop_position(full, ReplayContext())
        assert replayed is None if target is None else abs(replayed - target) <= 1, spec
        fired = _online_stop(spec, header, records)
        assert (fired.seq if fired else None) == replayed, spec


@pytest.mark.parametrize(
    "rule",
    [
        "2399",
        "reviewhalf",
        "batchprecision:0.1",
        "batchprecision:0.1:2",
        "fixed:6",
        "fraction:0.001",
        "any(2399,batchprecision:0.05)",
        "all(knee:2,2399)",
        "notbefore:2900:reviewhalf",
    ],
)
def test_the_heuristics_and_composed_rules_followed_incrementally_stop_where_their_replay_does(rule):
    header, records = _long_review()
    so_far = LedgerSoFar(header, len(records))
    for record in records:
        so_far.add_judgment(record)
    replayed = parse_stopping_rule(rule).stop_position(so_far.view(), ReplayContext())
    assert replayed is not None
    fired = _online_stop(rule, header, records)
    assert fired is not None and fired.seq == replayed


def _online_stop(rule: str, header: dict, records: list[dict]):
    """The online check of `rule` fed the records one judgment at a time: what fired first, or None."""
    online, so_far = OnlineStopping([rule], ReplayContext()), LedgerSoFar(header, len(records))
    for record in records:
        so_far.add_judgment(record)
        fired = online.check(so_far.view(stable=False))
        if fired is not None:
            return fired
    return None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_knee_followed_incrementally_finds_the_replays_knee_at_every_check(seed):
    # labels in runs (many collinear gain points: ties for the knee), a round ending at every judgment
    rng = np.random.default_rng(seed)
    labels = np.repeat(rng.random(300) < np.linspace(0.9, 0.0, 300), rng.integers(1, 6, 300))[:800].astype(int)
    gain = np.concatenate([[0], np.cumsum(labels)]).astype(np.float64)
    check = KneeCheck(parse_stopping_rule("knee:1e9"))  # never fires: every check point is checked
    header, records = _long_review(len(labels))
    so_far = LedgerSoFar(header, len(records))
    for index, record in enumerate(records):
        so_far.add_judgment({**record, "label": int(labels[index]), "round": index})
        assert check.stop_position(so_far.view(stable=False), ReplayContext()) is None
        s = index  # the check at this round change: knee by np.argmax, as slope_ratio takes it
        if s >= 2 and gain[s] > 0:
            k = np.arange(1, s)
            assert check._knee(s) == int(k[int(np.argmax(s * gain[1:s] - gain[s] * k))]), s


@pytest.mark.parametrize("rule", ["knee", "knee:2", "knee:4"])
def test_the_knee_followed_incrementally_stops_where_its_replay_does_on_a_long_review(rule):
    rng = np.random.default_rng(5)
    labels = (rng.random(3000) < np.geomspace(0.8, 0.002, 3000)).astype(int)
    header, records = _long_review(len(labels))
    records = [{**r, "label": int(labels[i]), "round": i // 3} for i, r in enumerate(records)]
    so_far = LedgerSoFar(header, len(records))
    for record in records:
        so_far.add_judgment(record)
    replayed = parse_stopping_rule(rule).stop_position(so_far.view(), ReplayContext())
    assert replayed is not None and replayed > KNEE_MIN_REVIEWED
    fired = _online_stop(rule, header, records)
    assert fired is not None and fired.seq == replayed


def test_a_rule_that_never_fires_leaves_the_review_as_it_was(demo, features, full_ledgers):
    stopped = review_topics(demo, replace(BASES[0], stopping=("nonrel:1000",)), [TOPIC], features=features)
    ledger = stopped.ledgers[TOPIC]
    assert _judgments(ledger) == _judgments(full_ledgers[0])
    assert "stop" not in ledger.end and ledger.end["reason"] == full_ledgers[0].end["reason"]


def test_the_first_rule_to_fire_stops_the_review(demo, features):
    config = replace(BASES[0], stopping=("nonrel:1000", "budget:30", "budget:10"))
    ledger = review_topics(demo, config, [TOPIC], features=features).ledgers[TOPIC]
    assert ledger.end["stop"] == {"rule": "budget:10", "seq": 10}
    assert len(ledger) == 10


def _simulation(demo, features, config: ReviewConfig) -> tuple[ReviewSimulation, MemoryLedgerWriter]:
    return demo_simulation(demo, features, config, TOPIC)


@pytest.mark.parametrize("seed", [0, 2])
def test_rounds_yield_the_ledger_so_far_and_end_as_run_does(demo, features, seed):
    config = replace(BASES[seed], max_effort="R")
    stepped, writer = _simulation(demo, features, config)
    states = list(stepped.rounds())
    ran, reference = _simulation(demo, features, config)
    end = ran.run()
    assert writer.lines == reference.lines  # iterating rounds is the same review as run()
    assert stepped.end == end
    ledger = ledger_from_lines(writer.lines)
    assert [s.round for s in states] == list(range(1, len(ledger.rounds) + 1))
    assert all(a.judgments <= b.judgments and a.time <= b.time for a, b in itertools.pairwise(states))
    for state in states:
        view = state.ledger
        assert len(view) == state.judgments
        assert view.docids == ledger.docids[: state.judgments]
        assert np.array_equal(view.label, ledger.label[: state.judgments])
        assert np.array_equal(view.prior, ledger.prior[: state.judgments])
        assert state.relevant_found == int((ledger.truth[: state.judgments] > 0).sum())
        assert state.effort["judge"] == state.judgments
        assert len(view.rounds) == state.round
        if config.reviewers == 1:  # synchronous: a round ends when its whole batch is judged
            assert state.judgments == int((ledger.round <= state.round).sum())
    assert states[-1].stopped == ledger.end["reason"]
    # judgments in flight when the last round ended are recorded after it (the end record counts them)
    assert states[-1].judgments <= len(ledger) == end["judgments"] <= states[-1].judgments + config.reviewers - 1


def test_a_simulation_runs_once(demo, features):
    simulation, _ = _simulation(demo, features, replace(BASES[0], max_effort="5"))
    simulation.run()
    with pytest.raises(ConfigError, match="runs once"):
        simulation.run()


@pytest.mark.parametrize(
    ("settings", "parts"),
    [
        ({}, (ShowDocument, TrainOnDocuments, RankDocuments)),
        ({"feedback": "sentence"}, (ShowSentence, TrainOnDocuments, RankByBestSentence)),
        ({"feedback": "sentence", "rank_by": "document"}, (ShowSentence, TrainOnDocuments, RankDocuments)),
        ({"train_on": "sentence"}, (ShowDocument, TrainOnSentences, RankDocuments)),
        ({"feedback": "sentence", "train_on": "sentence"}, (ShowSentence, TrainOnSentences, RankByBestSentence)),
    ],
)
def test_a_configuration_names_its_strategy_objects(settings, parts):
    strategy = ReviewStrategy.from_config(ReviewConfig(**settings))
    assert tuple(type(p) for p in (strategy.shown, strategy.trained, strategy.ranked)) == parts
    assert strategy.needs_sentence_scores == ("sentence" in settings.values())


def test_round_views_mark_prior_judgments_as_the_ledger_file_does(demo, features):
    config = replace(BASES[0], n_prior_included=1, n_prior_excluded=2, prior_seed=0, max_effort="R")
    stepped, writer = _simulation(demo, features, config)
    states = list(stepped.rounds())
    ledger = ledger_from_lines(writer.lines)
    assert ledger.prior.sum() == 3 and ledger.prior[:3].all()
    for state in states:
        assert np.array_equal(state.ledger.prior, ledger.prior[: state.judgments])
