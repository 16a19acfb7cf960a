"""A sweep as a stopping study: [sweep] target_recall (a number or a list; recall_target as before), score rules
refused without [review] log_scores, and OUT/stopping written after the runs (replayed, not simulated again)."""

from __future__ import annotations

import pandas as pd
import pytest

from tarsim.errors import InputError
from tarsim.sweep.config import load_sweep_config

BASE = '[[collections]]\npath = "demo"\ntopics = ["T1"]\n'


def _config(tmp_path, sweep: str, review: str = ""):
    path = tmp_path / "study.toml"
    path.write_text(f"[sweep]\n{sweep}\n{BASE}\n{review}", encoding="utf-8")
    return load_sweep_config(path)


def test_target_recall_is_a_number_or_a_list(tmp_path):
    config = _config(tmp_path, 'stopping = ["knee"]\ntarget_recall = [0.8, 0.9, 0.95]')
    assert config.target_recall == (0.8, 0.9, 0.95) and config.recall_target == 0.8
    assert _config(tmp_path, "target_recall = 0.9").target_recall == (0.9,)
    assert _config(tmp_path, "recall_target = 0.7").target_recall == (0.7,)  # the older key, as before
    assert _config(tmp_path, "").target_recall == (0.8,)
    for bad, message in (
        ("target_recall = [0.8, 1.5]", "expected a number in (0, 1] or a non-empty list of them, got 1.5"),
        ("target_recall = []", "expected a number in (0, 1] or a non-empty list of them"),
        ("target_recall = [0.8, 0.8]", "duplicate entries"),
        ("target_recall = 0.8\nrecall_target = 0.8", "give target_recall or recall_target, not both"),
    ):
        with pytest.raises(InputError, match=r"sweep\.target_recall") as caught:
            _config(tmp_path, bad)
        assert message in str(caught.value)


def test_score_rules_need_log_scores(tmp_path, monkeypatch):
    import tarsim.stopping.rules as rules

    monkeypatch.setattr(rules, "needs_scores", lambda rule: True)  # as a score-based rule would
    with pytest.raises(InputError, match="set log_scores = true in \\[review\\]"):
        _config(tmp_path, 'stopping = ["knee"]')
    assert _config(tmp_path, 'stopping = ["knee"]', "[review]\nlog_scores = true\n").stopping == ("knee",)


@pytest.mark.slow
def test_a_sweep_writes_its_stopping_study(tmp_path, capsys):
    from tarsim.cli import main

    path = tmp_path / "study.toml"
    path.write_text(
        '[sweep]\nout = "out"\nseeds = 2\nstopping = ["knee", "nonrel:20"]\ntarget_recall = [0.8, 0.95]\n'
        f'{BASE}\n[review]\nmax_effort = "2R+100"\n',
        encoding="utf-8",
    )
    assert main(["sweep", str(path)]) == 0
    assert "stopping study: stop_table.csv" in capsys.readouterr().out
    folder = tmp_path / "out" / "stopping"
    table = pd.read_csv(folder / "stop_table.csv")
    assert len(table) == 2 * 2 * 2 and set(table["run_id"].str.contains("seed")) == {True}
    assert set(pd.read_csv(folder / "stop_tests.csv")["baseline"]) == {"knee"}
    assert all((folder / f"stop_{name}.png").exists() for name in ("recall_cost", "missed_unused", "reliability"))


def test_a_presets_sweep_tests_its_rules_within_each_preset(tmp_path, monkeypatch):
    """Issue 31: OUT/stopping/stop_tests.csv pooled the presets (pairs counted both presets' runs); each preset's
    runs now pair among themselves. The sweep is faked (its ledgers written by the factory): only the study runs."""
    from types import SimpleNamespace

    import ledger_factory
    import tarsim.reporting.stopping_plots as plots
    from tarsim.sweep.stopping_study import write_stopping_study

    monkeypatch.setattr(plots, "write_study_figures", lambda *args, **kwargs: [])  # tested in tests/stopping
    truths = ([1, 0, 0, 1, 0, 1, 0, 0, 0, 1], [1, 1, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 1, 1, 0, 0, 0, 1])
    tasks = []
    for preset in ("p-a", "p-b"):
        for seed, truth in enumerate(truths):
            path = tmp_path / f"{preset}_{seed}.jsonl"
            path.write_text("\n".join(ledger_factory.ledger_lines(truth, size=20, seed=seed)) + "\n", encoding="utf-8")
            spec = SimpleNamespace(
                run_id=f"{preset}-seed{seed}", collection="c", preset=preset, vary=(), policy="max", strategy="d"
            )
            tasks.append(SimpleNamespace(spec=spec, ledger_path=str(path)))
    config = SimpleNamespace(
        stopping=("nonrel:2", "nonrel:4"),
        target_recall=(0.8,),
        effort_models=("judge",),
        presets=("p-a", "p-b"),
        vary=(),
        policies=("max",),
        strategies=("d",),
    )
    dataset = SimpleNamespace(collection=SimpleNamespace(docids=None), qrels=None)
    prepared = SimpleNamespace(config=config, out=tmp_path / "out", tasks=tasks, datasets={"c": dataset})
    study = write_stopping_study(prepared)
    tests = pd.read_csv(tmp_path / "out" / "stopping" / "stop_tests.csv")
    assert study.group_by == ("preset",) and list(tests.columns[:2]) == ["preset", "rule"]
    assert sorted(tests["preset"]) == ["p-a", "p-a", "p-b", "p-b"] and set(tests["pairs"]) == {3}  # pooled: 6
