"""Hypothesis properties of the ranked-list measures: bounds, monotonicity, perfect runs, order invariance."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarsim.data import read_qrels, read_run
from tarsim.metrics import Measure, evaluate_run

FAMILIES = ("R", "Success", "P", "nDCG", "AP", "RR")
MEASURES = [
    *(Measure(f, k, rel) for f in FAMILIES for k in (1, 3, 10) for rel in (1, 2)),
    *(Measure(f, None, rel) for f in ("nDCG", "AP", "RR", "RPrec") for rel in (1, 2)),
]
DOCS = [f"d{i}" for i in range(15)]


@st.composite
def qrels_and_run(draw):
    topics = draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=4, unique=True))
    qrels, run = {}, {}
    for topic in topics:
        judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=10))
        qrels[topic] = judged
        if draw(st.booleans()) or topic == topics[0]:
            # few distinct scores, so that ties are common
            run[topic] = draw(
                st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=1, max_size=15)
            )
    return qrels, run


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(qrels_and_run())
def test_every_measure_is_within_unit_interval(data):
    qrels, run = data
    for scores in evaluate_run(qrels, run, MEASURES).values():
        for name, value in scores.items():
            assert 0.0 <= value <= 1.0 + 1e-12, (name, value)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(qrels_and_run(), st.integers(1, 3))
def test_recall_and_success_do_not_decrease_with_k(data, rel):
    qrels, run = data
    cutoffs = list(range(1, 17))
    per_query = evaluate_run(qrels, run, [Measure(f, k, rel) for f in ("R", "Success") for k in cutoffs])
    for scores in per_query.values():
        for family in ("R", "Success"):
            values = [scores[Measure(family, k, rel).name] for k in cutoffs]
            assert values == sorted(values)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(qrels_and_run())
def test_a_perfect_run_scores_one(data):
    qrels, _ = data
    # Rank by grade, best first: every measure reaches its maximum, 1 when the cutoff allows it.
    perfect = {t: {d: float(g) for d, g in judged.items() if g > 0} for t, judged in qrels.items()}
    per_query = evaluate_run(qrels, perfect, MEASURES)
    for topic, scores in per_query.items():
        for measure in MEASURES:
            relevant = sum(g >= measure.rel for g in qrels[topic].values())
            # A cutoff below |relevant| caps R@k and AP@k at k/|relevant|; one above it caps P@k at |relevant|/k.
            if relevant == 0:
                expected = 0.0  # trec_eval scores a topic without a relevant document 0 on every measure
            elif measure.family in ("R", "AP") and measure.cutoff and measure.cutoff < relevant:
                expected = measure.cutoff / relevant
            elif measure.family == "P" and measure.cutoff > relevant:
                expected = relevant / measure.cutoff
            else:
                expected = 1.0
            assert abs(scores[measure.name] - expected) < 1e-12, (topic, measure.name, scores[measure.name])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(qrels_and_run(), st.randoms(use_true_random=False))
def test_permuting_input_lines_changes_nothing(tmp_path_factory, data, rng: random.Random):
    qrels, run = data
    qrels_lines = [f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items()]
    run_lines = [f"{t} Q0 {d} 0 {s} x\n" for t, r in run.items() for d, s in r.items()]
    folder = tmp_path_factory.mktemp("perm")
    results = []
    for _ in range(2):
        rng.shuffle(qrels_lines)
        rng.shuffle(run_lines)
        (folder / "qrels").write_text("".join(qrels_lines))
        (folder / "run").write_text("".join(run_lines))
        results.append(evaluate_run(read_qrels(folder / "qrels"), read_run(folder / "run"), MEASURES))
    assert results[0] == results[1]
    assert list(results[0]) == list(results[1])  # same topic order too
