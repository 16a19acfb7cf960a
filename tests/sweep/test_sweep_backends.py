"""`tarsim sweep` end to end: identical results with joblib (1 and 2 workers) and a 2-worker Dask cluster,
resume after an interruption, failed runs reported, and a Dask worker that dies mid-run."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pandas as pd
import pytest

from tarsim.cli import main
from tarsim.datasets.synthetic import demo_dataset
from tarsim.sweep import derive_seed, load_sweep_config, run_sweep
from tarsim.sweep.worker import execute_run

CONFIG = """\
[sweep]
seeds = 2
policies = ["relevance", "random"]
strategies = ["sentence/document"]
effort_models = ["judge", "sent"]
stopping = ["knee", "budget:2R+100"]

[[collections]]
path = "demo"
topics = ["T1", "T2"]

[review]
max_effort = "2R+50"
"""
RUNS = 2 * 2 * 2


def ledgers(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "ledgers").iterdir())}


def same_outputs(out: Path, reference: Path) -> None:
    assert ledgers(out) == ledgers(reference)
    for name in ("results.csv", "results.parquet"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sweep") / "sweep.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(config_path) -> Path:
    """The sweep run once with joblib on one worker (in-process)."""
    out = config_path.parent / "jobs1"
    assert main(["sweep", str(config_path), "--jobs", "1", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_one_ledger_per_run_and_a_tidy_table(reference):
    files = sorted((reference / "ledgers").iterdir())
    assert len(files) == RUNS and not any(p.name.startswith(".") for p in files)
    qrels = demo_dataset().qrels
    table = pd.read_parquet(reference / "results.parquet")
    assert list(table.columns) == [
        "run_id",
        "collection",
        "topic",
        "policy",
        "strategy",
        "seed",
        "prior_seed",
        "effort_model",
        "stopping",
        "measure",
        "value",
    ]
    assert table["run_id"].nunique() == RUNS
    csv = pd.read_csv(reference / "results.csv", dtype={"prior_seed": "Int64"})  # read as pandas reads it
    pd.testing.assert_frame_equal(csv, table)
    for column in ("effort_model", "stopping", "prior_seed"):  # empty cells are null in both tables, never ""
        assert csv[column].isna().equals(table[column].isna()) and table[column].isna().any(), column
        assert not (table[column].astype(str) == "").any(), column
    for path in files:
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        header, judgments = lines[0], [r for r in lines if r["type"] == "judgment"]
        sweep = header["sweep"]
        assert path.name == f"{sweep['run_id']}.jsonl" and lines[-1]["type"] == "end"
        assert (
            header["seed"]
            == header["config"]["seed"]
            == derive_seed(0, "demo", header["topic"], sweep["policy"], sweep["strategy"], sweep["seed"])
        )
        # the sweep's stopping rules are replayed on whole ledgers, not run online
        assert header["config"]["policy"] == sweep["policy"] and header["config"]["stopping"] == []
        assert "stop" not in lines[-1]
        # Cross-check table values against the ledger read by hand and the demo qrels.
        relevant = {d for d, g in qrels[header["topic"]].items() if g > 0}
        found = {j["docid"] for j in judgments} & relevant
        filled = table.fillna({"effort_model": "", "stopping": ""})  # null: not an effort measure, not a stop's
        rows = filled[filled["run_id"] == sweep["run_id"]].set_index(["effort_model", "stopping", "measure"])["value"]
        assert rows[("", "", "relevant")] == len(relevant)
        assert rows[("", "", "final_recall")] == pytest.approx(len(found) / len(relevant))
        assert rows[("judge", "", "total_effort")] == len(judgments)
        assert rows[("sent", "", "total_effort")] == sum(j["effort"]["sent"] for j in judgments)
        first_hundred = {j["docid"] for j in judgments[: len(relevant) + 100]} & relevant
        assert rows[("judge", "", "recall@1R+100")] == pytest.approx(len(first_hundred) / len(relevant))
        assert rows[("judge", "budget:2R+100", "effort_at_stop")] == min(2 * len(relevant) + 100, len(judgments))
    # Seeds differ per run, so the random policy's two replicates of a topic review different documents.
    orders = [
        [
            r["docid"]
            for r in map(
                json.loads,
                (reference / "ledgers" / f"demo__T1__random__sentence-document__seed{s}.jsonl")
                .read_text()
                .splitlines(),
            )
            if r["type"] == "judgment"
        ]
        for s in (0, 1)
    ]
    assert orders[0] != orders[1]


@pytest.mark.slow
def test_two_joblib_workers_give_byte_identical_outputs(config_path, reference):
    out = config_path.parent / "jobs2"
    assert main(["sweep", str(config_path), "--jobs", "2", "--out", str(out)]) == 0
    same_outputs(out, reference)


@pytest.mark.slow
def test_resume_runs_only_what_is_missing(config_path, reference, capsys):
    out = config_path.parent / "resumed"
    shutil.copytree(reference, out)
    names = sorted(ledgers(out))
    deleted = names[1], names[4]
    for name in deleted:
        (out / "ledgers" / name).unlink()
    # A run killed mid-way leaves a hidden partial ledger; an incomplete ledger (no end record) never counts.
    (out / "ledgers" / f".{deleted[0]}.partial").write_text('{"type":"header"}\n')
    truncated = out / "ledgers" / names[6]
    truncated.write_text("".join(truncated.read_text().splitlines(keepends=True)[:-1]))
    (out / "results.csv").unlink()
    kept = {n: (out / "ledgers" / n).stat().st_mtime_ns for n in names if n not in (*deleted, names[6])}
    capsys.readouterr()
    assert main(["sweep", str(config_path), "--jobs", "1", "--out", str(out), "--resume"]) == 0
    assert f"{RUNS} run(s): 3 ran, {RUNS - 3} kept" in capsys.readouterr().out
    assert {n: (out / "ledgers" / n).stat().st_mtime_ns for n in kept} == kept  # untouched
    assert not [p for p in (out / "ledgers").iterdir() if p.name.endswith(".partial")]
    same_outputs(out, reference)


@pytest.mark.slow
def test_a_failing_run_is_reported_and_never_counted(config_path, reference):
    config = load_sweep_config(config_path)
    out = config_path.parent / "failing"
    victim = sorted(ledgers(reference))[3].removesuffix(".jsonl")

    def fail_one(task):
        if task.spec.run_id == victim:
            import tarsim.simulator.review as review

            original = review.ReviewSimulation._judge
            calls = []

            def judge_then_fail(self, doc, ranking):
                calls.append(doc)
                if len(calls) > 20:  # part of the ledger is on disk by now
                    raise RuntimeError("simulated crash")
                return original(self, doc, ranking)

            review.ReviewSimulation._judge = judge_then_fail
            try:
                return execute_run(task)
            finally:
                review.ReviewSimulation._judge = original
        return execute_run(task)

    outcome = run_sweep(config, out, jobs=1, runner=fail_one)
    assert list(outcome.failed) == [victim] and "RuntimeError: simulated crash" in outcome.failed[victim]
    assert len(outcome.executed) == RUNS - 1
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == sorted(
        n for n in ledgers(reference) if victim not in n
    )
    assert victim not in set(outcome.table["run_id"])
    again = run_sweep(config, out, jobs=1, resume=True)
    assert again.executed == [victim] and not again.failed
    same_outputs(out, reference)


# ---- Dask ----------------------------------------------------------------------------------------------------


def die_once(marker: str, victim: str, task):
    """Kill this worker process (SIGKILL) at the end of the victim's first attempt, with its partial ledger on disk."""
    if task.spec.run_id == victim and not os.path.exists(marker):
        import tarsim.simulator.ledger as ledger_module

        def die(self, end):
            self.flush()
            with open(marker, "w") as handle:
                handle.write(str(self._partial.stat().st_size))
            os.kill(os.getpid(), signal.SIGKILL)

        ledger_module.LedgerWriter.finish = die
    return execute_run(task)


def always_die(victim: str, task):
    if task.spec.run_id == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    return execute_run(task)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    import dask

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import this test module
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as local,
    ):
        yield local


@pytest.mark.slow
def test_dask_cluster_gives_byte_identical_outputs(config_path, reference, cluster):
    out = config_path.parent / "dask"
    address = cluster.scheduler_address
    assert main(["sweep", str(config_path), "--backend", "dask", "--scheduler", address, "--out", str(out)]) == 0
    same_outputs(out, reference)


@pytest.mark.slow
def test_dask_worker_death_is_retried_and_partial_ledger_not_counted(config_path, reference, cluster):
    config = load_sweep_config(config_path)
    out = config_path.parent / "dask-death"
    marker = config_path.parent / "killed-once"
    victim = sorted(ledgers(reference))[2].removesuffix(".jsonl")
    runner = functools.partial(die_once, str(marker), victim)
    outcome = run_sweep(config, out, backend="dask", scheduler=cluster.scheduler_address, runner=runner)
    assert int(marker.read_text()) > 0  # the worker died with a partial ledger written
    assert not outcome.failed and len(outcome.executed) == RUNS
    assert not [p for p in (out / "ledgers").iterdir() if p.name.startswith(".")]
    same_outputs(out, reference)

    # A run that kills every worker it lands on is reported (KilledWorker) and leaves no ledger. It is the only run
    # (a worker's death also counts against the other runs queued on it).
    alone = CONFIG.replace("seeds = 2", "seeds = 1").replace('["relevance", "random"]', '["relevance"]')
    (config_path.parent / "alone.toml").write_text(alone.replace('["T1", "T2"]', '["T1"]'), encoding="utf-8")
    config = load_sweep_config(config_path.parent / "alone.toml")
    out = config_path.parent / "dask-dead"
    victim = "demo__T1__relevance__sentence-document__seed0"
    outcome = run_sweep(
        config, out, backend="dask", scheduler=cluster.scheduler_address, runner=functools.partial(always_die, victim)
    )
    assert list(outcome.failed) == [victim] and "KilledWorker" in outcome.failed[victim]
    assert not (out / "ledgers").exists() or not [p for p in (out / "ledgers").iterdir() if p.suffix == ".jsonl"]
    assert outcome.table.empty


def _dies_on_three(task: int) -> int:
    if task == 3:
        os._exit(9)  # a worker killed mid-run (SIGKILL, the OOM killer)
    return task


@pytest.mark.slow
def test_a_local_worker_that_dies_fails_runs_and_never_hangs_the_sweep():
    from tarsim.sweep.backends import run_joblib

    results: list[int] = []
    failures: list[tuple[int, str]] = []
    run_joblib(list(range(8)), _dies_on_three, 2, results.append, lambda task, why: failures.append((task, why)))
    assert 3 in [task for task, _ in failures]
    assert all("worker process died" in why for _, why in failures)
    assert sorted(results + [task for task, _ in failures]) == list(range(8))  # every run reported once


# ---- the docid list Dask workers map qrels through -------------------------------------------------------------


def _docids_file(config_path: Path) -> Path:
    """Fill the feature cache as a sweep does and return the docid list the workers read."""
    from tarsim.data.digests import collection_digest
    from tarsim.features.cache import resolve_cache_dir
    from tarsim.sweep.docids import docids_path
    from tarsim.sweep.run import prepare_sweep

    prepare_sweep(load_sweep_config(config_path), config_path.parent / "unused")
    path = docids_path(resolve_cache_dir().resolve(), collection_digest(demo_dataset().collection))
    assert path.is_file()
    return path


@pytest.mark.slow
def test_a_damaged_docid_list_is_rebuilt_and_dask_gives_the_same_ledgers(config_path, reference, cluster, capsys):
    """Two docids swapped (other damage: tests/sweep/test_sweep_faults.py): a file of the same length that still parses,
    mapping qrels to the wrong rows."""
    path = _docids_file(config_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["docids"][0], record["docids"][1] = record["docids"][1], record["docids"][0]
    path.write_text(json.dumps(record), encoding="utf-8")
    out = config_path.parent / "dask-swapped"
    address = cluster.scheduler_address
    capsys.readouterr()
    assert main(["sweep", str(config_path), "--backend", "dask", "--scheduler", address, "--out", str(out)]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1 and warned[0].startswith(f"tarsim: warning: cache {path} is unreadable (")
    assert warned[0].endswith("): rebuilding")
    same_outputs(out, reference)


def _damage_then_run(task):
    """A run whose docid list is damaged (cut short) after the sweep verified it."""
    path = Path(task.docids_path)
    text = path.read_bytes()
    if text.endswith(b"]}"):  # not yet cut by an earlier run
        path.write_bytes(text[:-2])
    return execute_run(task)


@pytest.mark.slow
def test_a_docid_list_damaged_mid_sweep_fails_each_run_in_one_line_and_dask_stays_quiet(config_path, capfd):
    pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import this test module
    config = load_sweep_config(config_path)
    out = config_path.parent / "dask-cut"
    outcome = run_sweep(config, out, backend="dask", jobs=2, runner=_damage_then_run, retries=0)
    assert len(outcome.failed) == RUNS and not outcome.executed
    for reason in outcome.failed.values():
        assert "unusable docid list (JSONDecodeError: " in reason and "\n" not in reason
    err = capfd.readouterr().err
    assert "distributed" not in err and "Traceback" not in err, err  # the local cluster's own logs are silenced
