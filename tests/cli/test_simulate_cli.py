"""`tarsim simulate` and `tarsim report` end to end, resume after interruption, and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import ledger_factory
from conftest import shared_dataset
from tarsim.cli import main
from tarsim.data import write_collection, write_qrels, write_sentence_qrels, write_topics
from tarsim.data.collection import Document


@pytest.mark.slow
def test_demo_simulation_writes_ledgers_tables_and_summary(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--out", str(out), "--effort", "judge", "--effort", "sent"]) == 0
    printed = capsys.readouterr().out
    assert "Mean Recall@E" in printed and "4R+1000" in printed
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == ["T1.jsonl", "T2.jsonl", "T3.jsonl"]
    csv_lines = (out / "recall_at_effort.csv").read_text().splitlines()
    assert csv_lines[0] == "topic,strategy,effort_model,a,b,effort,recall"
    assert len(csv_lines) == 1 + 3 * 2 * 9
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["topics"]) == {"T1", "T2", "T3"}
    before = (out / "recall_at_effort.csv").read_bytes()
    (out / "recall_at_effort.csv").unlink()
    assert main(["report", str(out), "--effort", "judge", "--effort", "sent"]) == 0
    assert not (out / "recall_at_effort.csv").exists()  # report prints; it rewrites only when asked
    assert main(["report", str(out), "--effort", "judge", "--effort", "sent", "--write"]) == 0
    assert (out / "recall_at_effort.csv").read_bytes() == before  # recomputed from the ledgers alone


@pytest.mark.slow
def test_learner_flags_reach_the_ledger_and_the_api_gives_the_same_review(tmp_path):
    """`--learner logistic --presumed-nonrelevant 0` (ASReview's set-up) is recorded and equals the API's run."""
    from tarsim import simulate
    from tarsim.data.ledger import read_ledger

    out = tmp_path / "out"
    flags = ["--learner", "logistic", "--presumed-nonrelevant", "0", "--batch", "10", "--topic", "T1"]
    assert main(["simulate", "--out", str(out), "--max-effort", "2R+100", *flags]) == 0
    ledger = read_ledger(out / "ledgers" / "T1.jsonl")
    config = ledger.header["config"]
    assert (config["learner"], config["presumed_nonrelevant"], config["batch"]) == ("logistic", 0, "10")
    api = simulate(topic="T1", learner="logistic", presumed_nonrelevant=0, batch="10", max_effort="2R+100")
    assert api.ledgers["T1"].docids == ledger.docids
    assert main(["simulate", "--out", str(tmp_path / "bmi"), "--lambda", "0.01", "--topic", "T1"]) == 0
    assert read_ledger(tmp_path / "bmi" / "ledgers" / "T1.jsonl").header["config"]["lambda_"] == 0.01


@pytest.mark.slow
def test_ledgers_written_before_named_learners_still_count_as_the_same_configuration(tmp_path):
    """A ledger whose config lacks `learner` (written before it existed) is a bmi ledger: resume keeps it, the
    output directory accepts the same settings, and comparisons do not split it from new bmi ledgers."""
    from tarsim.data.ledger import read_ledger
    from tarsim.reporting.compare import grouping_keys

    out = tmp_path / "out"
    args = ["simulate", "--out", str(out), "--topic", "T1", "--max-effort", "2R+100"]
    assert main(args) == 0
    path = out / "ledgers" / "T1.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["config"]["learner"]
    path.write_text(json.dumps(header) + "\n" + ledger_factory.older_ledger_body(lines[1:]))
    before = path.read_bytes()
    assert main([*args, "--resume"]) == 0
    assert path.read_bytes() == before  # kept, not redone
    assert main(["simulate", "--out", str(tmp_path / "new"), "--topic", "T1", "--max-effort", "2R+100"]) == 0
    old, new = read_ledger(path), read_ledger(tmp_path / "new" / "ledgers" / "T1.jsonl")
    assert "learner" not in grouping_keys([old, new])


def _ctrl_c() -> None:
    raise KeyboardInterrupt


def _ctrl_c_inside_an_import() -> None:
    """Ctrl-C while a C extension initialises: the import reports its own error, caused by the KeyboardInterrupt."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as interrupt:
        raise ImportError("initialization failed") from interrupt


def _sigterm() -> None:
    os.kill(os.getpid(), signal.SIGTERM)  # as `kill`, `timeout` or a batch scheduler sends it
    time.sleep(30)  # tarsim's handler raises here


@pytest.mark.parametrize(
    ("stop", "status", "said"),
    [
        (_ctrl_c, 130, "tarsim: interrupted\n"),
        (_ctrl_c_inside_an_import, 130, "tarsim: interrupted\n"),
        (_sigterm, 143, "tarsim: terminated\n"),
    ],
)
@pytest.mark.slow
def test_interrupted_run_keeps_finished_ledgers_and_resume_completes_it(
    tmp_path, demo, monkeypatch, capsys, stop, status, said
):
    import tarsim.simulator.review as review

    out = tmp_path / "out"
    real_run = review.ReviewSimulation.run
    calls = {"n": 0}

    def interrupt_second_topic(self):
        calls["n"] += 1
        if calls["n"] == 2:
            stop()
        return real_run(self)

    handler = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(review.ReviewSimulation, "run", interrupt_second_topic)
    assert main(["simulate", "--out", str(out)]) == status
    assert capsys.readouterr().err == said
    assert signal.getsignal(signal.SIGTERM) is handler  # the caller's handler is back
    assert [p.name for p in (out / "ledgers").iterdir()] == ["T1.jsonl"]  # no partial file left behind
    finished = (out / "ledgers" / "T1.jsonl").stat().st_mtime_ns
    monkeypatch.setattr(review.ReviewSimulation, "run", real_run)
    assert main(["simulate", "--out", str(out), "--resume"]) == 0
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == ["T1.jsonl", "T2.jsonl", "T3.jsonl"]
    assert (out / "ledgers" / "T1.jsonl").stat().st_mtime_ns == finished  # not redone
    fresh = tmp_path / "fresh"
    assert main(["simulate", "--out", str(fresh)]) == 0
    for name in ("T1.jsonl", "T2.jsonl", "T3.jsonl"):
        assert (out / "ledgers" / name).read_bytes() == (fresh / "ledgers" / name).read_bytes()


def _tiny_collection(tmp_path, qrels_lines=None):
    docs = [Document(f"d{i}", f"Alpha beta gamma number {i}. The second sentence is here.") for i in range(5)]
    write_collection(tmp_path / "docs.jsonl", docs)
    write_topics(tmp_path / "topics.tsv", {"t1": "alpha", "t2": "beta"})
    write_qrels(tmp_path / "qrels.txt", {"t1": {"d1": 1, "d2": 0}, "t2": {"d1": 0}})
    return tmp_path


def test_topic_without_relevant_documents_is_skipped_with_a_reason(tmp_path, capsys):
    data = _tiny_collection(tmp_path / "c")
    assert main(["simulate", "--collection", str(data), "--out", str(tmp_path / "o"), "--effort", "judge"]) == 0
    err = capsys.readouterr().err
    assert "skipped topic t2: no relevant document" in err
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["skipped"] == {"t2": "no relevant document in the collection"}
    assert "nan" not in (tmp_path / "o" / "recall_at_effort.csv").read_text().lower()


def test_a_run_that_reviews_no_topic_is_an_error_and_writes_nothing(tmp_path, capsys):
    data = _tiny_collection(tmp_path / "c")
    out = tmp_path / "o"
    assert main(["simulate", "--collection", str(data), "--topic", "t2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "tarsim: error: no topic was reviewed (topic t2: no relevant document in the collection)"
    assert not out.exists()  # no empty tables that look like a finished run


def test_a_topics_file_without_the_qrels_topics_says_so(tmp_path, capsys):
    """No topic selected by default (the qrels' topics are not in the topics file): the error says why."""
    data = _tiny_collection(tmp_path / "c")
    write_topics(data / "topics.tsv", {"other": "alpha"})
    out = tmp_path / "o"
    assert main(["simulate", "--collection", str(data), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "tarsim: error: no topic to review: none has both qrels and a query in the topics file "
        "(qrels topics: t1, t2; topics file: other)"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--topic", "nope"], "topic 'nope' is not in the qrels"),
        (["--effort", "furlongs"], "effort model 'furlongs' unknown; accepted: judge"),
        (["--max-effort", "2X+1"], "budget '2X+1'"),
        (["--policy", "clever"], "policy 'clever' unknown; accepted: relevance"),
        (["--reviewers", "0"], "reviewers must be an integer >= 1, got 0"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(tmp_path, capsys, args, message):
    data = _tiny_collection(tmp_path / "c")
    assert main(["simulate", "--collection", str(data), "--out", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("tarsim: error:")


def test_empty_collection_is_an_error(tmp_path, capsys):
    data = _tiny_collection(tmp_path / "c")
    (data / "docs.jsonl").write_text("\n")
    assert main(["simulate", "--collection", str(data), "--out", str(tmp_path / "o")]) == 2
    assert "docs.jsonl: empty file" in capsys.readouterr().err


def test_sentence_qrels_past_the_end_of_a_document_names_the_line(tmp_path, capsys):
    data = _tiny_collection(tmp_path / "c")
    write_sentence_qrels(tmp_path / "sq.txt", {"t1": {"d1": {0: 1, 7: 1}}})
    code = main(
        [
            "simulate",
            "--collection",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--topic",
            "t1",
            "--feedback",
            "sentence",
            "--sentence-oracle",
            str(tmp_path / "sq.txt"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "sq.txt:2: sentence_index 7 is past the end of document 'd1' (2 sentence(s))" in err


@pytest.mark.slow
def test_console_script_runs_on_a_real_review_without_traceback(tmp_path):
    data = shared_dataset("srd", "Cohen_2006_Antihistamines")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tarsim",
            "simulate",
            "--collection",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--feedback",
            "sentence",
            "--effort",
            "sent",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "tarsim", "simulate", "--collection", str(tmp_path / "absent")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "collection directory does not exist" in missing.stderr


@pytest.mark.slow
def test_an_output_directory_never_mixes_configurations(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--out", str(out), "--effort", "judge"]) == 0
    assert main(["simulate", "--out", str(out), "--effort", "judge"]) == 0  # the same command again is fine
    assert main(["simulate", "--out", str(out), "--seed", "7"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"tarsim: error: {out} already holds ledgers of another configuration (ledgers/T1.jsonl: config.seed is 0 "
        "there, 7 here); choose another --out (or delete them)\n"
    )
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_a_refused_output_directory_names_what_differs(tmp_path, capsys):
    """The refusal said only "another configuration, learner or collection": it names the first differing key now,
    as a sweep's does, and says which of the three differs."""
    words = ("coffee sleep", "triptan migraine", "aspirin pain")
    rows = "".join(f"trial {words[i % 3]},{words[(i + 1) % 3]} study,{int(i % 3 > 0)}\n" for i in range(10))
    first, second = tmp_path / "a" / "review.csv", tmp_path / "b" / "review.csv"
    for path, extra in ((first, ""), (second, "one more,record,0\n")):
        path.parent.mkdir()
        path.write_text("title,abstract,label_included\n" + rows + extra, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["simulate", "--collection", str(first), "--prior-seed", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["simulate", "--collection", str(first), "--prior-seed", "2", "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"tarsim: error: {out} already holds ledgers of another configuration (ledgers/review.jsonl: "
        "config.prior_seed is 1 there, 2 here); choose another --out (or delete them)"
    ]
    assert main(["simulate", "--collection", str(second), "--prior-seed", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"tarsim: error: {out} already holds ledgers of another collection (ledgers/review.jsonl: inputs.collection is"
    )


def test_fractions_print_three_decimals_even_when_every_one_is_whole(tmp_path, capsys):
    """One topic that found every relevant document: its Recall@2R+100 reads 1.000 (it read 1, as a count would),
    in simulate's per-topic table and in the Recall@E grid of `tarsim metrics`."""
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T1", "--effort", "judge", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[lines.index("Per topic") + 1].split()[-1] == "Recall@2R+100"
    row = lines[lines.index("Per topic") + 2].split()
    assert row[0] == "T1" and row[1:3] == ["51", "51"] and row[-1] == "1.000"  # counts stay counts
    assert main(["metrics", str(out)]) == 0
    grid = capsys.readouterr().out.split("Mean Recall@E, E = aR+b records screened\n")[1].splitlines()[1:]
    assert len(grid) == 9 and all(line.split()[-1] == "1.000" for line in grid)
