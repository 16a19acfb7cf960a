"""Arguments that cannot work are refused in one line with exit 2 before anything runs."""

from __future__ import annotations

import json

import pytest

from conftest import shared_dataset
from tarsim.cli import main
from tarsim.simulator import ReviewConfig, review_topics


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    assert main(["simulate", "--out", str(out), "--effort", "judge"]) == 0
    return out


@pytest.mark.parametrize(
    "args, message",
    [
        (["simulate", "--collection", "x", "--docs", "d.jsonl"], "not both"),
        (["simulate", "--max-effort", "0"], "must be a positive effort"),
        (["simulate", "--docs", "d.jsonl"], "missing: qrels, topics"),
        (["evaluate", "q.txt", "--compare", "a", "b", "--resamples", "0"], "--resamples must be an integer >= 1"),
        (["evaluate", "q.txt", "--compare", "a", "b", "--seed", "-1"], "--seed must be an integer >= 0"),
        (["sweep", "missing.toml", "--jobs", "0", "--dry-run"], "--jobs must be >= 1, got 0"),  # dry runs too
    ],
)
def test_refused_arguments(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


@pytest.mark.slow
def test_plot_axis_options_and_unwritable_outputs(demo_out, tmp_path, capsys):
    ledgers = str(demo_out / "ledgers")
    assert main(["plot", ledgers, "--out", str(tmp_path / "f.png"), "--xmax", "-5"]) == 2
    assert main(["plot", ledgers, "--out", str(tmp_path / "f.png"), "--per-topic", "--columns", "0"]) == 2
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(["plot", ledgers, "--out", str(blocker / "f.png")]) == 2
    assert main(["simulate", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("tarsim: error:") == 4


@pytest.mark.slow
def test_stop_refuses_a_collection_the_ledgers_were_not_reviewed_on(demo_out, tmp_path, capsys):
    """A ledger of another collection is refused with the one --collection given; the demo's ledgers are not: the
    built-in demo is always known, so they are replayed with it whatever --collection says."""
    import ledger_factory

    other = shared_dataset("srd", "Cohen_2006_ADHD")
    elsewhere = tmp_path / "elsewhere.jsonl"  # reviewed on a collection whose digest is not ADHD's
    lines = ledger_factory.ledger_lines([1, 0, 0], topic="t", inputs={"collection": "0" * 64})
    elsewhere.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["stop", str(elsewhere), "--rule", "target:5", "--collection", str(other)]) == 2
    assert "was not reviewed on" in capsys.readouterr().err
    demo_ledgers = str(demo_out / "ledgers")
    assert main(["stop", demo_ledgers, "--rule", "target:5", "--collection", str(other), "--format", "json"]) == 0
    with_other = json.loads(capsys.readouterr().out)
    assert main(["stop", demo_ledgers, "--rule", "target:5", "--format", "json"]) == 0
    assert with_other == json.loads(capsys.readouterr().out) and with_other


def test_the_sentence_a_learner_trained_on_is_in_the_ledger(demo, tmp_path):
    config = ReviewConfig(feedback="document", train_on="sentence", max_effort="40")
    review_topics(demo, config, ["T2"], tmp_path)
    records = [json.loads(line) for line in (tmp_path / "ledgers" / "T2.jsonl").read_text().splitlines()]
    judgments = [r for r in records if r["type"] == "judgment"]
    assert len(judgments) == 40
    assert all(isinstance(r["trained_sentence"], int) and r["trained_sentence"] >= 0 for r in judgments)
    document_sentences = {d.docid: len(d.sentences) for d in demo.collection}
    assert all(r["trained_sentence"] < document_sentences[r["docid"]] for r in judgments)
