"""`tarsim stop --group-by` pairs runs within each group (issue 31: with two presets the tests pooled them, `pairs`
counting both presets' runs), Holm over all the groups' comparisons; stop_table.csv has the runs' prior seeds."""

from __future__ import annotations

import pandas as pd
import pytest

import ledger_factory
from tarsim.cli import main

TRUTHS = (  # 10 judgments each, R = 4 of N = 20: nonrel:2 stops early, nonrel:4 later or never
    [1, 0, 0, 1, 0, 1, 0, 0, 0, 1],
    [1, 1, 0, 0, 1, 0, 0, 0, 1, 0],
    [0, 1, 0, 0, 1, 1, 0, 0, 0, 1],
)


def _write(folder, prior_seed: bool):
    folder.mkdir()
    for preset in ("p-a", "p-b"):
        for seed, truth in enumerate(TRUTHS):
            config = {"preset": preset, **({"prior_seed": 40 + seed} if prior_seed else {})}
            lines = ledger_factory.ledger_lines(truth, size=20, seed=seed, topic=f"t{seed}", config=config)
            (folder / f"t{seed}_{preset}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """The figures are tested in tests/stopping/test_study_figure_groups.py; drawing them here only slows."""
    import tarsim.reporting.stopping_plots as plots

    monkeypatch.setattr(plots, "write_study_figures", lambda *args, **kwargs: [])


@pytest.fixture
def ledgers(tmp_path):
    """Three reviews under each of two presets (as a sweep over presets writes them)."""
    return _write(tmp_path / "ledgers", prior_seed=True)


def test_paired_tests_pair_runs_within_each_group(ledgers, tmp_path, capsys):
    out = tmp_path / "out"
    rules = ["--rule", "nonrel:2", "--rule", "nonrel:4"]
    assert main(["stop", str(ledgers), *rules, "--group-by", "preset", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "runs paired within each preset group (Holm over all the groups' comparisons" in text
    tests = pd.read_csv(out / "stop_tests.csv")
    assert list(tests.columns[:2]) == ["preset", "rule"]
    assert sorted(tests["preset"]) == ["p-a", "p-a", "p-b", "p-b"]  # 2 presets x 1 rule x 2 measures
    assert set(tests["pairs"]) == {3}  # each preset's three reviews; pooled, 6
    for _, family in tests.groupby("measure"):  # Holm over the two presets' comparisons, not one each
        low, high = sorted(family["p"])
        assert sorted(family["p_holm"]) == pytest.approx(sorted([min(1, 2 * low), max(min(1, 2 * low), high)]))
    assert main(["stop", str(ledgers), *rules]) == 0  # ungrouped: the runs of both presets pair as before
    assert "tests against nonrel:2 (Holm)" in capsys.readouterr().out


def test_stop_table_has_prior_seed_after_seed(ledgers, tmp_path, capsys):
    assert main(["stop", str(ledgers), "--rule", "nonrel:2", "--out", str(tmp_path / "out")]) == 0
    table = pd.read_csv(tmp_path / "out" / "stop_table.csv")
    columns = list(table.columns)
    assert columns[columns.index("seed") + 1] == "prior_seed"
    assert sorted(set(table["prior_seed"])) == [40, 41, 42]
    bare = _write(tmp_path / "bare", prior_seed=False)
    assert main(["stop", str(bare), "--rule", "nonrel:2", "--out", str(tmp_path / "out2")]) == 0
    assert "prior_seed" not in pd.read_csv(tmp_path / "out2" / "stop_table.csv").columns  # no run has one
