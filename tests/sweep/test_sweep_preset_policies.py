"""A sweep over presets (issue 31): without [sweep] policies each preset keeps its own policy, as `tarsim simulate
--preset` does (asreview-logistic's `max`, not the default `relevance`); given policies win for every preset; and the
stopping study's summary is split per preset (and policy, strategy), never pooling two models in one row."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

import ledger_factory
from tarsim.sweep import expand_plan, parse_sweep_config
from tarsim.sweep.plan import RunSpec, load_collections

SWEEP = """
[sweep]
seeds = 2
presets = ["asreview-logistic", "bmi"]
{policies}
[[collections]]
path = "demo"
topics = ["T2"]

[review]
max_effort = "R"
"""


def _plan(tmp_path, policies: str = ""):
    config = parse_sweep_config(SWEEP.format(policies=policies), tmp_path / "s.toml")
    return config, expand_plan(config, load_collections(config))[0]


def test_each_preset_keeps_its_own_policy_without_sweep_policies(tmp_path):
    config, runs = _plan(tmp_path)
    assert config.policies_of("asreview-logistic") == ("max",) and config.policies_of("bmi") == ("relevance",)
    assert [(run.preset, run.policy) for run in runs] == [("asreview-logistic", "max")] * 2 + [("bmi", "relevance")] * 2
    assert runs[0].run_id == "demo__T2__asreview-logistic__max__document-document__seed0"
    review = config.review_config(runs[0].policy, runs[0].strategy, runs[0].derived_seed, preset=runs[0].preset)
    assert review.policy == "max"  # what the ledger records, as simulate --preset asreview-logistic does
    _, given = _plan(tmp_path, 'policies = ["relevance"]')
    # the preset's own policy derives the seed as the default one did: runs of both presets still pair
    assert [run.derived_seed for run in runs] == [run.derived_seed for run in given]
    assert runs[0].derived_seed == runs[2].derived_seed and runs[0].derived_seed != runs[1].derived_seed


def test_given_policies_win_for_every_preset(tmp_path):
    config, runs = _plan(tmp_path, 'policies = ["uncertainty", "relevance"]')
    assert config.policies_of("asreview-logistic") == config.policies_of("bmi") == ("uncertainty", "relevance")
    assert {(run.preset, run.policy) for run in runs} == {
        (preset, policy) for preset in ("asreview-logistic", "bmi") for policy in ("uncertainty", "relevance")
    }
    assert len(runs) == 2 * 2 * 2


def test_a_sweep_without_presets_plans_as_before(tmp_path):
    text = SWEEP.format(policies="").replace('presets = ["asreview-logistic", "bmi"]\n', "")
    config = parse_sweep_config(text, tmp_path / "s.toml")
    runs = expand_plan(config, load_collections(config))[0]
    assert [run.run_id for run in runs] == [f"demo__T2__relevance__document-document__seed{s}" for s in (0, 1)]


@pytest.fixture
def swept(tmp_path, monkeypatch):
    """A finished sweep over two presets with stopping rules, as write_stopping_study sees it: hand-built ledgers of
    R = 4 in N = 20 (nonrel:3 fires on every run, nonrel:50 on none), each preset's two seeds."""
    import tarsim.reporting.stopping_plots as plots

    monkeypatch.setattr(plots, "write_study_figures", lambda *args: [])  # the figures have their own tests
    toml = SWEEP.format(policies="").replace("[[collections]]", 'stopping = ["nonrel:50", "nonrel:3"]\n[[collections]]')
    config = parse_sweep_config(toml, tmp_path / "s.toml")
    truths = ([1, 0, 1, 0, 0, 1, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0, 0, 0, 1, 0])
    tasks = []
    for preset, policy in (("asreview-logistic", "max"), ("bmi", "relevance")):
        for seed in (0, 1):
            spec = RunSpec("demo", "T2", policy, "document/document", seed, 7, None, preset)
            path = tmp_path / "out" / "ledgers" / spec.ledger_file
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = ledger_factory.ledger_lines(truths[seed], size=20, seed=seed, topic="T2", policy=policy)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            tasks.append(SimpleNamespace(spec=spec, ledger_path=str(path)))
    dataset = SimpleNamespace(collection=SimpleNamespace(docids=None), qrels=None)
    return SimpleNamespace(config=config, out=Path(tmp_path / "out"), tasks=tasks, datasets={"demo": dataset})


def test_the_stopping_summary_is_split_per_preset(swept):
    from tarsim.sweep.stopping_study import write_stopping_study

    study = write_stopping_study(swept)
    assert study.group_by == ("preset",)
    summary = pd.read_csv(study.folder / "stop_summary.csv")
    assert list(summary.columns[:3]) == ["preset", "rule", "rule_given"]
    assert list(zip(summary["preset"], summary["rule"], summary["runs"], strict=True)) == [
        ("asreview-logistic", "nonrel:50", 2),
        ("asreview-logistic", "nonrel:3", 2),
        ("bmi", "nonrel:50", 2),
        ("bmi", "nonrel:3", 2),
    ]
    table = pd.read_csv(study.folder / "stop_table.csv")
    pairs = set(zip(table["preset"], table["policy"], strict=True))
    assert pairs == {("asreview-logistic", "max"), ("bmi", "relevance")}
    tests = pd.read_csv(study.folder / "stop_tests.csv")
    assert set(tests["baseline"]) == {"nonrel:3"}  # nonrel:50, the first rule, fired in no run
