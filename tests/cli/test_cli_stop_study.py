"""`tarsim stop` as a stopping study: several targets, the summary first, per-run rows with --runs, the tidy
table, summary, tests and figures with --out; bad targets, cost structures and score rules refused in one line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import ledger_factory
from tarsim.cli import main


@pytest.fixture
def ledgers(tmp_path):
    """Two reviews of R = 4 in N = 20 (relevant at 1, 3, 6, 10 and 1, 2, 3, 9), as ledger files."""
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for name, truth, seed in (("a", [1, 0, 1, 0, 0, 1, 0, 0, 0, 1], 0), ("b", [1, 1, 1, 0, 0, 0, 0, 0, 1, 0], 1)):
        lines = ledger_factory.ledger_lines(truth, size=20, seed=seed, topic=name)
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _refused(capsys, *args) -> str:
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    return err


STUDY = ["--rule", "nonrel:3", "--rule", "budget:2", "--target-recall", "0.5", "--target-recall", "0.75"]


def test_the_summary_per_rule_and_target(ledgers, capsys):
    assert main(["stop", str(ledgers), *STUDY]) == 0
    summary, tests = capsys.readouterr().out.split("\n\n")
    lines = summary.splitlines()
    assert lines[0].split()[:4] == ["rule", "target", "runs", "fired"] and len(lines) == 1 + 2 * 2 + 1
    assert lines[-1].startswith("excess_judge: judgments after the oracle stop")  # the caption explains it
    assert lines[1].split()[:3] == ["nonrel:3", "0.5", "2"]
    # budget:2 finds 1 and 2 of 4 relevant: mean recall 0.375; the second reaches 0.5, neither 0.75
    budget = {line.split()[1]: line for line in lines if line.startswith("budget:2")}
    assert all("0.375 [0.250, 0.500]" in line for line in budget.values())
    assert "0.50 [0.09, 0.91]" in budget["0.5"] and "0.00 [0.00, 0.66]" in budget["0.75"]  # Wilson
    assert "paired Wilcoxon signed-rank tests against nonrel:3 (Holm)" in tests


@pytest.mark.slow
def test_a_study_writes_its_table_summary_tests_and_figures(ledgers, tmp_path, capsys):
    out = tmp_path / "study"
    assert main(["stop", str(ledgers), *STUDY, "--out", str(out)]) == 0
    table = pd.read_csv(out / "stop_table.csv")
    assert len(table) == 2 * 2 * 2 and set(table["target"]) == {0.5, 0.75}
    assert list(table.loc[table["rule"] == "nonrel:3", "position"]) == [9, 9, 6, 6]
    assert set(pd.read_csv(out / "stop_summary.csv")["rule"]) == {"nonrel:3", "budget:2"}
    assert set(pd.read_csv(out / "stop_tests.csv")["baseline"]) == {"nonrel:3"}
    for name in ("recall_cost", "missed_unused", "reliability"):
        assert (out / f"stop_{name}.png").stat().st_size > 0


def test_per_run_rows_only_with_the_flag_and_in_csv_json(ledgers, capsys):
    rules = ["--rule", "nonrel:3", "--rule", "budget:2", "--baseline", "budget:2"]
    assert main(["stop", str(ledgers), *rules]) == 0
    text = capsys.readouterr().out
    assert "a.jsonl" not in text and "position" not in text and "against budget:2" in text
    assert main(["stop", str(ledgers), *rules, "--runs"]) == 0
    runs = capsys.readouterr().out.rstrip("\n").split("\n\n")[-1].splitlines()
    assert runs[0].split()[:4] == ["topic", "rule", "target", "stopped"] and len(runs) == 1 + 4
    assert main(["stop", str(ledgers), *rules, "--format", "json", "--cost-structure", "25,5,5,1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4 and {"loss_er", "wss", "tnr", "two_phase_25-5-5-1", "excess_judge"} <= set(rows[0])
    assert "two_phase_1-1-1-1" not in rows[0]


def test_bad_study_options_are_refused_in_one_line(ledgers, capsys, monkeypatch):
    assert "target recall must be in (0, 1]" in _refused(
        capsys, "stop", ledgers, "--rule", "knee", "--target-recall", 1.5
    )
    assert "cost structure '1,2'" in _refused(capsys, "stop", ledgers, "--rule", "knee", "--cost-structure", "1,2")
    err = _refused(capsys, "stop", ledgers, "--rule", "knee", "--baseline", "oracle")
    assert "baseline rule 'oracle' is not among the rules of the study" in err
    import tarsim.stopping.study as study

    monkeypatch.setattr(study, "needs_scores", lambda rule: True)  # as a score-based rule would
    err = _refused(capsys, "stop", ledgers, "--rule", "knee")
    assert "reads the learner's scores of each round" in err and "--log-scores" in err


def test_stop_summarises_per_group_of_runs(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--max-effort", "R", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["stop", str(out / "ledgers"), "--rule", "nonrel:5", "--group-by", "topic"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rows = lines[0].split(), [line.split() for line in lines[1:4]]
    assert header[:3] == ["topic", "rule", "target"]
    assert [row[0] for row in rows] == ["T1", "T2", "T3"] and all(
        row[1] == "nonrel:5" and row[3] == "1" for row in rows
    )
    assert main(["stop", str(out / "ledgers"), "--rule", "nonrel:5", "--group-by", "colour"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--group-by field(s) colour unknown" in err[0] and "topic" in err[0]


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_stop_writes_its_summary_for_a_paper(tmp_path, capsys, fmt):
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T2", "--max-effort", "R", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["stop", str(out / "ledgers"), "--rule", "nonrel:5", "--format", fmt]) == 0
    text = capsys.readouterr().out
    if fmt == "markdown":
        lines = text.splitlines()
        assert lines[0].startswith("| rule | target | runs | fired | reliability")
        assert lines[1].startswith("| --- | ---: |")
        assert lines[2].startswith("| nonrel:5 | 0.8 | 1 | ")
    else:
        assert text.startswith("\\begin{tabular}{lrrrrrrr") and "nonrel:5 & 0.8 & 1 & " in text
        _, captions = text.split("\\end{tabular}\n")
        assert captions and all(line.startswith("% ") for line in captions.splitlines())  # caption lines: comments
