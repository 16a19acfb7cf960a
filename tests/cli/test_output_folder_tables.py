"""The tables `tarsim simulate` writes describe its output folder: every ledger in it, with the recall it was asked for.

Found by a new user's trial: a second run of one topic into a folder holding two left a CSV and summary of one topic
beside two ledgers (`tarsim report` printed both), and `--recall found` printed found recall but wrote presented.
"""

from __future__ import annotations

import csv
import json

import pytest

from tarsim.cli import main
from tarsim.data.ledger import iter_ledger_paths, read_ledger
from tarsim.reporting.tables import recall_at_effort_frame


def _csv_topics(out) -> set[str]:
    with open(out / "recall_at_effort.csv", newline="", encoding="utf-8") as handle:
        return {row["topic"] for row in csv.DictReader(handle)}


@pytest.mark.slow
def test_a_run_of_fewer_topics_into_a_folder_keeps_its_tables_whole(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T1", "--topic", "T2", "--out", str(out)]) == 0
    before_csv = (out / "recall_at_effort.csv").read_bytes()
    capsys.readouterr()
    assert main(["simulate", "--topic", "T1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert _csv_topics(out) == {"T1", "T2"}
    assert set(json.loads((out / "summary.json").read_text())["topics"]) == {"T1", "T2"}
    assert "1 topic an earlier run left" in printed and "T2" in printed
    # the same configuration and seed: the rewritten tables are the first run's, byte for byte
    assert sorted((out / "recall_at_effort.csv").read_bytes().splitlines()) == sorted(before_csv.splitlines())


@pytest.mark.slow
def test_written_tables_follow_the_recall_asked_for(tmp_path):
    out = tmp_path / "out"
    argv = ["simulate", "--topic", "T1", "--false-negative-rate", "0.4", "--seed", "3", "--recall", "found"]
    assert main([*argv, "--out", str(out)]) == 0
    ledgers = [read_ledger(p) for p in iter_ledger_paths(out / "ledgers")]
    found = recall_at_effort_frame(ledgers, recall="found")
    presented = recall_at_effort_frame(ledgers, recall="presented")
    assert not found["recall"].equals(presented["recall"])  # the reviewer's misses make the two differ here
    with open(out / "recall_at_effort.csv", newline="", encoding="utf-8") as handle:
        written = [float(row["recall"]) if row["recall"] else None for row in csv.DictReader(handle)]
    expected = [None if value != value else float(value) for value in found["recall"]]
    assert written == expected
    assert json.loads((out / "summary.json").read_text())["recall"] == "found"


@pytest.mark.slow
def test_a_folder_the_tables_could_not_describe_is_refused_before_any_review(tmp_path):
    """Found in review: the tables would have mixed another learner's ledgers in, or counted a copied ledger twice,
    or failed on an unfinished one after the reviews had run; each is refused first, nothing written."""
    import shutil

    import pytest
    from sklearn.linear_model import LogisticRegression

    import tarsim
    from tarsim.errors import ConfigError, InputError

    out = tmp_path / "out"
    tarsim.simulate(topic="T1", out=out)
    before = sorted(p.name for p in (out / "ledgers").iterdir())
    learner = r"another learner \(ledgers/T1.jsonl: learner is 'BMILogisticRegression \(default\)' there, 'Logis"
    with pytest.raises(ConfigError, match=learner):
        tarsim.simulate(topic="T2", out=out, learner=LogisticRegression(C=100))
    shutil.copy(out / "ledgers" / "T1.jsonl", out / "ledgers" / "T1-copy.jsonl")
    with pytest.raises(InputError, match="a second ledger of topic 'T1'"):
        tarsim.simulate(topic="T2", out=out)
    (out / "ledgers" / "T1-copy.jsonl").unlink()
    lines = (out / "ledgers" / "T1.jsonl").read_text().splitlines()
    (out / "ledgers" / "T1.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # its end record lost
    with pytest.raises(InputError, match="no end record"):
        tarsim.simulate(topic="T2", out=out)
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == before  # no review ran
    assert tarsim.simulate(topic="T1", out=out).ledgers["T1"].complete  # a run of T1 itself rewrites it
