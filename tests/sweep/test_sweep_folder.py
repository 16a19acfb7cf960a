"""A sweep's output folder holds one study (found in a new-user trial): a changed [review] or base seed is refused
before any run instead of replacing the earlier ledgers, an interrupted sweep leaves no stale results tables, a dry
run refuses what the sweep refuses, and a broken local worker pool is one line, not one per run."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.sweep import load_sweep_config, run_sweep
from tarsim.sweep.worker import execute_run

SWEEP = """\
[sweep]
seeds = {seeds}
base_seed = {base_seed}
policies = ["relevance"]
effort_models = ["judge"]

[[collections]]
path = "demo"
topics = ["T1"]

[review]
max_effort = "{budget}"
"""


def sweep_file(folder: Path, name: str, seeds: int = 1, base_seed: int = 0, budget: str = "R") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(SWEEP.format(seeds=seeds, base_seed=base_seed, budget=budget), encoding="utf-8")
    return path


def ledgers(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "ledgers").iterdir())}


@pytest.fixture()
def study(tmp_path, capsys) -> Path:
    """A finished sweep of two runs (seeds 0, 1)."""
    out = tmp_path / "out"
    assert main(["sweep", str(sweep_file(tmp_path, "study", seeds=2)), "--out", str(out)]) == 0
    capsys.readouterr()
    return out


@pytest.mark.parametrize("option", ["--resume", None, "--dry-run"])
@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"budget": "2R"}, "config.max_effort is 'R' there, '2R' in this sweep"),
        ({"base_seed": 5}, "sweep.base_seed is 0 there, 5 in this sweep; also config.seed, seed"),
    ],
)
@pytest.mark.slow
def test_a_changed_review_or_base_seed_is_refused_before_any_run(study, tmp_path, capsys, change, named, option):
    """It used to run every run again over the earlier ledgers ("2 ran, 0 kept", exit 0): the study was replaced.
    A dry run refuses it too."""
    before = ledgers(study)
    tables = {name: (study / name).read_bytes() for name in ("results.csv", "results.parquet")}
    changed = sweep_file(tmp_path, "changed", seeds=2, **change)
    assert main(["sweep", str(changed), "--out", str(study), *([option] if option else [])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"tarsim: error: {study} already holds 2 ledger(s) of this sweep's runs written with another configuration "
        f"(e.g. ledgers/demo__T1__relevance__document-document__seed0.jsonl: {named}); choose another --out, or "
        "delete them"
    ]
    assert ledgers(study) == before  # refused before anything ran
    assert {name: (study / name).read_bytes() for name in tables} == tables


@pytest.mark.slow
def test_more_seeds_resume_and_a_plain_rerun_runs_again_into_the_same_plan(study, tmp_path, capsys):
    before = ledgers(study)
    more = sweep_file(tmp_path, "more", seeds=3)
    assert main(["sweep", str(more), "--out", str(study), "--resume"]) == 0
    assert "3 run(s): 1 ran, 2 kept from an earlier sweep, 0 failed" in capsys.readouterr().out
    after = ledgers(study)
    assert {name: after[name] for name in before} == before and len(after) == 3
    # Without --resume every run runs again (docs/sweeps.md), into the same bytes.
    assert main(["sweep", str(more), "--out", str(study)]) == 0
    assert "3 run(s): 3 ran, 0 kept" in capsys.readouterr().out
    assert ledgers(study) == after


def _interrupt_after(count: int, seen: list, task):
    """execute_run, with Ctrl-C (KeyboardInterrupt) arriving when `count` runs have finished."""
    if len(seen) == count:
        raise KeyboardInterrupt
    seen.append(task.spec.run_id)
    return execute_run(task)


@pytest.mark.slow
def test_an_interrupted_extended_sweep_leaves_no_stale_results_tables(study, tmp_path):
    """The tables of the earlier 2 runs used to stay beside 3 ledgers, with no mark; the sweep removes them when it
    starts running and writes them from every ledger at its end (here: when resumed)."""
    config = load_sweep_config(sweep_file(tmp_path, "more", seeds=4))
    with pytest.raises(KeyboardInterrupt):
        run_sweep(config, study, resume=True, runner=functools.partial(_interrupt_after, 1, []))
    assert len(ledgers(study)) == 3
    assert not (study / "results.csv").exists() and not (study / "results.parquet").exists()
    outcome = run_sweep(config, study, resume=True)
    assert len(outcome.executed) == 1 and len(outcome.resumed) == 3
    assert outcome.table["run_id"].nunique() == 4 and (study / "results.csv").exists()


@pytest.mark.slow
def test_a_refused_sweep_keeps_the_results_tables(study, tmp_path):
    """Tables go only when runs are about to start: a sweep refused before any run leaves the folder as it was."""
    with pytest.raises(Exception, match="written with another configuration"):
        run_sweep(load_sweep_config(sweep_file(tmp_path, "changed", seeds=2, budget="2R")), study)
    assert (study / "results.csv").exists() and (study / "results.parquet").exists()


def test_dry_run_refuses_a_plan_of_no_run_as_the_sweep_does(tmp_path, capsys):
    lines = ["title,abstract,label_included", *(f"trial {i},abstract {i},0" for i in range(6))]  # nothing relevant
    (tmp_path / "none.csv").write_text("\n".join(lines) + "\n")
    config = tmp_path / "sweep.toml"
    config.write_text('[sweep]\nseeds = 1\n\n[[collections]]\npath = "none.csv"\n')
    skipped = "skipped none/none: no relevant document in the collection"
    refusal = f"tarsim: error: {config}: the sweep plans no run ({skipped})"
    assert main(["sweep", str(config), "--dry-run"]) == 2  # it said "0 run(s) planned", exit 0
    assert capsys.readouterr().err.strip().splitlines() == [refusal]
    assert main(["sweep", str(config), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [refusal]


def _dies_on_the_second(task):
    """A run whose worker process is killed (SIGKILL, the OOM killer) on the sweep's second run."""
    if task.spec.run_id.endswith("seed1"):
        os._exit(9)
    return execute_run(task)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forked workers are Linux's")
def test_a_dead_local_worker_is_one_line_not_one_per_run(tmp_path, capsys, monkeypatch):
    """A killed worker breaks the local pool: it printed `run X failed: a worker process died ... during the run` for
    every run not finished, most of which had never started."""
    import tarsim.sweep.run

    monkeypatch.setattr(tarsim.sweep.run, "run_sweep", functools.partial(run_sweep, runner=_dies_on_the_second))
    config = sweep_file(tmp_path, "study", seeds=12)
    assert main(["sweep", str(config), "--out", str(tmp_path / "out"), "--jobs", "2"]) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert not [line for line in err if line.startswith("tarsim: run ")], err
    pool = [line for line in err if "worker process died" in line]
    assert len(pool) == 1, err
    assert pool[0].startswith("tarsim: a worker process died (killed, or out of memory) and the worker pool stopped: ")
    assert err[-1] == "tarsim: rerun with --resume to retry the failed runs"
    if pool[0].endswith(" run(s) did not finish"):  # loky's workers (another thread runs here): it cannot say which
        return
    assert "run(s) in progress were stopped and " in pool[0] and pool[0].endswith(" run(s) were not started")
    assert " failed (" in captured.out and " not started); ledgers" in captured.out
