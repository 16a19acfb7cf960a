"""Every ranked-list measure, on every topic, against pytrec_eval (trec_eval) to 1e-9.

Runs: BM25 (bm25s) over Reuters-21578 and a few srd reviews (real data, many tied zero scores in the top
1000), and seeded synthetic runs with heavy ties, graded and negative qrels, topics without relevant
documents, qrels topics missing from the run and run topics missing from the qrels.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from tarsim.data import read_qrels, read_run, read_topics, write_run
from tarsim.errors import ConfigError
from tarsim.metrics import Measure, aggregate, evaluate_run, parse_measure

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
SRD_REVIEWS = ("Cohen_2006_Triptans", "Cohen_2006_Estrogens", "Cohen_2006_ADHD", "Kitchenham_2010")
CUTOFFS = (1, 5, 10, 20, 100, 1000)
FAMILIES_WITH_CUTOFF = ("R", "Success", "P", "nDCG", "AP", "RR")
ALL_MEASURES = [
    *(Measure(family, k) for family in FAMILIES_WITH_CUTOFF for k in CUTOFFS),
    Measure("nDCG"),
    Measure("AP"),
    Measure("RR"),
    Measure("RPrec"),
]
TREC_NAMES = {"R": "recall", "Success": "success", "P": "P", "nDCG": "ndcg_cut", "AP": "map_cut"}


def trec_order(ranked: dict[str, float]) -> list[str]:
    """trec_eval's ranking: float32 score descending, then docid descending (written here independently)."""
    key = {docid: float(np.float32(score)) for docid, score in ranked.items()}
    return sorted(ranked, key=lambda docid: (key[docid], docid), reverse=True)


def reference(qrels, run, measure: Measure) -> dict[str, float]:
    """pytrec_eval's value of `measure` for every qrels topic (0 when the run lacks it, as trec_eval -c)."""
    rel = measure.rel
    if measure.family == "nDCG" and rel > 1:
        # trec_eval's ndcg ignores relevance_level; tarsim's nDCG(rel=N) gives grades below N no gain.
        qrels = {t: {d: (g if g >= rel else 0) for d, g in judged.items()} for t, judged in qrels.items()}
    if measure.family == "RR" and measure.cutoff is not None:
        run = {t: {d: ranked[d] for d in trec_order(ranked)[: measure.cutoff]} for t, ranked in run.items()}
    if measure.cutoff is None:
        name = {"nDCG": "ndcg", "AP": "map", "RR": "recip_rank", "RPrec": "Rprec"}[measure.family]
        key = name
    elif measure.family == "RR":
        name = key = "recip_rank"
    else:
        name = f"{TREC_NAMES[measure.family]}.{measure.cutoff}"
        key = name.replace(".", "_")
    evaluator = pytrec_eval.RelevanceEvaluator({t: dict(j) for t, j in qrels.items()}, {name}, relevance_level=rel)
    results = evaluator.evaluate({t: dict(r) for t, r in run.items() if r})
    return {t: results[t][key] if t in results else 0.0 for t, judged in qrels.items() if judged}


def assert_matches(qrels, run, measures) -> int:
    """Compare tarsim with pytrec_eval on every topic and measure; return the number of comparisons."""
    ours = evaluate_run(qrels, run, measures)
    compared = 0
    for measure in measures:
        expected = reference(qrels, run, measure)
        got = {t: scores[measure.name] for t, scores in ours.items()}
        assert set(got) == set(expected), measure.name
        for topic, value in expected.items():
            assert got[topic] == pytest.approx(value, abs=1e-9), (measure.name, topic, got[topic], value)
            compared += 1
        if expected:
            mean = aggregate({t: {measure.name: v} for t, v in got.items()})[measure.name]
            assert mean == pytest.approx(sum(expected.values()) / len(expected), abs=1e-9)
    return compared


def bm25_run(documents: list[dict], queries: dict[str, str], k: int = 1000) -> dict[str, dict[str, float]]:
    """A BM25 run (top k per query) with bm25s; zero-score ties fill short result lists."""
    bm25s = pytest.importorskip("bm25s")
    texts = [f"{doc.get('title', '')} {doc.get('text', '')}" for doc in documents]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    topic_ids = list(queries)
    tokens = bm25s.tokenize([queries[t] for t in topic_ids], stopwords="en", show_progress=False)
    indices, scores = retriever.retrieve(tokens, k=min(k, len(texts)), show_progress=False, n_threads=1)
    docids = [doc["docid"] for doc in documents]
    return {
        topic: {docids[i]: float(s) for i, s in zip(indices[row].tolist(), scores[row].tolist(), strict=True)}
        for row, topic in enumerate(topic_ids)
    }


def load_docs(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared datasets are not on this machine)")
    return path


@pytest.fixture(scope="session")
def reuters_bm25(tmp_path_factory):
    """Reuters-21578 qrels and a BM25 run of its 120 topics (top 1000), read back from a TREC file."""
    base = need(DATASETS / "reuters21578")
    qrels = read_qrels(base / "qrels.txt")
    run = bm25_run(load_docs(base / "docs.jsonl"), read_topics(base / "topics.tsv"))
    path = tmp_path_factory.mktemp("reuters") / "bm25.run"
    write_run(path, run, tag="bm25")
    return qrels, read_run(path)


@pytest.fixture(scope="session")
def srd_bm25():
    """qrels and a BM25 run (all records ranked) for a few srd reviews, each its own pool."""
    cases = []
    for review in SRD_REVIEWS:
        base = need(DATASETS / "srd" / review)
        run = bm25_run(load_docs(base / "docs.jsonl"), read_topics(base / "topics.tsv"))
        cases.append((read_qrels(base / "qrels.txt"), run))
    return cases


@pytest.mark.slow
def test_reuters_bm25_run_has_ties_and_matches_pytrec_eval(reuters_bm25):
    qrels, run = reuters_bm25
    tied_topics = sum(len(set(r.values())) < len(r) for r in run.values())
    assert tied_topics > 10, "the BM25 run should contain tied scores (the case that needs trec_eval's order)"
    assert assert_matches(qrels, run, ALL_MEASURES) == len(ALL_MEASURES) * len(qrels)


@pytest.mark.slow
def test_reuters_bm25_thresholded_measures_match(reuters_bm25):
    qrels, run = reuters_bm25
    graded = {t: {d: 1 + (i % 3) for i, d in enumerate(sorted(j))} for t, j in qrels.items()}
    measures = [
        parse_measure(name)
        for name in (
            "R(rel=2)@100",
            "P(rel=3)@10",
            "nDCG(rel=2)@20",
            "AP(rel=2)",
            "RR(rel=3)@10",
            "RPrec(rel=2)",
            "Success(rel=3)@5",
            "nDCG",
        )
    ]
    assert assert_matches(graded, run, measures) > 0


@pytest.mark.slow
def test_srd_bm25_runs_match_pytrec_eval(srd_bm25):
    for qrels, run in srd_bm25:
        assert assert_matches(qrels, run, ALL_MEASURES) == len(ALL_MEASURES)


def synthetic(seed: int):
    """Qrels and a run with heavy ties, graded and negative grades, and mismatched topic sets."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:03d}" for i in range(300)] + [f"D{i}" for i in range(30)]  # mixed case: byte order matters
    qrels, run = {}, {}
    for t in range(25):
        topic = f"t{t}"
        judged = rng.choice(len(docs), size=int(rng.integers(1, 60)), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
        if t % 7 == 3:
            grades[:] = 0  # a topic without relevant documents
        qrels[topic] = {docs[i]: int(g) for i, g in zip(judged, grades, strict=True)}
        if t % 5 == 4:
            continue  # a qrels topic missing from the run
        size = int(rng.integers(1, 250))
        retrieved = rng.choice(len(docs), size=size, replace=False)
        scores = rng.integers(0, 6, size=size) / 2.0  # few distinct values: ties everywhere
        run[topic] = {docs[i]: float(s) for i, s in zip(retrieved, scores, strict=True)}
    run["only-in-run"] = {docs[0]: 1.0}
    return qrels, run


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_synthetic_tied_graded_runs_match_pytrec_eval(seed):
    qrels, run = synthetic(seed)
    thresholded = [Measure(m.family, m.cutoff, rel) for m in ALL_MEASURES for rel in (1, 2, 3)]
    assert assert_matches(qrels, run, thresholded) > 0


def test_missing_and_unjudged_topics():
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 0}, "c": {"z": 2}}
    run = {"a": {"x": 0.5, "q": 0.9}, "b": {"x": 1.0}, "zz": {"x": 1.0}}
    per_query = evaluate_run(qrels, run, ["R@1", "R@2", "RR", "nDCG"])
    assert set(per_query) == {"a", "b", "c"}  # b is judged (no relevant doc: 0, as trec_eval); zz is not judged
    assert per_query["b"] == per_query["c"] == {"R@1": 0.0, "R@2": 0.0, "RR": 0.0, "nDCG": 0.0}
    assert per_query["a"]["R@2"] == 1.0 and per_query["a"]["R@1"] == 0.0 and per_query["a"]["RR"] == 0.5
    assert aggregate(per_query)["R@2"] == pytest.approx(1 / 3)


NO_RELEVANT = ["RPrec", "AP", "AP@10", "nDCG", "nDCG@10", "RR", "RR@10", "R@10", "P@5", "Success@1"]
TREC = {"RPrec": "Rprec", "AP": "map", "AP@10": "map_cut_10", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10"}
TREC |= {"RR": "recip_rank", "RR@10": "recip_rank", "R@10": "recall_10", "P@5": "P_5", "Success@1": "success_1"}


def test_topics_judged_only_zero_or_negative_score_zero_and_count_in_the_mean():
    """trec_eval scores every qrels topic: one judged only 0/-1 gets 0 on every measure and counts in the mean."""
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 0, "y": -1}, "c": {"y": -1}, "d": {"z": 2, "x": 0}}
    run = {"a": {"y": 0.9, "x": 0.5}, "b": {"x": 1.0, "y": 0.5}, "c": {"y": 2.0}, "d": {"z": 1.0}}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"Rprec", "map", "map_cut.10", "ndcg", "ndcg_cut.10"} | {"recip_rank", "recall.10", "P.5", "success.1"}
    )
    expected = evaluator.evaluate(run)
    ours = evaluate_run(qrels, run, NO_RELEVANT)
    assert set(ours) == set(expected) == {"a", "b", "c", "d"}
    for topic in ("b", "c"):
        assert ours[topic] == {name: 0.0 for name in NO_RELEVANT}
    for topic, scores in ours.items():
        for name, value in scores.items():
            assert value == pytest.approx(expected[topic][TREC[name]], abs=1e-12), (topic, name)
    means = aggregate(ours)
    assert means["RR"] == pytest.approx((0.5 + 1.0) / 4)  # over all 4 qrels topics, as trec_eval -c
    assert means["AP"] == pytest.approx(sum(expected[t]["map"] for t in qrels) / 4)


def test_the_mean_is_ir_measures_over_every_qrels_topic():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 0}, "c": {"z": 1}, "e": {"x": -1}}
    run = {"a": {"y": 0.9, "x": 0.5}, "b": {"x": 1.0}, "c": {"x": 3.0, "z": 2.0}, "zz": {"x": 1.0}}
    names = ["AP", "nDCG@10", "P@1", "R@10"]
    expected = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
    means = aggregate(evaluate_run(qrels, run, names))
    assert {n: means[n] for n in names} == pytest.approx({n: expected[ir_measures.parse_measure(n)] for n in names})


def test_scores_equal_in_float32_tie_and_are_ordered_by_docid():
    """trec_eval (<= 9.0.8, so pytrec_eval) stores a score as a C float: b and c tie, and c ranks above a."""
    qrels = {"q": {"a": 1, "c": 0}}
    run = {"q": {"a": 0.1000000002, "b": 0.1000000001, "c": 0.1000000001}}
    assert float(np.float32(0.1000000002)) == float(np.float32(0.1000000001))
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P.1"}).evaluate(run)["q"]
    assert expected == pytest.approx({"recip_rank": 1 / 3, "P_1": 0.0})
    assert evaluate_run(qrels, run, ["RR", "P@1"])["q"] == pytest.approx({"RR": 1 / 3, "P@1": 0.0})
    # trec_eval 10.0 reads scores as double: a ranks first.
    assert evaluate_run(qrels, run, ["RR", "P@1"], scores="float64")["q"] == {"RR": 1.0, "P@1": 1.0}
    with pytest.raises(ConfigError, match="float32, float64"):
        evaluate_run(qrels, run, ["RR"], scores="float16")


@pytest.mark.parametrize("seed", range(3))
def test_scores_with_noise_below_float32_precision_match_pytrec_eval(seed):
    """Summation noise (relative 1e-13, as BM25 or neural scores carry) must not reorder what trec_eval ties."""
    qrels, run = synthetic(seed)
    rng = np.random.default_rng(100 + seed)
    noisy = {t: {d: s * (1 + int(rng.integers(0, 10)) * 1e-13) + 0.1 for d, s in r.items()} for t, r in run.items()}
    assert any(len(set(r.values())) > len({np.float32(s) for s in r.values()}) for r in noisy.values())
    thresholded = [Measure(m.family, m.cutoff, rel) for m in ALL_MEASURES for rel in (1, 2)]
    assert assert_matches(qrels, noisy, thresholded) > 0
