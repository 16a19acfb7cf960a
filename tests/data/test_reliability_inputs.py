"""Issue 10 (items 6, 7, tracebacks) for ranked-list evaluation, retrieval and qrels: values that cannot be
honoured are refused up front with one line, partial coverage is reported, and nothing is half-written."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import pytrec_eval

from tarsim.cli import main
from tarsim.data import read_qrels, read_run, write_collection, write_qrels, write_run, write_topics
from tarsim.data.collection import Document
from tarsim.data.paths import check_output_path
from tarsim.data.qrels import check_qrels_in_collection, read_sentence_qrels
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.metrics import aggregate, evaluate_run
from tarsim.metrics.compare_runs import compare_runs
from tarsim.metrics.ranked import check_run_coverage, run_coverage

DOCS = {"d1": "apple banana", "d2": "banana cherry", "d3": "cherry apple", "d4": "apple apple pie"}


def invoke(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse refuses a value in one line and exit status 2
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def collection(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    write_collection(folder / "docs.jsonl", [Document(docid=d, text=t) for d, t in DOCS.items()])
    write_topics(folder / "topics.tsv", {"t1": "apple", "t2": "cherry"})
    write_qrels(folder / "qrels.txt", {"t1": {"d1": 1, "d4": 1}, "t2": {"d2": 1}})
    return folder


def test_retrieve_accepts_valid_values(collection, tmp_path, capsys):
    out = tmp_path / "ok.run"
    code, _, err = invoke(capsys, "retrieve", collection, "--out", out, "--k1", "0", "--b", "1", "--seed", "0")
    assert code == 0 and err.startswith(f"wrote {out}: 2 queries, k1=0 b=1")
    assert set(read_run(out)) == {"t1", "t2"}


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--k1", "nan"], "--k1 must be a finite number >= 0, got nan"),
        (["--k1", "inf"], "--k1 must be a finite number >= 0, got inf"),
        (["--k1", "-0.5"], "--k1 must be a finite number >= 0, got -0.5"),
        (["--b", "1.5"], "--b must be a number in [0, 1], got 1.5"),
        (["--b", "-0.1"], "--b must be a number in [0, 1], got -0.1"),
        (["--b", "nan"], "--b must be a number in [0, 1], got nan"),
        (["--depth", "0"], "--depth must be an integer >= 1, got 0"),
        (["--max-queries", "0"], "--max-queries must be an integer >= 1, got 0"),
        (["--max-queries", "-1"], "--max-queries must be an integer >= 1, got -1"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--tag", "two words"], "--tag must be one word"),
        (["--tag", ""], "--tag must be one word"),
        (["--tune", "R@2", "--tune-split", "all", "--k1-grid", "1.2,nan"], "expected finite numbers, got nan"),
        (["--tune", "R@2", "--tune-split", "all", "--b-grid", "inf"], "expected finite numbers, got inf"),
        (["--tune", "R@2", "--tune-split", "all", "--b-grid", "0.5,2"], "b grid value must be a number in [0, 1]"),
    ],
)
def test_retrieve_refuses_values_it_cannot_honour(collection, tmp_path, capsys, argv, fragment):
    out = tmp_path / "x.run"
    code, stdout, err = invoke(capsys, "retrieve", collection, "--out", out, *argv)
    assert code == 2 and stdout == "" and "Traceback" not in err
    assert fragment in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert err.count("\n") == 1  # argparse's refusals too: one line, not the usage first
    assert err.startswith("tarsim retrieve: error: " if fragment.startswith("expected finite") else "tarsim: error: ")


def test_retrieve_out_folder_or_empty_is_one_line(collection, tmp_path, capsys):
    folder = tmp_path / "existing"
    folder.mkdir()
    code, _, err = invoke(capsys, "retrieve", collection, "--out", folder)
    assert (
        code == 2
        and err
        == f"tarsim: error: --out {folder}: is a folder, expected a file name to write (e.g. {folder / 'out'})\n"
    )
    assert list(folder.iterdir()) == []
    code, _, err = invoke(capsys, "retrieve", collection, "--out", "")
    assert code == 2 and err == "tarsim: error: --out is empty: give the file to write\n"
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = invoke(capsys, "retrieve", collection, "--out", blocker / "sub" / "a.run")
    assert code == 2 and err == f"tarsim: error: --out {blocker / 'sub' / 'a.run'}: {blocker} is a file, not a folder\n"
    assert blocker.read_text() == "x"


def test_check_output_path(tmp_path):
    assert check_output_path(str(tmp_path / "a.run")) == tmp_path / "a.run"
    assert check_output_path(tmp_path, "--runs", directory=True) == tmp_path
    assert check_output_path(tmp_path / "new" / "deeper", "--runs", directory=True) == tmp_path / "new" / "deeper"
    with pytest.raises(ConfigError, match=r"folder .*new does not exist \(create it first\)$"):
        check_output_path(str(tmp_path / "new" / "a.run"))  # an output FILE's folder is not created: a typo
    assert not (tmp_path / "new").exists()  # nothing is created
    for blank in ("", "  "):
        with pytest.raises(ConfigError, match=r"^--out is empty"):
            check_output_path(blank)
    (tmp_path / "f").write_text("")
    with pytest.raises(ConfigError, match="is a file, expected a folder"):
        check_output_path(tmp_path / "f", "--runs", directory=True)
    with pytest.raises(ConfigError, match="is a folder, expected a file"):
        check_output_path(tmp_path, "--json")


def test_output_file_in_a_missing_folder_is_refused_in_one_line(collection, tmp_path, capsys):
    """retrieve, bench --json, compare, metrics and plot --out: a file whose folder does not exist is refused before
    any work (before reading the inputs), and nothing is created."""
    missing = tmp_path / "nonexistent" / "dir"
    code, _, err = invoke(capsys, "retrieve", collection, "--out", missing / "x.run")
    assert (
        code == 2
        and err == f"tarsim: error: --out {missing / 'x.run'}: folder {missing} does not exist (create it first)\n"
    )
    for argv in (
        ["bench", "pd", "--data", tmp_path / "absent", "--json", missing / "b.json"],
        ["compare", tmp_path / "absent", "--baseline", "x", "--out", missing / "c.txt"],
        ["metrics", tmp_path / "absent", "--out", missing / "m.txt"],
        ["plot", tmp_path / "absent", "--out", missing / "p.png"],
        ["data", "sentence-qrels", "--passages", tmp_path / "absent", "--collection", tmp_path, "--out", missing / "s"],
    ):
        code, _, err = invoke(capsys, *argv)
        assert code == 2 and err.endswith(f"folder {missing} does not exist (create it first)\n"), (argv, err)
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("option", ["--json", "--runs"])
def test_bench_refuses_empty_or_wrong_kind_of_output_before_loading(tmp_path, capsys, option):
    missing_data = tmp_path / "absent"
    code, _, err = invoke(capsys, "bench", "pd", "--data", missing_data, option, "")
    assert (
        code == 2
        and err == f"tarsim: error: {option} is empty: give the {'folder' if option == '--runs' else 'file'} to write\n"
    )
    wrong = tmp_path if option == "--json" else tmp_path / "f"
    (tmp_path / "f").write_text("")
    code, _, err = invoke(capsys, "bench", "pd", "--data", missing_data, option, wrong)
    assert code == 2 and err.count("\n") == 1 and f"{option} {wrong}: is a" in err


@pytest.mark.parametrize(
    ("grade", "fragment"),
    [
        ("1" * 20, "relevance out of range: 11111111111111111111 does not fit a 64-bit integer"),
        (str(2**63), f"relevance out of range: {2**63} does not fit a 64-bit integer"),
        (str(-(2**63) - 1), "relevance out of range"),
        ("1_0", "relevance is not an integer: '1_0'"),
        ("\u0661", "relevance is not an integer"),  # an Arabic-Indic digit, which int() would accept
        ("2.0", "relevance is not an integer: '2.0'"),
    ],
)
def test_qrels_grade_must_be_an_int64(tmp_path, capsys, grade, fragment):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"t1 0 d1 1\nt1 0 d2 {grade}\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"^{qrels}:2: "):
        read_qrels(qrels)
    run = tmp_path / "a.run"
    run.write_text("t1 Q0 d1 1 1.0 r\n")
    code, out, err = invoke(capsys, "evaluate", qrels, run)
    assert code == 2 and out == "" and err.startswith(f"tarsim: error: {qrels}:2: {fragment}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_qrels_int64_bounds_are_accepted_and_evaluated(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"t1 0 d1 {2**63 - 1}\nt1 0 d2 {-(2**63)}\nt2 0 d3 1\n")
    judged = read_qrels(qrels)
    assert judged["t1"] == {"d1": 2**63 - 1, "d2": -(2**63)}
    per_query = evaluate_run(judged, {"t1": {"d1": 2.0, "d2": 1.0}, "t2": {"d3": 1.0}}, ["R@1"])
    assert per_query == {"t1": {"R@1": 1.0}, "t2": {"R@1": 1.0}}


def test_sentence_qrels_grade_out_of_range(tmp_path):
    path = tmp_path / "sentences.txt"
    path.write_text("t1 d1 0 1\nt1 d1 1 99999999999999999999\n")
    with pytest.raises(InputError, match=f"^{path}:2: relevance out of range"):
        read_sentence_qrels(path)


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf", "1e400"])
def test_run_scores_must_be_finite(tmp_path, capsys, score):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 d1 1\n")
    run = tmp_path / "a.run"
    run.write_text(f"t1 Q0 d1 1 2.0 r\nt1 Q0 d2 2 {score} r\n")
    code, _, err = invoke(capsys, "evaluate", qrels, run)
    assert code == 2 and err == f"tarsim: error: {run}:2: score is not a finite number: '{score}'\n"


# --- evaluate: honest coverage -----------------------------------------------------------------------


def synthetic(seed: int = 7, topics: int = 40, docs: int = 60):
    """Graded qrels over `topics` topics and a run with distinct random scores (no ties) over them."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(topics):
        topic = f"q{t:02d}"
        grades = rng.choice([0, 0, 0, 1, 2], size=docs)
        grades[rng.integers(docs)] = 1 + rng.integers(2)  # at least one relevant document
        qrels[topic] = {f"d{i:03d}": int(g) for i, g in enumerate(grades) if g or rng.random() < 0.3}
        run[topic] = {f"d{i:03d}": float(s) for i, s in enumerate(rng.random(docs))}
    return qrels, run


PYTREC = {"R@10": ("recall.10", "recall_10"), "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"), "AP": ("map", "map")}
PYTREC["P@5"] = ("P.5", "P_5")
PYTREC["RPrec"] = ("Rprec", "Rprec")


def test_missing_skip_and_zero_agree_with_pytrec_eval_on_covered_topics(tmp_path, capsys):
    qrels, full_run = synthetic()
    covered = sorted(qrels)[::3]  # 14 of 40 topics have run lines
    run = {t: full_run[t] for t in covered}
    run["extra1"] = {"d000": 1.0}  # run topics that the qrels do not mention
    run["extra2"] = {"d001": 1.0}
    write_qrels(tmp_path / "qrels.txt", qrels)
    write_run(tmp_path / "a.run", run)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {name for name, _ in PYTREC.values()})
    reference = evaluator.evaluate(run)  # trec_eval without -c: only the topics the run has
    assert set(reference) == set(covered)
    measures = list(PYTREC)
    argv = ["evaluate", tmp_path / "qrels.txt", tmp_path / "a.run", "--format", "json", "--per-query"]
    for measure in measures:
        argv += ["-m", measure]
    code, out, err = invoke(capsys, *argv, "--missing", "skip")
    assert code == 0
    assert err.splitlines() == [
        f"tarsim: warning: {tmp_path / 'a.run'}: 26 of 40 qrels topics have no run line: left out (--missing skip); "
        "14 topics scored",
        f"tarsim: warning: {tmp_path / 'a.run'}: 2 of 16 run topics are not in the qrels: ignored, as trec_eval does",
    ]
    document = json.loads(out)
    assert set(document["per_query"]) == set(covered)
    for measure, (_, key) in PYTREC.items():
        expected = [reference[t][key] for t in covered]
        assert document["aggregate"][measure] == pytest.approx(sum(expected) / len(expected), abs=1e-12)
        for topic in covered:
            assert document["per_query"][topic][measure] == pytest.approx(reference[topic][key], abs=1e-12)
    code, out, err = invoke(capsys, *argv)  # default: zero, as trec_eval -c
    assert code == 0
    assert err.splitlines()[0] == (
        f"tarsim: warning: {tmp_path / 'a.run'}: 26 of 40 qrels topics have no run line: scored 0, "
        "as trec_eval -c does; --missing skip to leave them out"
    )
    document = json.loads(out)
    assert len(document["per_query"]) == 40
    for measure, (_, key) in PYTREC.items():
        assert document["aggregate"][measure] == pytest.approx(sum(reference[t][key] for t in covered) / 40)


def test_library_missing_keyword_and_coverage():
    qrels, run = synthetic(seed=3, topics=6)
    partial = {t: run[t] for t in ("q00", "q03")}
    assert set(evaluate_run(qrels, partial, ["R@10"], missing="skip")) == {"q00", "q03"}
    zero = evaluate_run(qrels, partial, ["R@10"])
    assert len(zero) == 6 and all(zero[t]["R@10"] == 0.0 for t in ("q01", "q02", "q04", "q05"))
    assert evaluate_run(qrels, {}, ["R@10"], missing="skip") == {}
    with pytest.raises(ConfigError, match="missing must be one of zero, skip, got 'none'"):
        evaluate_run(qrels, partial, ["R@10"], missing="none")
    coverage = run_coverage(qrels, {**partial, "zz": {"d1": 1.0}, "q04": {}})
    assert (coverage.qrels_topics, coverage.without_run, coverage.run_topics, coverage.not_in_qrels) == (6, 4, 3, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_run_coverage(qrels, run, "skip", "full.run")  # full coverage: silent
    assert caught == []
    with pytest.warns(InputWarning, match="^x.run: 4 of 6 qrels topics have no run line: scored 0"):
        check_run_coverage(qrels, partial, "zero", "x.run")


def test_run_matching_no_qrels_topic(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 d1 1\nt2 0 d2 1\n")
    run = tmp_path / "other.run"
    run.write_text("u1 Q0 d1 1 2.0 r\nu2 Q0 d2 1 2.0 r\nu3 Q0 d2 1 2.0 r\n")
    code, out, err = invoke(capsys, "evaluate", qrels, run, "-m", "R@10")
    assert code == 0 and out == "R@10  0.0000\n"
    assert err.splitlines() == [
        f"tarsim: warning: {run}: none of the 2 qrels topics has a run line (the run has 3 topics): every topic "
        "scores 0; is this the run for these qrels?",
        f"tarsim: warning: {run}: 3 of 3 run topics are not in the qrels: ignored, as trec_eval does",
    ]
    code, out, err = invoke(capsys, "evaluate", qrels, run, "-m", "R@10", "--missing", "skip")
    assert code == 2 and out == ""
    assert err == (
        f"tarsim: error: {run}: no topic left to score: none of the 2 qrels topics has a run line (--missing skip)\n"
    )


def test_compare_with_missing_skip(tmp_path, capsys):
    qrels, run = synthetic(seed=5, topics=8)
    a = {t: run[t] for t in sorted(run)[:6]}
    b = {t: {d: -s for d, s in run[t].items()} for t in sorted(run)[2:]}
    write_qrels(tmp_path / "qrels.txt", qrels)
    write_run(tmp_path / "a.run", a)
    write_run(tmp_path / "b.run", b)
    argv = ["evaluate", tmp_path / "qrels.txt", "--compare", tmp_path / "a.run", tmp_path / "b.run", "-m", "AP"]
    argv += ["--resamples", "100"]
    code, out, err = invoke(capsys, *argv, "--format", "json", "--missing", "skip")
    assert code == 0 and len(err.splitlines()) == 2
    (test,) = json.loads(out)["tests"]
    assert test["n"] == 4  # the topics both runs have
    code, out, _ = invoke(capsys, *argv, "--format", "json")
    assert json.loads(out)["tests"][0]["n"] == 8  # every qrels topic, the missing ones at 0


def test_compare_runs_library_refuses_fewer_than_two_shared_topics():
    qrels, run = synthetic(seed=2, topics=4)
    a = {"q00": run["q00"], "q01": run["q01"]}
    b = {"q01": run["q01"], "q02": run["q02"]}
    rows = compare_runs(qrels, [("a", a), ("b", b)], ["AP"], resamples=100)
    assert rows[0]["n"] == 4 and rows[0]["run_a"] == "a" and rows[0]["run_b"] == "b"
    with pytest.raises(InputError, match=r"^q\.txt: AP: paired tests need at least 2 topics"):
        compare_runs(qrels, [("a", a), ("b", b)], ["AP"], missing="skip", source="q.txt")


def test_aggregate_of_skip_is_mean_over_covered_only():
    qrels = {"t1": {"a": 1}, "t2": {"b": 1}, "t3": {"c": 1}}
    run = {"t1": {"a": 1.0}, "t2": {"x": 1.0, "b": 0.5}}
    assert aggregate(evaluate_run(qrels, run, ["RR"], missing="skip")) == {"RR": pytest.approx(0.75)}
    assert aggregate(evaluate_run(qrels, run, ["RR"])) == {"RR": pytest.approx(0.5)}


# --- qrels against the collection --------------------------------------------------------------------


def test_check_qrels_in_collection_counts():
    qrels = {"t1": {"d1": 1, "zz": 1, "d2": 0}, "t2": {"yy": 2, "xx": 0}}
    with pytest.warns(InputWarning) as caught:
        assert check_qrels_in_collection(qrels, set(DOCS), "q.txt") == (3, 5)
    assert str(caught[0].message) == (
        "q.txt: 3 of 5 judged docids are not in the collection (2 of 3 relevant judgments); "
        "1 topic(s) keep no relevant document"
    )
    with warnings.catch_warnings(record=True) as silent:
        warnings.simplefilter("always")
        assert check_qrels_in_collection({"t1": {"d1": 1}}, set(DOCS), "q.txt") == (0, 1)
    assert silent == []
    with pytest.raises(InputError, match=r"^q.txt: none of the 2 judged docids is in the collection \(e.g. 'zz'\)"):
        check_qrels_in_collection({"t1": {"zz": 1}, "t2": {"yy": 0}}, set(DOCS), "q.txt")


def test_retrieve_with_qrels_of_another_collection(collection, tmp_path, capsys):
    write_qrels(collection / "qrels.txt", {"t1": {"x1": 1}, "t2": {"x2": 1}})
    out = tmp_path / "x.run"
    code, _, err = invoke(capsys, "retrieve", collection, "--out", out)
    assert code == 2 and not out.exists()
    assert err == (
        f"tarsim: error: {collection / 'qrels.txt'}: none of the 2 judged docids is in the collection (e.g. 'x1'): "
        "qrels and documents do not belong together\n"
    )
    write_qrels(collection / "qrels.txt", {"t1": {"d1": 1}, "t2": {"x2": 1}})
    code, _, err = invoke(capsys, "retrieve", collection, "--out", out)
    assert code == 0 and out.exists()
    assert err.splitlines()[0] == (
        f"tarsim: warning: {collection / 'qrels.txt'}: 1 of 2 judged docids are not in the collection "
        "(1 of 2 relevant judgments); 1 topic(s) keep no relevant document"
    )


def test_bench_evaluation_reports_unjudged_and_empty_queries():
    from tarsim.legal.baseline import evaluate

    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    topics = {"q1": "x", "q2": "y", "q3": "z", "q4": "unjudged"}
    run = {"q1": {"a": 2.0}, "q2": {"x": 1.0, "b": 0.5}, "q3": {}}  # q3 retrieved nothing
    with pytest.warns(InputWarning) as caught:
        per_query, summary = evaluate(qrels, topics, run, ["RR"], source="toy")
    assert [str(w.message) for w in caught] == [
        "toy: 1 of 4 queries have no relevance judgments: not evaluated",
        "toy: 1 of 3 qrels topics have no run line: scored 0, as trec_eval -c does; --missing skip to leave them out",
    ]
    assert set(per_query) == {"q1", "q2", "q3"} and summary["RR"] == pytest.approx(0.5)
    with pytest.warns(InputWarning):
        per_query, summary = evaluate(qrels, topics, run, ["RR"], missing="skip", source="toy")
    assert set(per_query) == {"q1", "q2"} and summary["RR"] == pytest.approx(0.75)


def test_resamples_are_bounded_and_batched(tmp_path, capsys, monkeypatch):
    from tarsim.metrics import paired_tests, significance

    (tmp_path / "q.txt").write_text("t1 0 a 1\n")
    code, _, err = invoke(capsys, "evaluate", tmp_path / "q.txt", "--compare", "a", "b", "--resamples", "10000001")
    assert code == 2 and err == "tarsim: error: --resamples must be at most 10,000,000, got 10000001\n"
    rng = np.random.default_rng(4)
    a = {f"t{i}": float(v) for i, v in enumerate(rng.random(25))}
    b = {f"t{i}": float(v) for i, v in enumerate(rng.random(25))}
    whole = paired_tests(a, b, seed=1, n_resamples=3000)
    monkeypatch.setattr(significance, "MAX_BATCH_VALUES", 25 * 7)  # batches of 7 resamples
    assert paired_tests(a, b, seed=1, n_resamples=3000) == whole
