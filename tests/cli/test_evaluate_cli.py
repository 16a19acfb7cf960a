"""`tarsim evaluate` end to end: output formats, comparisons, exit codes and one-line errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from tarsim.cli import main
from tarsim.metrics import DEFAULT_MEASURES

QRELS = """\
t1 0 a 2
t1 0 b 1
t1 0 c 0
t2 0 a 1
t2 0 x 0
t3 0 q 1
t4 0 z 0
"""
RUN = """\
t1 Q0 c 1 3.0 r
t1 Q0 a 2 2.0 r
t1 Q0 e 3 2.0 r
t1 Q0 b 4 1.0 r
t2 Q0 x 1 5.0 r
t2 Q0 y 2 4.0 r
t2 Q0 a 3 4.0 r
t4 Q0 z 1 1.0 r
"""
# t3 is judged but absent from both runs: one warning line per run on stderr. t4 is judged only 0: it scores 0
# and counts in the mean, as trec_eval's.
MISSING_T3 = "1 of 4 qrels topics have no run line: scored 0, as trec_eval -c does; --missing skip to leave them out"
RUN_B = RUN.replace("t2 Q0 a 3 4.0 r", "t2 Q0 a 3 9.0 r").replace("t1 Q0 c 1 3.0 r", "t1 Q0 c 1 0.5 r")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"qrels": tmp_path / "qrels.txt", "run": tmp_path / "a.run", "run_b": tmp_path / "b.run"}
    paths["qrels"].write_text(QRELS)
    paths["run"].write_text(RUN)
    paths["run_b"].write_text(RUN_B)
    return paths


def invoke(capsys, *argv) -> tuple[int, str, str]:
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def trec(qrels_text, run_text, measure):
    qrels, run = {}, {}
    for line in qrels_text.splitlines():
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(g)
    for line in run_text.splitlines():
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)


def test_json_per_query_matches_pytrec_eval(files, capsys):
    code, out, err = invoke(
        capsys, files["qrels"], files["run"], "-m", "nDCG@3", "-m", "AP", "--per-query", "--format", "json"
    )
    assert code == 0 and err == f"tarsim: warning: {files['run']}: {MISSING_T3}\n"
    document = json.loads(out)
    assert set(document) == {"aggregate", "per_query"}
    assert set(document["per_query"]) == {"t1", "t2", "t3", "t4"}  # t4 has no relevant doc: 0; t3 is missing: 0
    assert document["per_query"]["t3"] == {"nDCG@3": 0.0, "AP": 0.0}
    ndcg, ap = trec(QRELS, RUN, "ndcg_cut.3"), trec(QRELS, RUN, "map")
    assert set(ap) == {"t1", "t2", "t4"}  # pytrec_eval scores t4 (0) too
    for topic in ("t1", "t2", "t4"):
        assert document["per_query"][topic]["nDCG@3"] == pytest.approx(ndcg[topic]["ndcg_cut_3"], abs=1e-12)
        assert document["per_query"][topic]["AP"] == pytest.approx(ap[topic]["map"], abs=1e-12)
    # trec_eval -c: the sum over the run's topics divided by every qrels topic (4)
    assert document["aggregate"]["AP"] == pytest.approx(sum(v["map"] for v in ap.values()) / 4, abs=1e-12)


def test_default_measures_and_table(files, capsys):
    code, out, _ = invoke(capsys, files["qrels"], files["run"])
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [m.name for m in DEFAULT_MEASURES]
    code, out, _ = invoke(capsys, files["qrels"], files["run"], "--format", "json")
    assert "per_query" not in json.loads(out)


def test_table_per_query_and_csv(files, capsys):
    code, out, _ = invoke(capsys, files["qrels"], files["run"], "-m", "R@2", "--per-query")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["topic", "R@2"] and lines[-1].split()[0] == "all"
    code, out, _ = invoke(
        capsys, files["qrels"], files["run"], "-m", "R(rel=2)@2", "-m", "P@3", "--per-query", "--format", "csv"
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    values = {r["topic"]: float(r["value"]) for r in rows if r["measure"] == "R(rel=2)@2"}
    assert values == {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t4": 0.0, "all": 0.0}  # a at rank 3 in t1; as trec_eval -l2
    # trec_eval order puts e before a (tied 2.0, docid descending) and y before a in t2: 1/3, 1/3, 0, 0.
    assert float(next(r["value"] for r in rows if r["topic"] == "all" and r["measure"] == "P@3")) == pytest.approx(
        (1 / 3 + 1 / 3 + 0.0 + 0.0) / 4
    )


@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_per_query_lists_every_topic_the_aggregate_is_over(files, capsys, missing):
    """--average all: the run-only topic t9 is listed at 0 in table, csv and json, so the listed values' mean is
    the aggregate; with --missing skip the qrels topic without a run line (t3) is left out of both."""
    files["run"].write_text(RUN + "t9 Q0 a 1 1.0 r\n")
    common = [files["qrels"], files["run"], "-m", "AP", "-m", "P@2", "--average", "all", "--missing", missing]
    expected = ["t1", "t2", "t4", "t9"] if missing == "skip" else ["t1", "t2", "t3", "t4", "t9"]
    code, out, _ = invoke(capsys, *common, "--per-query", "--format", "json")
    document = json.loads(out)
    assert code == 0 and list(document["per_query"]) == expected
    assert document["per_query"]["t9"] == {"AP": 0.0, "P@2": 0.0}
    for name in ("AP", "P@2"):
        values = [scores[name] for scores in document["per_query"].values()]
        assert document["aggregate"][name] == pytest.approx(sum(values) / len(values), abs=1e-15)
    code, out, _ = invoke(capsys, *common, "--per-query", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["topic"] for r in rows if r["measure"] == "AP"] == [*expected, "all"]
    code, out, _ = invoke(capsys, *common, "--per-query")
    assert [line.split()[0] for line in out.splitlines()[1:]] == [*expected, "all"]
    assert out.splitlines()[-2].split() == ["t9", "0.0000", "0.0000"]
    code, out, _ = invoke(capsys, *common[:-4], "--per-query", "--format", "json")  # judged: t9 stays out
    assert "t9" not in json.loads(out)["per_query"]


def test_compare_names_runs_by_the_shortest_distinguishing_path(files, capsys, tmp_path):
    """Two runs both named r.run (x/r.run, y/r.run) are told apart; a unique file name is shown alone."""
    for folder, text in (("x", RUN), ("y", RUN_B)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "r.run").write_text(text)
    code, out, _ = invoke(
        capsys, files["qrels"], "--compare", files["run"], tmp_path / "x" / "r.run", tmp_path / "y" / "r.run",
        files["run_b"], "-m", "RR",
    )  # fmt: skip
    assert code == 0 and [line.split()[1] for line in out.splitlines()[1:4]] == ["x/r.run", "y/r.run", "b.run"]


def test_run_labels():
    from tarsim.cli.evaluate import run_labels

    assert run_labels(["a/b/r.run", "c/b/r.run", "s.run"]) == {"a/b/r.run": "a/b/r.run", "c/b/r.run": "c/b/r.run",
                                                                "s.run": "s.run"}  # fmt: skip
    assert run_labels(["r.run", "x/r.run"]) == {"r.run": "r.run", "x/r.run": "x/r.run"}
    assert run_labels(["p/q/a.run", "p/q/b.run"]) == {"p/q/a.run": "a.run", "p/q/b.run": "b.run"}


def test_non_ascii_space_in_a_line_is_refused_with_its_line_number(files, capsys):
    """trec_eval splits on ASCII white space only; str.split() also on U+2009 and the like: refused, not guessed."""
    files["run"].write_text("t1 Q0 a 1 2.0 r\nt1 Q0 b 2 \u20093 r\n", encoding="utf-8")
    code, out, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 2 and out == ""
    assert err == f"tarsim: error: {files['run']}:2: non-ASCII white space U+2009 at column 11: separate fields " \
        "with spaces or tabs\n"  # fmt: skip
    files["run"].write_text(RUN)
    files["qrels"].write_text("t1 0 a\u00a01\n", encoding="utf-8")
    code, _, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 2 and f"{files['qrels']}:1: non-ASCII white space U+00A0 at column 7" in err
    files["qrels"].write_text("t1 0 caf\u00e9 1\n", encoding="utf-8")  # a non-ASCII docid is fine
    files["run"].write_text("t1 Q0 caf\u00e9 1 2.0 r\n", encoding="utf-8")
    code, out, _ = invoke(capsys, files["qrels"], files["run"], "-m", "P@1")
    assert code == 0 and out.split() == ["P@1", "1.0000"]


def test_a_run_of_one_topic_is_named_in_the_singular(files, capsys):
    files["run"].write_text("t8 Q0 a 1 2.0 r\n")
    code, _, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 0 and "(the run has 1 topic): every topic scores 0" in err


@pytest.mark.parametrize("measure", ["P@0", "R@-1", "nDCG@0"])
def test_bad_cutoffs_are_one_line_in_one_wording(files, capsys, measure):
    code, _, err = invoke(capsys, files["qrels"], files["run"], "-m", measure)
    cutoff = measure.partition("@")[2]
    assert code == 2 and err == f"tarsim: error: measure {measure!r}: cutoff must be an integer >= 1, got {cutoff!r}\n"


def test_output_is_deterministic(files, capsys):
    first = invoke(capsys, files["qrels"], files["run"], "--per-query", "--format", "json")
    assert invoke(capsys, files["qrels"], files["run"], "--per-query", "--format", "json") == first


def test_compare(files, capsys):
    code, out, err = invoke(
        capsys, files["qrels"], "--compare", files["run"], files["run_b"], "-m", "RR", "--format", "json"
    )
    assert code == 0 and err == "".join(f"tarsim: warning: {files[k]}: {MISSING_T3}\n" for k in ("run", "run_b"))
    (test,) = json.loads(out)["tests"]
    assert test["measure"] == "RR" and test["n"] == 4
    assert 0.0 <= test["p_t"] <= 1.0 and 0.0 <= test["p_rand"] <= 1.0
    code, out, _ = invoke(capsys, files["qrels"], "--compare", files["run"], files["run_b"])
    assert code == 0 and "p(random)" in out and len(out.splitlines()) == 1 + 8 + 1
    code, repeated, _ = invoke(capsys, files["qrels"], "--compare", files["run"], "--compare", files["run_b"])
    assert code == 0 and repeated == out  # a repeated flag adds its runs, as --prior-idx does


@pytest.mark.parametrize(
    ("run_text", "fragment"),
    [
        ("t1 Q0 a 1 2.0\n", "a.run:1: expected 6 columns"),
        ("t1 Q0 a 1 2.0 r\nt1 Q0 b 2 high r\n", "a.run:2: score is not a number"),
        ("t1 Q0 a 1 2.0 r\nt1 Q0 a 2 1.0 r\n", "a.run:2: duplicate docid 'a' for topic 't1'"),
        ("", "a.run: empty file"),
        (b"t1 Q0 a 1 2.0 r\nt1 Q0 \xff 2 1.0 r\n", "a.run:2: undecodable bytes"),
    ],
)
def test_bad_run_exits_2_with_one_line(files, capsys, run_text, fragment):
    if isinstance(run_text, bytes):
        files["run"].write_bytes(run_text)
    else:
        files["run"].write_text(run_text)
    code, out, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["-m", "Bogus@3"], "unknown measure"),
        (["-m", "R"], "needs a cutoff"),
    ],
)
def test_bad_measure_exits_2(files, capsys, argv, fragment):
    code, _, err = invoke(capsys, files["qrels"], files["run"], *argv)
    assert code == 2 and err.count("\n") == 1 and fragment in err


def test_bad_qrels_and_usage(files, capsys, tmp_path):
    files["qrels"].write_text("t1 0 a one\n")
    code, _, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 2 and "qrels.txt:1: relevance is not an integer" in err and err.count("\n") == 1
    files["qrels"].write_text("t1 0 a 0\n")
    code, _, err = invoke(capsys, files["qrels"], files["run"])
    assert code == 2 and "no topic has a relevant document" in err
    files["qrels"].write_text(QRELS)
    code, _, err = invoke(capsys, files["qrels"])
    assert code == 2 and "either one RUN or --compare" in err
    code, _, err = invoke(capsys, files["qrels"], "--compare", files["run"], files["run"], "--per-query")
    assert code == 2 and "--per-query applies to one RUN, not to --compare" in err  # it was silently ignored
    code, _, err = invoke(capsys, files["qrels"], "--compare", files["run"], files["run"], "--average", "all")
    assert code == 2 and "--average all applies to one RUN, not to --compare" in err
    code, _, err = invoke(capsys, files["qrels"], tmp_path / "missing.run")
    assert code == 2 and "missing.run: no such file" in err


@pytest.mark.slow
def test_installed_console_script(files):
    script = shutil.which("tarsim") or str(Path(sys.executable).with_name("tarsim"))
    if not Path(script).exists():
        pytest.skip("the tarsim console script is not installed")
    ok = subprocess.run(
        [script, "evaluate", files["qrels"], files["run"], "-m", "RR", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["aggregate"]["RR"] > 0
    files["run"].write_text("t1 Q0 a 1 x r\n")
    bad = subprocess.run(
        [script, "evaluate", files["qrels"], files["run"]], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_scores_compare_as_float32_unless_float64_is_asked(tmp_path, capsys):
    qrels, run = tmp_path / "f.qrels", tmp_path / "f.run"
    qrels.write_text("q 0 a 1\nq 0 c 0\n")
    run.write_text("q Q0 a 1 0.1000000002 x\nq Q0 b 2 0.1000000001 x\nq Q0 c 3 0.1000000001 x\n")
    expected = trec(qrels.read_text(), run.read_text(), "recip_rank")["q"]["recip_rank"]
    code, out, _ = invoke(capsys, qrels, run, "-m", "RR")
    assert code == 0 and out == f"RR  {expected:.4f}\n" == "RR  0.3333\n"  # pytrec_eval: b, c and a tie in float32
    code, out, _ = invoke(capsys, qrels, run, "-m", "RR", "--scores", "float64")
    assert code == 0 and out == "RR  1.0000\n"  # trec_eval 10.0 (double): a first
