"""`tarsim stop --group-by` takes any ledger header or config field as `compare` and `metrics` do (issue 31: a
sweep's `preset` was refused), the per-run table carries the fields, and the default baseline of the paired tests
is never a rule that fired in no run."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import ledger_factory
from tarsim.cli import main

REVIEWS = (  # R = 4 in N = 20: nonrel:3 fires on every review, nonrel:50 on none (10 judgments each)
    ("a", [1, 0, 1, 0, 0, 1, 0, 0, 0, 1]),
    ("b", [1, 1, 1, 0, 0, 0, 0, 0, 1, 0]),
)


@pytest.fixture
def ledgers(tmp_path):
    """Each review under two presets (as a sweep over presets writes them), one folder."""
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for preset in ("asreview-logistic", "bmi"):
        for seed, (topic, truth) in enumerate(REVIEWS):
            config = {"preset": preset, "learner": "bmi" if preset == "bmi" else "logistic"}
            lines = ledger_factory.ledger_lines(truth, size=20, seed=seed, topic=topic, config=config)
            (folder / f"{topic}_{preset}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_group_by_a_config_field_as_compare_does(ledgers, capsys):
    rules = ["--rule", "nonrel:3"]
    assert main(["stop", str(ledgers), *rules, "--group-by", "preset,collection"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["collection", "preset", "rule", "target"]  # datasets first, as compare puts them
    rows = [line.split() for line in lines[1:5]]
    assert [(row[0], row[1], row[3]) for row in rows] == [
        ("a", "asreview-logistic", "0.8"),
        ("a", "bmi", "0.8"),
        ("b", "asreview-logistic", "0.8"),
        ("b", "bmi", "0.8"),
    ]  # collection: a screening file's topic, where the table had none (not a sweep's ledger)
    assert main(["stop", str(ledgers), *rules, "--group-by", "preset,learner", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(table.columns[3:6]) == ["topic", "preset", "learner"]
    assert sorted(zip(table["preset"], table["learner"], strict=True)) == [
        ("asreview-logistic", "logistic"),
        ("asreview-logistic", "logistic"),
        ("bmi", "bmi"),
        ("bmi", "bmi"),
    ]


def test_group_by_the_summary_keys_is_refused_in_one_line(ledgers, capsys):
    assert main(["stop", str(ledgers), "--rule", "nonrel:3", "--group-by", "preset,rule"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--group-by 'rule'" in err[0]


def test_the_default_baseline_is_a_rule_that_fired(ledgers, capsys):
    assert main(["stop", str(ledgers), "--rule", "nonrel:50", "--rule", "nonrel:3"]) == 0
    out = capsys.readouterr().out
    assert "tests against nonrel:3 (Holm); baseline: the first rule that fired in some run" in out
    assert "nonrel:50 fired in no run" in out and "never fired" in out
    assert main(["stop", str(ledgers), "--rule", "nonrel:50", "--rule", "nonrel:3", "--baseline", "nonrel:50"]) == 0
    assert "tests against nonrel:50 (Holm):" in capsys.readouterr().out  # named: as asked


def test_markdown_captions_explain_never_fired_excess_and_the_baseline(ledgers, capsys):
    assert main(["stop", str(ledgers), "--rule", "nonrel:50", "--rule", "nonrel:3", "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    table, *captions = text.rstrip("\n").split("\n\n")
    assert table.splitlines()[0].endswith("| note |") and "| never fired |" in table.splitlines()[2]
    assert [caption[:14] for caption in captions] == ["*excess_judge:", "*never fired: ", "*paired Wilcox"]
