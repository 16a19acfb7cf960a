"""Scores on record (--log-scores): the learner's scores of every document per round, written beside the ledger
(OUT/scores/<name>.npz) atomically and checksummed, the same bytes for the same seed, kept by resume only when
whole, and written by sweeps with `log_scores = true`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tarsim.cli import main
from tarsim.data.ledger import read_ledger
from tarsim.data.score_log import ScoreLog, logged_scores, score_log_path
from tarsim.errors import InputError
from tarsim.simulator import ReviewConfig, review_topics


def _log() -> ScoreLog:
    log = ScoreLog("T1", 4)
    log.add(1, 0, np.array([0.5, -1.0, 2.0, 0.0]))
    log.add(2, 3, np.array([1.5, -2.0, 0.25, -0.5]))
    return log


def test_a_score_log_reads_back_as_written(tmp_path):
    path = tmp_path / "scores" / "T1.npz"
    _log().save(path)
    back = ScoreLog.load(path)
    assert (back.topic, back.collection_size, len(back)) == ("T1", 4, 2)
    assert [(r.round, r.judged) for r in back.rounds] == [(1, 0), (2, 3)]
    np.testing.assert_array_equal(back.rounds[1].scores, np.array([1.5, -2.0, 0.25, -0.5], dtype=np.float32))
    assert back.rounds[0].scores.dtype == np.float32
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")], "no temporary file left behind"


def test_a_rule_checked_after_s_judgments_reads_the_round_trained_on_at_most_s():
    log = _log()
    assert log.at(0).round == 1 and log.at(2).round == 1 and log.at(3).round == 2 and log.at(99).round == 2
    assert ScoreLog("T1", 4).at(5) is None
    np.testing.assert_allclose(log.at(0).probabilities()[3], 0.5)


def test_a_round_needs_one_score_per_document_and_training_order():
    log = _log()
    with pytest.raises(ValueError, match="one score per document"):
        log.add(3, 4, np.zeros(3))
    with pytest.raises(ValueError, match="before the last round"):
        log.add(3, 2, np.zeros(4))


def test_an_edited_score_log_is_refused_in_one_line(tmp_path):
    path = tmp_path / "T1.npz"
    _log().save(path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["scores"] = arrays["scores"].copy()
    arrays["scores"][0, 0] = 9.0  # one score changed, the recorded SHA-256 kept
    np.savez(path, **arrays)
    with pytest.raises(InputError, match="damaged") as caught:
        ScoreLog.load(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("damage", ["truncated", "not a zip", "missing"])
def test_a_damaged_or_missing_score_log_is_refused_in_one_line(tmp_path, damage):
    path = tmp_path / "T1.npz"
    _log().save(path)
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif damage == "not a zip":
        path.write_text("hello")
    else:
        path.unlink()
    with pytest.raises(InputError) as caught:
        ScoreLog.load(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_the_sidecar_lives_beside_the_ledgers_folder():
    assert score_log_path("out/ledgers/T1.jsonl") == Path("out/scores/T1.npz")
    assert score_log_path("somewhere/run.jsonl") == Path("somewhere/run.scores.npz")


def test_a_review_logs_one_round_per_training_with_every_documents_score(demo, tmp_path):
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T1", "--log-scores", "--max-effort", "R", "--out", str(out)]) == 0
    ledger = read_ledger(out / "ledgers" / "T1.jsonl")
    log = logged_scores(ledger)
    assert ledger.header["config"]["log_scores"] is True
    assert [r.round for r in log.rounds] == [record["round"] for record in ledger.rounds]
    judged = [r.judged for r in log.rounds]
    assert judged == sorted(judged) and judged[-1] < len(ledger)
    for score_round in log.rounds:  # each round trained on the judgments before its own
        assert score_round.scores.shape == (len(demo.collection),)
        assert set(ledger.round[: score_round.judged]) <= set(range(score_round.round))
    # the scores rank the documents the round presented first among those then unjudged
    second = log.rounds[1]
    position = {docid: i for i, docid in enumerate(demo.collection.docids)}
    presented = [position[d] for d, r in zip(ledger.docids, ledger.round, strict=True) if r == second.round]
    reviewed = {position[d] for d in ledger.docids[: second.judged]}
    unjudged = np.array(sorted(set(range(len(demo.collection))) - reviewed))
    best = unjudged[np.argsort(-second.scores[unjudged], kind="stable")[: len(presented)]]
    assert sorted(presented) == sorted(best.tolist())


def test_the_same_seed_writes_the_same_score_log_bytes(tmp_path):
    paths = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main(["simulate", "--topic", "T2", "--log-scores", "--max-effort", "R", "--out", str(out)]) == 0
        paths.append(out / "scores" / "T2.npz")
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert zipfile.is_zipfile(paths[0])


def test_without_log_scores_no_score_log_is_written_and_the_header_is_unchanged(tmp_path):
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T1", "--max-effort", "R", "--out", str(out)]) == 0
    assert not (out / "scores").exists()
    header = json.loads((out / "ledgers" / "T1.jsonl").read_text().splitlines()[0])
    assert "log_scores" not in header["config"]  # older ledgers and this one compare equal on resume


def test_resume_reruns_a_review_whose_score_log_is_missing(demo, tmp_path):
    config = ReviewConfig(max_effort="R", log_scores=True)
    out = tmp_path / "out"
    review_topics(demo, config, ["T1"], out=out)
    kept = review_topics(demo, config, ["T1"], out=out, resume=True)
    assert kept.outcomes[0].resumed and kept.ledgers["T1"].score_log is None
    sidecar = out / "scores" / "T1.npz"
    before = sidecar.read_bytes()
    sidecar.unlink()
    rerun = review_topics(demo, config, ["T1"], out=out, resume=True)
    assert not rerun.outcomes[0].resumed and sidecar.read_bytes() == before
    assert logged_scores(read_ledger(out / "ledgers" / "T1.jsonl")) is not None


def test_a_sweep_with_log_scores_writes_one_score_log_per_ledger(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(
        '[sweep]\nseeds = 2\npolicies = ["relevance"]\nstrategies = ["document/document"]\n\n'
        '[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\nmax_effort = "R"\nlog_scores = true\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--jobs", "1", "--out", str(out)]) == 0
    ledgers = sorted((out / "ledgers").glob("*.jsonl"))
    assert len(ledgers) == 2
    for path in ledgers:
        ledger = read_ledger(path)
        assert len(logged_scores(ledger)) == len(ledger.rounds)


def test_a_score_based_rule_replays_without_the_collection_the_score_log_names_its_docids(demo, tmp_path):
    from tarsim.stopping import evaluate_stopping

    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T2", "--log-scores", "--until", "exhausted", "--out", str(out)]) == 0
    ledger = read_ledger(out / "ledgers" / "T2.jsonl")
    assert logged_scores(ledger).docids == tuple(demo.collection.docids)
    alone = evaluate_stopping(ledger, "quant")
    given = evaluate_stopping(ledger, "quant", docids=demo.collection.docids, qrels=demo.qrels)
    assert alone.stopped and (alone.position, alone.recall) == (given.position, given.recall)


def test_a_score_log_with_the_wrong_number_of_docids_is_refused(tmp_path):
    with pytest.raises(ValueError, match="docids"):
        ScoreLog("T1", 4, docids=["a", "b"])
    path = tmp_path / "T1.npz"
    ScoreLog("T1", 2, docids=["a", "b"]).save(path)
    assert ScoreLog.load(path).docids == ("a", "b")


def test_a_score_log_or_sweep_configuration_that_is_a_fifo_is_refused_not_waited_on(tmp_path):
    """Found by the probe rerun: a FIFO in place of a score log hung `tarsim stop`; one as a sweep file hung `sweep`."""
    import os

    from tarsim.sweep.config import load_sweep_config

    for path in (tmp_path / "T1.npz", tmp_path / "sweep.toml"):
        os.mkfifo(path)
    with pytest.raises(InputError, match="FIFO"):
        ScoreLog.load(tmp_path / "T1.npz")
    with pytest.raises(InputError, match="FIFO"):
        load_sweep_config(tmp_path / "sweep.toml")
