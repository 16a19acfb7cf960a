"""CLEF TAR's measures: equal to the official script's per-topic output on the real 2017 runs, and hand-computed
small cases for each measure and each of the script's rules (docs/clef.md)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_dataset
from ledger_factory import make_ledger
from tarsim.cli import main
from tarsim.errors import ConfigError, InputError
from tarsim.interop.clef_runs import ClefRunLine, clef_run_from_ledger, read_clef_run, write_clef_run
from tarsim.metrics.clef import (
    MEASURES,
    NCG_MEASURES,
    TopicScorer,
    clef_measure_names,
    evaluate_clef,
    evaluate_ledger,
    format_value,
)

LEVELS = {"abstract": "qrel_abs_test.txt", "document": "qrel_content_test.txt"}
RUNS = ("waterloo.A-rank-normal", "waterloo.B-thresh-normal")


def read_official(path) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The script's printed output: topic -> measure -> printed value (topic_id lines left out), skipped topics."""
    printed: dict[str, dict[str, str]] = {}
    skipped = []
    for line in path.read_text().splitlines():
        if line.startswith("Skipping topic: "):
            skipped.append(line.removeprefix("Skipping topic: "))
            continue
        topic, measure, value = line.split("\t")
        if measure != "topic_id":
            printed.setdefault(topic, {})[measure] = value
    return printed, skipped


@pytest.mark.parametrize("run_name", RUNS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_measure_of_every_topic_equals_the_official_output(level, run_name):
    root = shared_dataset("raw", "clef_tar_2017")
    from tarsim.data import read_qrels

    official, skipped = read_official(root / f"official-results-{level}" / f"{run_name}.results")
    evaluation = evaluate_clef(
        read_qrels(root / "qrels" / LEVELS[level]), read_clef_run(root / "runs" / f"{run_name}.txt")
    )
    ours = {t.topic: t.values for t in evaluation.topics} | {"ALL": evaluation.aggregate}
    assert list(ours) == list(official)  # the same topics, in the same (run) order, and ALL
    assert evaluation.skipped == skipped
    differences = [
        (topic, name, format_value(values[name]), official[topic][name])
        for topic, values in ours.items()
        for name in MEASURES
        if format_value(values[name]) != official[topic][name]
    ]
    assert list(official["ALL"]) == list(MEASURES)
    assert differences == []  # 31 (abstract) or 30 (document) rows x 27 measures, every printed value equal


def test_the_command_prints_the_official_output_byte_for_byte(capsys):
    root = shared_dataset("raw", "clef_tar_2017")
    run = root / "runs" / "waterloo.B-thresh-normal.txt"
    code = main(["evaluate", str(root / "qrels" / "qrel_content_test.txt"), str(run), "--measures", "clef"])
    captured = capsys.readouterr()
    official = (root / "official-results-document" / "waterloo.B-thresh-normal.results").read_text()
    assert code == 0
    assert captured.out.splitlines() == [x for x in official.splitlines() if not x.startswith("Skipping topic")]
    assert "skipping topic CD010653" in captured.err


def scored(topic: str, num_docs: int, num_rels: int, lines) -> dict:
    scorer = TopicScorer(topic, num_docs, num_rels)
    for value, action in lines:
        scorer.add(value, action)
    return scorer.result().values


def printed(values: dict) -> dict[str, str]:
    return {name: format_value(value) for name, value in values.items()}


# A 10-document topic, relevant documents at ranks 2, 5 and 9, every one AF.
QRELS_S = {"S": {f"s{i}": int(i in (2, 5, 9)) for i in range(1, 11)}}
RUN_S = [ClefRunLine("S", "AF", f"s{i}", i) for i in range(1, 11)]


def test_a_ten_document_ranking_by_hand():
    values = evaluate_clef(QRELS_S, RUN_S).topics[0].values
    assert printed(values) == {
        "num_docs": "10",
        "num_rels": "3",
        "num_shown": "10",
        "num_feedback": "10",
        "rels_found": "3",
        "last_rel": "9",
        "wss_100": "0.1",  # (10 - 9) / 10
        "wss_95": "0.05",  # 95% of 3 rounds to 3: (10 - 9) / 10 - 0.05
        # N = 10 is a multiple of 10: checkpoint k lands on decile k, so NCG@10 is never set and NCG@(10k+10)
        # is the gain at rank k (the script's shift); NCG@100 is the gain at rank 9
        "NCG@10": "0.0",
        "NCG@20": "0.0",
        "NCG@30": "0.333",
        "NCG@40": "0.333",
        "NCG@50": "0.333",
        "NCG@60": "0.667",
        "NCG@70": "0.667",
        "NCG@80": "0.667",
        "NCG@90": "0.667",
        "NCG@100": "1.0",
        "total_cost": "30.0",  # 10 x (assess 1 + feedback 2)
        "total_cost_uniform": "30.0",
        "total_cost_weighted": "30.0",
        "norm_area": "0.608",  # 15.5 / (3 * 10 - 3 * 3 / 2)
        "ap": "0.411",  # (1/2 + 2/5 + 3/9) / 3
        "r": "1.0",
        "loss_e": "0.943",  # (100 / 10)^2 (10 / 103)^2
        "loss_r": "0.0",
        "loss_er": "0.943",
    }


# A thresholded run (NS after the threshold) with NF, a duplicate, a qrels value 3, an unjudged document, a -1
QRELS_T = {"T": dict(zip("abcdefghijklm", [1, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, -1, 3], strict=True))}
SHOWN_T = [("AF", "a"), ("AF", "b"), ("AF", "a"), ("AF", "m"), ("NF", "c"), ("AF", "d"), ("AF", "x")]
RUN_T = [
    ClefRunLine("T", action, docid, number)
    for number, (action, docid) in enumerate(
        [*SHOWN_T, ("NS", "e"), ("NS", "g"), ("NS", "f"), ("NS", "j")],
        start=1,
    )
]


def test_a_thresholded_run_with_every_rule_by_hand():
    evaluation = evaluate_clef(QRELS_T, RUN_T)
    assert evaluation.duplicates == [("T", "a", 3)]  # skipped entirely: not shown, no cost
    assert (
        printed(evaluation.topics[0].values)
        == {
            "num_docs": "11",  # 13 judged, less the -1 and the 3
            "num_rels": "4",  # values 1 and 2
            "num_shown": "5",  # a b c d x: the duplicate and the value 3 are skipped, NS not shown
            "num_feedback": "4",  # NF gives none
            "rels_found": "2",
            "last_rel": "4",
            "wss_100": "0",  # recall below 1: the integer 0, as printed
            "wss_95": "0",  # round(3.8) = 4 not reached
            # N = 11: step int(11 / 10) = 1, NS lines count for the rank; checkpoint k lands on decile int(10k/11)
            "NCG@10": "0.25",
            "NCG@20": "0.25",
            "NCG@30": "0.25",
            **{name: "0.5" for name in NCG_MEASURES[3:]},
            "total_cost": "13.0",  # 4 AF x 3 + 1 NF x 1 + 4 NS x 0
            "total_cost_uniform": "19.0",  # + (6 unseen x 2) x 2 missed / 4
            "total_cost_weighted": "19.0",  # + (6 x 2) (1 - 0.5^(2 - 1))
            "norm_area": "0.5",  # (6 + 6 unseen x 2) / (4 x 11 - 8)
            "ap": "0.375",  # (1/1 + 2/4) / 4
            "r": "0.5",
            "loss_e": "0.191",  # (100 / 11)^2 (5 / 104)^2
            "loss_r": "0.25",
            "loss_er": "0.441",
        }
    )


def test_the_cost_measure_reads_extra_interaction_codes_its_own_way():
    # AFN counts as feedback for the cost only, NFN as not shown for the cost only
    values = scored("C", 10, 1, [(1, "AFN"), (0, "NFN"), (0, "AF")])
    assert (values["num_shown"], values["num_feedback"]) == (3, 1)
    assert values["total_cost"] == 6.0  # 3 (AFN as AF) + 0 (NFN as NS) + 3
    assert values["norm_area"] == 1.0  # the area counts all three as shown: 9.5 / 9.5


def test_weighted_penalty_is_zero_for_one_missed_document():
    values = scored("W", 10, 2, [(1, "AF"), (0, "AF")])
    assert values["total_cost_uniform"] == 6.0 + (8 * 2.0) * 1 / 2
    assert values["total_cost_weighted"] == 6.0  # N_unseen * 2 * (1 - 0.5 ** 0) = 0


def test_the_95_percent_target_rounds_half_to_even():
    # 30 relevant: 95% is 28.5, Python 3 rounds it to 28 (Python 2 would say 29, and wss_95 would be 0.45)
    lines = [(1, "AF")] * 28 + [(0, "AF")] * 21 + [(1, "AF")] * 2 + [(0, "AF")] * 49
    values = scored("H", 100, 30, lines)
    assert math.isclose(values["wss_95"], (100 - 28) / 100 - 0.05)
    assert values["wss_100"] == (100 - 51) / 100


def test_more_documents_shown_than_the_qrels_hold():
    qrels = {"U": {f"d{i}": int(i == 0) for i in range(10)}}
    run = [ClefRunLine("U", "AF", d) for d in ["x1", "x2", *qrels["U"]]]  # two unjudged documents first
    values = printed(evaluate_clef(qrels, run).topics[0].values)
    assert values["num_docs"] == "10" and values["num_shown"] == "12"
    assert (values["wss_100"], values["wss_95"]) == ("0.75", "0.7")  # N taken as 12: (12 - 3) / 12
    assert values["norm_area"] == "0.826"  # 9.5 / (1 x 12 - 0.5)
    assert values["loss_e"] == "0.98"  # (100 / 12)^2 (12 / 101)^2
    assert values["NCG@30"] == "0.0" and values["NCG@40"] == "1.0"


def test_the_cost_penalty_is_not_corrected_when_more_were_shown_than_n():
    qrels = {"U": {f"d{i}": int(i in (0, 9)) for i in range(10)}}
    run = [ClefRunLine("U", "AF", d) for d in ["x1", "x2", "x3", *list(qrels["U"])[:9]]]  # d9 (relevant) missed
    values = evaluate_clef(qrels, run).topics[0].values
    assert values["num_shown"] == 12 and values["total_cost"] == 36.0
    assert values["total_cost_uniform"] == 34.0  # 36 + (10 - 12) x 2 x 1 / 2: a negative penalty


def test_the_aggregate_sums_counts_averages_the_rest_and_ncg_is_a_ratio_of_means():
    evaluation = evaluate_clef(QRELS_S | QRELS_T, RUN_S + RUN_T)
    total = evaluation.aggregate
    assert [t.topic for t in evaluation.topics] == ["S", "T"]
    assert (total["num_docs"], total["num_rels"], total["num_shown"], total["rels_found"]) == (21, 7, 15, 5)
    assert total["last_rel"] == 6.5 and total["wss_100"] == 0.05
    assert format_value(total["norm_area"]) == "0.554"  # the mean of the rounded 0.608 and 0.5
    assert format_value(total["NCG@100"]) == "0.714"  # (3 + 2) / 2 over (3 + 4) / 2, not the mean 0.75


def test_topics_without_relevant_documents_or_qrels_are_skipped():
    qrels = QRELS_S | {"Z": {f"z{i}": 0 for i in range(10)}}
    run = [ClefRunLine("Z", "AF", "z1"), ClefRunLine("Q", "AF", "q1"), *RUN_S]
    evaluation = evaluate_clef(qrels, run)
    assert evaluation.skipped == ["Z", "Q"]
    assert [t.topic for t in evaluation.topics] == ["S"]


def test_a_topic_whose_lines_are_apart_is_evaluated_twice_with_the_looked_up_documents():
    run = [*RUN_S[:5], ClefRunLine("S", "AF", "unjudged"), *RUN_T, *RUN_S[5:]]
    topics = evaluate_clef(QRELS_S | QRELS_T, run).topics
    assert [t.topic for t in topics] == ["S", "T", "S"]
    assert topics[0].values["num_docs"] == 10
    assert topics[2].values["num_docs"] == 11  # the script's qrels table kept "unjudged" (as 0) from block one


def test_no_topic_left_gives_the_scripts_starting_values():
    evaluation = evaluate_clef({"Z": {"z": 0}}, [ClefRunLine("Z", "AF", "z")])
    assert printed(evaluation.aggregate)["num_docs"] == "0"
    assert printed(evaluation.aggregate)["wss_100"] == "0.0"


def test_fewer_than_ten_documents_is_one_line():
    with pytest.raises(InputError, match=r"qrels: topic 'V' has 9 documents; CLEF's NCG@k needs at least 10"):
        evaluate_clef({"V": {f"v{i}": 1 for i in range(9)}}, [ClefRunLine("V", "AF", "v1")])


def test_measure_names():
    assert clef_measure_names(["clef"]) == list(MEASURES)
    assert clef_measure_names(["wss_95,loss_er", "NCG@10"]) == ["wss_95", "loss_er", "NCG@10"]
    assert clef_measure_names(["ap"]) is None  # trec_eval's AP, as before
    assert clef_measure_names(["clef:ap", "r"]) == ["ap", "r"]
    assert clef_measure_names(["ap", "wss_95"]) == ["ap", "wss_95"]
    assert clef_measure_names(["R@100", "nDCG@10"]) is None
    with pytest.raises(ConfigError, match=r"CLEF measures \(wss_95\) cannot be mixed with ranked-list"):
        clef_measure_names(["wss_95", "R@100"])


# tarsim's own reviews


def test_a_ledger_becomes_the_run_the_script_would_evaluate(tmp_path):
    ledger = make_ledger([0, 1, 0, 0, 1, 0], docids=["a", "b", "b", "c", "d", "e"], size=10, relevant=3, topic="L")
    lines = clef_run_from_ledger(ledger)
    assert [(x.topic, x.interaction, x.docid) for x in lines] == [("L", "AF", d) for d in "abcde"]
    path = tmp_path / "review.clef"
    write_clef_run(path, lines)
    assert path.read_text().splitlines()[0] == "L AF a 1 5 tarsim"
    assert [(x.topic, x.interaction, x.docid) for x in read_clef_run(path)] == [
        (x.topic, x.interaction, x.docid) for x in lines
    ]
    values = printed(evaluate_ledger(ledger).values)
    assert (values["num_docs"], values["num_rels"], values["num_shown"], values["rels_found"]) == ("10", "3", "5", "2")
    assert values["total_cost"] == "15.0" and values["total_cost_uniform"] == "18.333"  # + 5 x 2 x 1 / 3
    assert values["total_cost_weighted"] == "15.0" and values["r"] == "0.667"
    # the same as the script on the written run with qrels listing the collection's ten documents
    qrels = {"L": {d: int(d in "bdz") for d in "abcdefghiz"}}
    assert evaluate_clef(qrels, read_clef_run(path)).topics[0].values == evaluate_ledger(ledger).values


def test_prior_judgments_can_be_left_out():
    ledger = make_ledger([1, 0, 1], size=10, relevant=2)
    ledger = dataclasses.replace(ledger, prior=np.array([True, False, False]))
    assert [x.docid for x in clef_run_from_ledger(ledger, priors="exclude")] == ["d1", "d2"]
    assert evaluate_ledger(ledger, priors="exclude").values["rels_found"] == 1
    with pytest.raises(ConfigError):
        clef_run_from_ledger(ledger, priors="some")


# the command line


def test_named_measures_csv_and_json(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"S 0 {d} {g}\n" for d, g in QRELS_S["S"].items()))
    run = tmp_path / "run"
    run.write_text("".join(f"S AF {x.docid} {x.line} {-x.line} r\n" for x in RUN_S))
    assert main(["evaluate", str(qrels), str(run), "-m", "wss_95,loss_er"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "S\twss_95\t0.05",
        "S\tloss_er\t0.943",
        "ALL\twss_95\t0.05",
        "ALL\tloss_er\t0.943",
    ]
    assert main(["evaluate", str(qrels), str(run), "-m", "ap", "-m", "clef:r", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:3] == ["S,ap,0.41111111111111115", "S,r,1.0"]


@pytest.mark.parametrize(
    ("run_text", "argv", "fragment"),
    [
        ("S AF s1 1 -1\n", [], "run:1: expected 6 columns (topic interaction pmid rank score run), found 5"),
        ("S AF s1 1 -1 r\n", ["--missing", "skip"], "--missing apply to ranked-list measures, not to CLEF's"),
        ("S AF s1 1 -1 r\n", ["--compare", "run", "run"], "CLEF measures evaluate one RUN"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, run_text, argv, fragment):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"S 0 {d} {g}\n" for d, g in QRELS_S["S"].items()))
    (tmp_path / "run").write_text(run_text)
    args = ["evaluate", str(qrels)] + ([] if "--compare" in argv else [str(tmp_path / "run")])
    code = main([*args, "-m", "clef", *[str(tmp_path / a) if a == "run" else a for a in argv]])
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_a_trec_run_given_by_mistake_warns(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"S 0 {d} {g}\n" for d, g in QRELS_S["S"].items()))
    run = tmp_path / "run"
    run.write_text("".join(f"S Q0 {x.docid} {x.line} {-x.line} r\n" for x in RUN_S))
    assert main(["evaluate", str(qrels), str(run), "-m", "num_feedback"]) == 0
    captured = capsys.readouterr()
    assert "interaction codes other than AF, NF, NS: 'Q0' (10 lines)" in captured.err
    assert captured.out.splitlines()[0] == "S\tnum_feedback\t0"


def test_tarsim_metrics_measures_clef_on_ledgers(tmp_path, capsys):
    from ledger_factory import ledger_lines

    for name, truth in (("a", [0, 1, 0, 0, 1, 0]), ("b", [1, 1, 0])):
        lines = ledger_lines(truth, size=10, relevant=3, topic=f"topic-{name}")
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    argv = ["metrics", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--measures", "ap,rels_found"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines() == [
        "topic-a\tap\t0.3",  # (1/2 + 2/5) / 3
        "topic-a\trels_found\t2",
        "topic-b\tap\t0.667",  # (1 + 1) / 3
        "topic-b\trels_found\t2",
        "ALL\tap\t0.483",
        "ALL\trels_found\t4",
    ]
    assert main(["metrics", str(tmp_path / "a.jsonl"), "--measures", "wss_95,R@10"]) == 2
    assert "--measures takes clef or CLEF measure names" in capsys.readouterr().err


def test_every_rule_at_once_equals_the_scripts_output_on_a_random_run(capsys):
    # tests/fixtures/clef/README.md: a random run with every interaction code, duplicates, NS, -1/2/3/4 values,
    # unjudged documents, a topic whose lines are apart and one without qrels; the official script's output
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "clef"
    official = (fixtures / "quirks.tar_eval.out").read_text().splitlines()
    code = main(["evaluate", str(fixtures / "quirks.qrels"), str(fixtures / "quirks.run"), "-m", "clef"])
    captured = capsys.readouterr()
    assert code == 0
    assert "'Q0' (3 lines), 'AS' (2 lines); read as shown without feedback" in captured.err  # the CLI's warning
    assert captured.out.splitlines() == [line for line in official if line.count("\t") == 2]
    duplicates = sum(1 for line in official if " Duplicate " in line)
    assert f"note: {duplicates:,} repeated document(s) skipped" in captured.err
    assert "skipping topic ZZ" in captured.err
