"""The PD paper's recall@k (a hit rate) and the release evaluator's measures, on cases computed by hand."""

from __future__ import annotations

import math

import pytest

from tarsim.legal.irevaluator import EvaluatorCutoffs, evaluator_means, evaluator_per_query, ranking

QRELS = {
    "A": {"d1": 1, "d2": 1, "d3": 1},  # three gold paragraphs, two of them retrieved (ranks 2 and 4)
    "B": {"d9": 1},  # one gold paragraph, ranked first
    "C": {"d5": 1, "d6": 1},  # gold paragraphs, nothing retrieved (absent from the run)
    "D": {"d1": 0},  # no gold paragraph: the evaluator leaves such a query out
}
RUN = {
    "A": {"x": 5.0, "d2": 4.0, "y": 3.0, "d1": 2.0, "z": 1.0},
    "B": {"d9": 0.9, "x": 0.1},
    "D": {"d1": 1.0},
}


def test_the_two_recalls_differ_when_a_query_has_several_gold_paragraphs() -> None:
    """Paper: recall@5 = share of queries with a gold paragraph in the top 5 = 2/3 (A and B).
    Release evaluator: recall@5 = mean share of each query's gold paragraphs in the top 5 = (2/3 + 1 + 0) / 3."""
    means = evaluator_means(QRELS, RUN)
    assert means["Hit@5"] == pytest.approx(2 / 3)
    assert means["ST-Recall@5"] == pytest.approx(5 / 9)
    assert means["Hit@1"] == pytest.approx(1 / 3)  # only B has its gold paragraph first
    assert means["ST-Recall@1"] == pytest.approx(1 / 3)
    assert means["ST-Recall@3"] == pytest.approx((1 / 3 + 1) / 3)


def test_mrr_ndcg_map_by_hand() -> None:
    per_query = evaluator_per_query(QRELS, RUN)
    assert list(per_query) == ["A", "B", "C"]  # D has no gold paragraph
    a = per_query["A"]
    assert a["MRR@10"] == 0.5
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)  # three gold paragraphs, ranks 1-3
    assert a["nDCG@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert a["MAP@100"] == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert a["ST-Precision@5"] == pytest.approx(2 / 5) and a["ST-Precision@1"] == 0.0
    assert a["nDCG@5"] == a["nDCG@10"]
    assert per_query["B"] == {**dict.fromkeys(per_query["B"], 1.0), **{
        f"ST-Precision@{k}": 1 / k for k in (1, 3, 5, 10)}}  # fmt: skip
    assert set(per_query["C"].values()) == {0.0}
    means = evaluator_means(QRELS, RUN)
    assert means["MRR@10"] == pytest.approx(0.5)
    assert means["MAP@100"] == pytest.approx((1 / 3 + 1) / 3)
    assert means["nDCG@10"] == pytest.approx((a["nDCG@10"] + 1) / 3)


def test_map_divides_by_min_of_k_and_the_number_relevant() -> None:
    """Three relevant, all in the top 3: MAP@2 = (1/1 + 2/2) / min(2, 3) = 1 (trec_eval's AP@2 would give 2/3)."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    means = evaluator_means(qrels, run, EvaluatorCutoffs(accuracy=(1,), precision_recall=(2,), mrr=(1,),
                                                         ndcg=(2,), map=(2,)))  # fmt: skip
    assert means["MAP@2"] == 1.0 and means["ST-Recall@2"] == pytest.approx(2 / 3) and means["nDCG@2"] == 1.0


def test_nDCG_ideal_is_cut_at_k() -> None:
    """One of five gold paragraphs at rank 1: nDCG@1 = 1 (the ideal is cut at k), recall@1 = 1/5."""
    qrels = {"q": dict.fromkeys("abcde", 1)}
    means = evaluator_means(qrels, {"q": {"a": 1.0}}, EvaluatorCutoffs((1,), (1,), (1,), (1, 10), (1,)))
    assert means["nDCG@1"] == 1.0 and means["ST-Recall@1"] == pytest.approx(0.2) and means["MAP@1"] == 1.0
    assert means["nDCG@10"] == pytest.approx(1 / (1 + sum(1 / math.log2(r + 1) for r in range(2, 6))))


def test_ties_keep_the_run_order_and_no_query_means_zero() -> None:
    assert ranking({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "b", "a"]
    assert set(evaluator_means({"q": {"a": 0}}, {"q": {"a": 1.0}}).values()) == {0.0}
    names = list(evaluator_means({}, {}))
    assert names[:4] == ["Hit@1", "Hit@3", "Hit@5", "Hit@10"] and names[-1] == "MAP@100"
