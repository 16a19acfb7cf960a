"""`--average all|judged`: judged cross-checked with pytrec_eval and ir_measures, all worked out by hand."""

from __future__ import annotations

import json

import pytest

from tarsim.cli import main
from tarsim.errors import ConfigError
from tarsim.metrics import evaluate_run
from tarsim.metrics.averaging import average

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d5": 0}, "q3": {"d3": 1, "d4": 1}}
RUN = {
    "q1": {"d1": 3.0, "d2": 2.0},  # relevant at 1: R@10 1, RR 1, AP 1
    "q2": {"d5": 1.0},  # no relevant document
    "q3": {"d9": 3.0, "d4": 2.0, "d3": 1.0},  # relevant at 2 and 3: R@10 1, RR 1/2, AP (1/2 + 2/3) / 2 = 7/12
    "q4": {"d6": 1.0},  # not in the qrels: a query with no relevant document
}
MEASURES = ["R@10", "RR@10", "AP@100"]


def test_judged_is_pytrec_evals_and_ir_measures_mean_over_every_qrels_topic():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    per_query = evaluate_run(QRELS, RUN, MEASURES)
    judged = average(per_query, MEASURES, mode="judged", topics=list(QRELS))
    results = pytrec_eval.RelevanceEvaluator(QRELS, {"recall.10", "map_cut.100"}).evaluate(RUN)
    assert set(results) == set(QRELS)  # q2, judged only 0, is scored (0); q4 is not judged
    assert judged["R@10"] == pytest.approx(sum(results[t]["recall_10"] for t in QRELS) / len(QRELS))
    assert judged["AP@100"] == pytest.approx(sum(results[t]["map_cut_100"] for t in QRELS) / len(QRELS))
    assert judged == pytest.approx({"R@10": 2 / 3, "RR@10": 1.5 / 3, "AP@100": (1 + 7 / 12) / 3})
    names = [ir_measures.parse_measure(n) for n in ("R@10", "AP@100")]
    expected = ir_measures.calc_aggregate(names, QRELS, RUN)
    assert [judged["R@10"], judged["AP@100"]] == pytest.approx([expected[m] for m in names])


def test_all_counts_queries_without_relevant_documents_as_zero():
    per_query = evaluate_run(QRELS, RUN, MEASURES)
    every = average(per_query, MEASURES, mode="all", topics=["q1", "q2", "q3", "q4"])
    assert every == pytest.approx({"R@10": 2 / 4, "RR@10": 1.5 / 4, "AP@100": (1 + 7 / 12) / 4})
    with pytest.raises(ConfigError, match="all, judged"):
        average(per_query, MEASURES, mode="mean")


def test_evaluate_cli_average(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in QRELS.items() for d, g in docs.items()))
    lines = []
    for topic, docs in RUN.items():
        ranked = sorted(docs, key=docs.get, reverse=True)
        lines += [f"{topic} Q0 {d} {r} {docs[d]} x\n" for r, d in enumerate(ranked, 1)]
    run.write_text("".join(lines))
    figures = {}
    for mode in ("judged", "all"):
        args = ["evaluate", str(qrels), str(run), "--format", "json", "--average", mode]
        assert main([*args, *(x for m in MEASURES for x in ("-m", m))]) == 0
        figures[mode] = json.loads(capsys.readouterr().out)["aggregate"]
    assert figures["judged"]["RR@10"] == pytest.approx(1.5 / 3)  # q1..q3: the qrels' topics, as trec_eval -c
    assert figures["all"]["RR@10"] == pytest.approx(1.5 / 4)  # q1..q4: the qrels' topics and the run's
    with pytest.raises(SystemExit) as refused:
        main(["evaluate", str(qrels), str(run), "--average", "some"])
    assert refused.value.code == 2


def test_bench_defaults_follow_the_papers():
    from tarsim.legal.presets import get_preset

    assert get_preset("pd").average == "all" and get_preset("bbsard-fr").average == "all"
    assert get_preset("eu2uk").average == "judged"


def test_the_run_only_topic_warning_says_what_each_mode_does(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 0\nq3 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 2.0 x\nq2 Q0 d2 1 2.0 x\nq4 Q0 d1 1 2.0 x\n")
    seen = {}
    for mode in ("judged", "all"):
        for missing in ("zero", "skip"):
            argv = ["evaluate", str(qrels), str(run), "-m", "RR", "--format", "json", "--average", mode]
            assert main([*argv, "--missing", missing]) == 0
            captured = capsys.readouterr()
            seen[mode, missing] = json.loads(captured.out)["aggregate"]["RR"], captured.err
    assert seen["judged", "zero"][0] == pytest.approx(1 / 3)  # q1..q3 (trec_eval -c)
    assert seen["judged", "skip"][0] == pytest.approx(1 / 2)  # q1, q2: in the run and the qrels (trec_eval)
    assert seen["all", "zero"][0] == pytest.approx(1 / 4)  # q1..q4
    assert seen["all", "skip"][0] == pytest.approx(1 / 3)  # q1, q2, q4: the run's topics
    for missing in ("zero", "skip"):
        assert "1 of 3 run topics are not in the qrels: ignored, as trec_eval does" in seen["judged", missing][1]
        assert "1 of 3 run topics are not in the qrels: scored 0 (--average all)" in seen["all", missing][1]
