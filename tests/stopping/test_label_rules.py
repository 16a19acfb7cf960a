"""The label-based published rules (cmh, buscar, qbcb, ipp, curvefit) on hand-built ledgers whose stops were derived
by hand (the hypergeometric and binomial values in the comments) or by running the reference implementation
(benchmarks/references/label_refs.py: TARexp, buscarpy, destiny-evidence/stopping-methods); each replayed and
followed online (one judgment at a time), which must agree. The references are not needed to run these tests: the
tests that run them are skipped when /work/PEERS or /work/refs are missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger_factory import ledger_lines, make_ledger, replayed_and_online_stop
from tarsim.errors import ConfigError
from tarsim.stopping import ReplayContext, evaluate_stopping, parse_stopping_rule
from tarsim.stopping.sampled import qbcb_required
from tarsim.stopping.target import draw_target_sample

REPO = Path(__file__).resolve().parents[2]
REFS = Path("/work/refs")
PEERS_PYTHON = Path("/work/PEERS/bin/python")


def stops(ledger, rule: str, context: ReplayContext | None = None) -> int | None:
    """The replayed stop, after checking that following the rule online stops at the same judgment."""
    return replayed_and_online_stop(ledger, rule, context)


# Ledger A: a collection of 40 reviewed whole in 8 rounds of 5; relevant labels at judgments 1-4 and 6 (r = 5).
LABELS_A = [1, 1, 1, 1, 0, 1, 0, 0, 0, 0] + [0] * 30
ROUNDS_A = [1 + i // 5 for i in range(40)]

# Ledger B: 600 documents in 30 rounds of 20, 28 relevant ones ever sparser (at int(3 i^1.6)): the stops below were
# found by running the references on it (label_refs.py).
_RELEVANT_B = {int(3 * i**1.6) for i in range(60)}
LABELS_B = [1 if p in _RELEVANT_B else 0 for p in range(600)]
ROUNDS_B = [1 + i // 20 for i in range(600)]
REFERENCE_STOPS_B = {
    "ipp": 240,
    "ipp:target=0.8": 220,
    "ipp:target=0.8,windows=5": 100,
    "ipp:target=0.5,confidence=0.5": 120,
    "curvefit": None,
    "curvefit:target=0.8": 600,
    "curvefit:target=0.7,windows=5": 140,
    "curvefit:target=0.5,confidence=0.5": 120,
    "buscar": None,
    "buscar:target=0.8": 540,
    "buscar:target=0.5,bias=2": 240,
    "buscar:target=0.8,bias=3": 340,
    "cmh": None,
    "cmh:target=0.8": 560,
}
REFERENCE_STOPS_A = {
    "cmh": None,
    "cmh:target=0.5": 30,
    "buscar": 40,
    "buscar:target=0.5": 20,
    "buscar:target=0.5,bias=2": 15,
    "buscar:target=0.8,bias=3": 20,
}

# Ledger C: 400 of 2,000 documents in rounds of 8; no relevant label in the first 140, then 3, then 13 in 190-228.
# curvefit:target=0.7,windows=5 after 216 fits a rate a e^(-kx) with a < 0, so mu < 0 and every Poisson cdf is
# nan: the reference's loop then ends at 0 (bound 0) and it stops.
_RELEVANT_C = {140, 150, 160} | set(range(190, 229, 3))
LABELS_C = [1 if p in _RELEVANT_C else 0 for p in range(400)]
ROUNDS_C = [1 + i // 8 for i in range(400)]
REFERENCE_STOPS_C = {"curvefit:target=0.7,windows=5": 216, "curvefit": None, "ipp": 144}


def ledger_a():
    return make_ledger(LABELS_A, rounds=ROUNDS_A, size=40)


def ledger_b():
    return make_ledger(LABELS_B, rounds=ROUNDS_B, size=600)


# ---- cmh -------------------------------------------------------------------------------------------------------
def test_cmh_by_hand_reads_the_rounds_before_the_latest_as_tarexp_does():
    # target 0.5, alpha 0.05. At the end of round r TARexp counts rounds 1..r-1 (r >= 3) and splits after rounds
    # 2..r-2. End of round 5 (25): counted 20 judgments, r = 5; split after 10: k = 0, M = 30, K = int(5 / 0.5 - 5)
    # = 5, n = 10: C(25, 5) / C(30, 5) = 0.1088; split after 15: M = 25, n = 5: 0.2918. End of round 6 (30):
    # counted 25; split after 10: n = 15: C(20, 5) / C(30, 5) = 0.0211 < 0.05. So 30 (with every round counted
    # it would have fired at 25).
    assert stops(ledger_a(), "cmh:target=0.5") == 30
    # target 0.95: K = int(5 / 0.95 - 5) = int(0.26) = 0 relevant left: P(k <= 0) = 1, never below alpha.
    assert stops(ledger_a(), "cmh") is None


def test_cmh_needs_three_rounds():
    # Two rounds ending (check points 5 and 10 in a review that goes on): TARexp's n_rounds < 2 at both.
    ledger = make_ledger(LABELS_A[:11], rounds=ROUNDS_A[:11], size=40)
    assert stops(ledger, "cmh:target=0.5") is None


def test_cmh_on_a_longer_review_as_tarexp():
    assert stops(ledger_b(), "cmh") is None
    assert stops(ledger_b(), "cmh:target=0.8") == REFERENCE_STOPS_B["cmh:target=0.8"]


# ---- buscar ----------------------------------------------------------------------------------------------------
def test_buscar_by_hand():
    # target 0.5, r = 5: an urn of the last n judgments after the last relevant one (k = 0) needs
    # K = floor(5 / 0.5 + 1 - 5) = 6 relevant among the urn and the unscreened (population 40 - s + n).
    # After 15 judgments the smallest p is at n = 9 (C(25, 6) / C(34, 6) = 0.1317; n = 10, with k = 1 and K = 7:
    # 0.3348). After 20: n = 14 gives C(20, 6) / C(34, 6) = 0.0288 < 0.05.
    assert stops(ledger_a(), "buscar:target=0.5") == 20
    # target 0.95: K = floor(5.26 + 1 - 5) = 1: p = (40 - s) / (40 - s + n) > 0.05 until the collection's end, where
    # the urn of every unscreened document is empty: p = 0 (by the reference too).
    assert stops(ledger_a(), "buscar") == 40


def test_buscar_on_a_longer_review_as_buscarpy():
    for spec in ("buscar", "buscar:target=0.8", "buscar:target=0.5,bias=2", "buscar:target=0.8,bias=3"):
        assert stops(ledger_b(), spec) == REFERENCE_STOPS_B[spec], spec


def test_buscar_with_a_biased_urn_as_buscarpy():
    assert stops(ledger_a(), "buscar:target=0.5,bias=2") == REFERENCE_STOPS_A["buscar:target=0.5,bias=2"]
    assert stops(ledger_a(), "buscar:target=0.8,bias=3") == REFERENCE_STOPS_A["buscar:target=0.8,bias=3"]


def test_buscar_p_value_and_bias():
    rule = parse_stopping_rule("buscar:target=0.5")
    assert rule.p_value([1, 1, 1, 1, 0, 1] + [0] * 14, 40) == pytest.approx(0.028819900899989884, rel=1e-12)
    assert rule.p_value([], 40) is None
    # the urns that end before a relevant label hold the smallest p: the same as computing every urn
    labels = LABELS_B[:300]
    for spec in ("buscar", "buscar:target=0.8", "buscar:target=0.5,confidence=0.9"):
        quick = parse_stopping_rule(spec)
        assert quick.p_value(labels, 600) == quick.p_value(labels, 600, every_urn=True)
    biased = parse_stopping_rule("buscar:target=0.5,bias=2")
    # an urn that favours relevant documents makes none drawn less likely under H0
    assert biased.p_value([1, 1, 1, 1, 0, 1] + [0] * 14, 40) < rule.p_value([1, 1, 1, 1, 0, 1] + [0] * 14, 40)
    with pytest.raises(ConfigError, match="bias"):
        parse_stopping_rule("buscar:bias=0")


# ---- ipp and curvefit ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [s for s in REFERENCE_STOPS_B if s.startswith(("ipp", "curvefit"))])
def test_counting_rules_stop_where_the_reference_does(spec):
    assert stops(ledger_b(), spec) == REFERENCE_STOPS_B[spec]


@pytest.mark.parametrize("spec", list(REFERENCE_STOPS_C))
def test_counting_rules_follow_the_reference_on_a_negative_fit(spec):
    ledger = make_ledger(LABELS_C, rounds=ROUNDS_C, size=2000)
    assert stops(ledger, spec) == REFERENCE_STOPS_C[spec]


def test_counting_rules_refuse_too_few_judgments_or_relevant():
    short = make_ledger([1, 0, 1, 0, 0, 0], rounds=[1, 2, 3, 4, 5, 6], size=6)  # fewer judgments than windows
    assert stops(short, "ipp") is None
    assert stops(short, "curvefit:target=0.1") is None  # fewer than 10 relevant labels


# ---- qbcb ------------------------------------------------------------------------------------------------------
DOCIDS = [f"d{i}" for i in range(30)]
RELEVANT = ("d2", "d3", "d5", "d8", "d13", "d17", "d21", "d26")
QRELS = {"t": {d: int(d in RELEVANT) for d in DOCIDS}}
CONTEXT = ReplayContext(docids=DOCIDS, qrels=QRELS)


def qbcb_ledger(positives: int = 5):
    """A review that presents the sample's positives (tarsim's draw, seed 0) as judgments 2, 5, 9, 12, 15, ..."""
    sample = draw_target_sample(DOCIDS, QRELS["t"], positives, 0, "t")
    others = [d for d in DOCIDS if d not in sample.targets]
    order: list[str] = []
    targets = list(sample.targets)
    while targets or others:
        slot = len(order) + 1
        take_target = targets and (not others or slot in (2, 5, 9) or (slot >= 12 and slot % 3 == 0))
        order.append(targets.pop(0) if take_target else others.pop(0))
    return make_ledger([QRELS["t"][d] for d in order], docids=order, size=30, seed=0), sample


def test_qbcb_required_positives_by_hand():
    # Binomial(5, 0.3): P(X <= 1) = 0.528, P(X <= 2) = 0.837 >= 0.8: j = 2 + 1 = 3.
    assert qbcb_required(5, 0.3, 0.8) == 3
    # Binomial(5, 0.95): P(X <= 4) = 1 - 0.95^5 = 0.226 < 0.95: j = 6 > 5, never certified.
    assert qbcb_required(5, 0.95, 0.95) == 6
    # Binomial(10, 0.5): P(X <= 7) = 0.945, P(X <= 8) = 0.989 >= 0.95: j = 9.
    assert qbcb_required(10, 0.5, 0.95) == 9


def test_qbcb_stops_at_the_jth_sample_positive():
    ledger, sample = qbcb_ledger()
    assert len(sample.targets) == 5
    assert stops(ledger, "qbcb:target=0.3,confidence=0.8,positives=5", CONTEXT) == 9  # the third (j = 3)
    assert stops(ledger, "qbcb:target=0.5,confidence=0.9,positives=5", CONTEXT) == 15  # j = 5 (P(X <= 4) = .969)
    assert stops(ledger, "qbcb:positives=5", CONTEXT) is None  # j = 6 > 5


def test_qbcb_never_fires_when_the_collection_has_fewer_relevant_than_its_sample():
    ledger, _ = qbcb_ledger(positives=5)
    assert stops(ledger, "qbcb:target=0.3,confidence=0.8,positives=9", CONTEXT) is None  # 8 relevant in all


def test_qbcb_charges_its_sample_and_needs_the_collection():
    ledger, sample = qbcb_ledger()
    outcome = evaluate_stopping(ledger, "qbcb:target=0.3,confidence=0.8,positives=5", docids=DOCIDS, qrels=QRELS)
    assert outcome.stopped and outcome.position == 9
    unseen = [d for d in sample.sampled if d not in set(ledger.docids[:9])]
    assert outcome.sample_size == len(sample.sampled)
    assert outcome.effort["judge"] == 9 + len(unseen)
    inside = evaluate_stopping(ledger, "any(qbcb:0.3:0.8:5,budget:100)", docids=DOCIDS, qrels=QRELS)
    assert inside.position == 9
    assert inside.sample_size == len(sample.sampled)  # a sample inside any(...) is charged too
    with pytest.raises(ConfigError, match="--collection"):
        evaluate_stopping(ledger, "qbcb")


# ---- the registry ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["cmh:target=1.5", "buscar:confidence=0", "qbcb:positives=0", "ipp:windows=0"])
def test_bad_parameters_are_refused(spec):
    with pytest.raises(ConfigError):
        parse_stopping_rule(spec)


# ---- the references, when this machine has them ----------------------------------------------------------------
def _references_here() -> bool:
    return PEERS_PYTHON.exists() and (REFS / "mcallaghan+buscarpy").is_dir()


@pytest.mark.skipif(not _references_here(), reason="the reference implementations (/work/PEERS, /work/refs) are absent")
@pytest.mark.parametrize(
    ("labels", "rounds", "size", "expected"),
    [
        (LABELS_A, ROUNDS_A, 40, REFERENCE_STOPS_A),
        (LABELS_B, ROUNDS_B, 600, REFERENCE_STOPS_B),
        (LABELS_C, ROUNDS_C, 2000, REFERENCE_STOPS_C),
    ],
    ids=["A", "B", "C"],
)
def test_the_references_stop_where_the_tests_say(tmp_path, labels, rounds, size, expected):
    path = tmp_path / "ledger.jsonl"
    path.write_text("\n".join(ledger_lines(labels, rounds=rounds, size=size)) + "\n")
    script = REPO / "benchmarks" / "references" / "label_refs.py"
    command = [sys.executable, str(script), "--ledger", str(path), "--refs", str(REFS)]
    for spec in expected:
        command += ["--rule", spec]
    answers = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    assert {answer["rule"]: answer["stop"] for answer in map(json.loads, answers)} == expected
