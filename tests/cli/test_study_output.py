"""Output that fits the study (issue 31): a screening file's review (titles and abstracts) prints and writes the
judgment tables only, without a sentence oracle, unless --effort asks for more; `tarsim report` then keeps to
what the review recorded; the demo explains its terms and every review suggests the next two commands."""

from __future__ import annotations

import csv
import json

import pytest

from tarsim.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def write_csv(path, n=40):
    words = ["coffee", "sleep", "knee", "diet", "asthma", "vision", "teeth", "skin"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "label_included"])
        for i in range(n):
            label = int(i % 5 == 0)
            topic = "triptan migraine relief" if label else f"{words[i % 8]} {words[(i * 3) % 8]} study"
            writer.writerow([f"trial {i} {topic}", f"{topic} randomised trial number {i}", label])
    return path


def test_a_screening_file_prints_the_judgment_tables_only(tmp_path, capsys):
    screening = write_csv(tmp_path / "review.csv")
    assert main(["simulate", "--collection", str(screening), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "sentence oracle" not in printed and "Mean hours" not in printed
    assert "effort_model  judge\n" in printed and "sent" not in printed.split("Mean Recall@E")[1].split("\n")[2]
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["effort_models"] == ["judge"]
    assert f"next: tarsim plot {tmp_path / 'out'} --out {tmp_path / 'out' / 'recall.png'}" in printed
    assert "Terms:" not in printed  # the glossary lines are the demo's
    assert main(["report", str(tmp_path / "out")]) == 0
    report = capsys.readouterr().out
    assert "sentence oracle" not in report and "Mean hours" not in report
    assert main(["report", str(tmp_path / "out"), "--effort", "judge", "--effort", "sent"]) == 0
    assert "sentence oracle" in capsys.readouterr().out  # asked for: sentences read depend on the oracle


def test_the_demo_explains_its_terms_and_suggests_next_steps(tmp_path, capsys):
    assert main(["simulate", "--topic", "T1", "--out", str(tmp_path / "demo")]) == 0
    printed = capsys.readouterr().out
    assert "sentence oracle: classifier" in printed  # the sent and lambda tables depend on it
    assert "Terms: R = a topic's relevant documents" in printed and "docs/semantics.md#glossary" in printed
    tail = printed.rstrip().splitlines()[-2:]
    assert tail[0].startswith("next: tarsim plot") and tail[1].strip().startswith("tarsim report")
