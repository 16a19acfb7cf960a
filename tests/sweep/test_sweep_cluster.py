"""Sweep faults: workers die with a killed sweep (joblib and a local Dask cluster), and a real Dask cluster
(`dask scheduler` plus two `dask worker` processes on 127.0.0.1) gives joblib's outputs byte for byte, also after
the sweep is killed and resumed and when two sweeps share the cluster."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import tarsim
from conftest import wait_for
from tarsim.cli import main
from tarsim.data.collection import write_collection
from tarsim.data.qrels import write_qrels
from tarsim.data.topics import write_topics
from tarsim.datasets.synthetic import SyntheticSpec, make_synthetic_dataset

pytestmark = pytest.mark.slow  # a real Dask cluster and forked pools

SRC = str(Path(tarsim.__file__).resolve().parents[1])
ENV = {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
CONFIG = """\
[sweep]
seeds = {seeds}
policies = ["relevance", "random"]

[[collections]]
path = "small"

[review]
until = "exhausted"
"""
RUNS = 3 * 2 * 2  # topics x policies x seeds


def ledgers(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "ledgers").iterdir()) if not p.name.startswith(".")}


def same_outputs(out: Path, reference: Path) -> None:
    assert ledgers(out) == ledgers(reference) and len(ledgers(out)) == RUNS
    for name in ("results.csv", "results.parquet"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@contextlib.contextmanager
def started(command: list[str], cwd: Path, log: Path) -> Iterator[subprocess.Popen]:
    """A subprocess in its own process group, killed with its whole group on the way out."""
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            command, cwd=cwd, env=ENV, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # its own group (start_new_session): only what it started
        process.wait(timeout=10)


def sweep_command(config: Path, out: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "tarsim", "sweep", str(config), "--out", str(out), *options]


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """A directory with a small synthetic collection (200 documents, 3 topics) and sweep configs."""
    root = tmp_path_factory.mktemp("cluster")
    dataset, _ = make_synthetic_dataset(SyntheticSpec(n_documents=200, seed=1))
    (root / "small").mkdir()
    write_collection(root / "small" / "docs.jsonl", dataset.collection)
    write_qrels(root / "small" / "qrels.txt", dataset.qrels)
    write_topics(root / "small" / "topics.tsv", dataset.topics)
    (root / "sweep.toml").write_text(CONFIG.format(seeds=2), encoding="utf-8")
    (root / "long.toml").write_text(CONFIG.format(seeds=50), encoding="utf-8")  # runs for minutes
    one = (
        CONFIG.format(seeds=1)
        .replace('["relevance", "random"]', '"relevance"')
        .replace('"small"', '"small"\ntopics = ["T1"]')
    )
    (root / "one.toml").write_text(one, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def reference(study) -> Path:
    """The sweep run with joblib on one worker (in this process)."""
    out = study / "joblib"
    assert main(["sweep", str(study / "sweep.toml"), "--jobs", "1", "--out", str(out)]) == 0
    return out


# ---- a killed sweep leaves no worker behind ------------------------------------------------------------------


def command_line(process: psutil.Process) -> str:
    """The process's command line, or "" once it has ended (a child that ended but is not yet reaped, too)."""
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def workers_of(sweep: subprocess.Popen, count: int, marker: str, log: Path) -> list[psutil.Process]:
    """The sweep's worker processes (`marker` in their command line), once there are `count` of them."""
    parent = psutil.Process(sweep.pid)

    def busy() -> list[psutil.Process]:
        assert sweep.poll() is None, f"the sweep ended before it could be killed: {log.read_text()}"
        found = [p for p in parent.children(recursive=True) if marker in command_line(p)]
        return found if len(found) >= count else []

    return wait_for(busy, 120, f"{count} worker processes")


@pytest.mark.parametrize(
    ("options", "marker"),
    # joblib's local workers are loky's: a sweep forks only when it runs no thread, and pyarrow (under pandas) runs one
    [
        (["--jobs", "2"], "popen_loky"),
        (["--backend", "dask", "--jobs", "2"], "spawn_main"),
    ],
    ids=["joblib", "dask-local"],
)
def test_kill_9_of_a_sweep_takes_its_workers_with_it(study, tmp_path, options, marker):
    out = tmp_path / "out"
    with started(sweep_command(study / "long.toml", out, *options), study, tmp_path / "log") as sweep:
        workers = workers_of(sweep, 2, marker, tmp_path / "log")
        wait_for(lambda: (out / "ledgers").is_dir() and any((out / "ledgers").iterdir()), 120, "a run to start")
        sweep.send_signal(signal.SIGKILL)
        sweep.wait(timeout=10)
        _, alive = psutil.wait_procs(workers, timeout=5)
        assert not alive, f"workers still running 5 s after kill -9 of the sweep: {[p.pid for p in alive]}"
    assert len(ledgers(out)) < 3 * 2 * 50  # it was killed mid-run
    time.sleep(1)  # multiprocessing's resource tracker removes the local cluster's semaphores, without a warning
    assert "leaked semaphore" not in (tmp_path / "log").read_text()


@pytest.mark.parametrize(
    "options", [["--jobs", "2"], ["--backend", "dask", "--jobs", "2"]], ids=["joblib", "dask-local"]
)
def test_ctrl_c_stops_a_sweep_after_the_runs_in_flight(study, tmp_path, options):
    """Ctrl-C in a terminal sends SIGINT to the sweep and its workers: the sweep stops after the runs in flight (it
    used to run all 300 runs first with forked workers), keeps their ledgers whole and says one line."""
    out = tmp_path / "out"
    with started(sweep_command(study / "long.toml", out, *options), study, tmp_path / "log") as sweep:
        wait_for(lambda: len(ledgers(out)) >= 2 if (out / "ledgers").is_dir() else 0, 120, "two finished runs")
        at_signal = len(ledgers(out))
        os.killpg(sweep.pid, signal.SIGINT)  # its own group (start_new_session), as a terminal's Ctrl-C
        try:
            status = sweep.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the sweep went on 30 s after Ctrl-C: {len(ledgers(out))} of {3 * 2 * 50} runs finished")
    assert status == 130
    said = [line for line in (tmp_path / "log").read_text().splitlines() if not line.startswith("sweep: ")]  # progress
    # the one closing line, no worker's traceback, no dask log (forked workers first say that the sweep is stopping)
    assert said[-1] == "tarsim: interrupted", said
    assert not any("Traceback" in line or "distributed." in line or "Error" in line for line in said), said
    kept = ledgers(out)
    assert at_signal <= len(kept) <= at_signal + 4  # at most the runs in flight (2 workers) finished since
    assert all(b'"type":"end"' in text.splitlines()[-1] for text in kept.values())  # every kept ledger whole
    assert not [p for p in (out / "ledgers").iterdir() if p.name.startswith(".")]  # no partial ledger left


def test_kill_9_during_feature_building_takes_its_workers_with_it(tmp_path):
    """Feature building's worker pool (fork on Linux, else loky): here each worker sleeps a minute on its chunk (three
    jobs: two workers, while this process imports scikit-learn on the third core's share)."""
    code = "import time; from tarsim.runtime.chunks import map_chunks; map_chunks(time.sleep, [60, 60, 60], n_jobs=3)"
    with started([sys.executable, "-c", code], tmp_path, tmp_path / "log") as builder:
        parent = psutil.Process(builder.pid)
        workers = wait_for(lambda: len(parent.children()) >= 2 and parent.children(), 30, "two feature workers")
        builder.send_signal(signal.SIGKILL)
        builder.wait(timeout=10)
        _, alive = psutil.wait_procs(workers, timeout=5)
        assert not alive, f"workers still running 5 s after kill -9: {[p.pid for p in alive]}"


# ---- a real cluster: dask scheduler + 2 dask workers -------------------------------------------------------------


@pytest.fixture(scope="module")
def scheduler(study) -> Iterator[str]:
    """The address of a `dask scheduler` on 127.0.0.1 (a random port, no dashboard) with two `dask worker`s."""
    distributed = pytest.importorskip("distributed")
    file = study / "scheduler.json"
    dask = [sys.executable, "-m"]
    with contextlib.ExitStack() as stack:
        stack.enter_context(
            started(
                [
                    *dask,
                    "distributed.cli.dask_scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(file),
                ],
                study,
                study / "scheduler.log",
            )
        )
        wait_for(lambda: file.exists() and file.stat().st_size, 30, "the scheduler file")
        for n in range(2):
            stack.enter_context(
                started(
                    [
                        *dask,
                        "distributed.cli.dask_worker",
                        "--scheduler-file",
                        str(file),
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                        "--death-timeout",
                        "30",
                        "--name",
                        f"w{n}",
                    ],
                    study,
                    study / f"worker{n}.log",
                )
            )
        with distributed.Client(scheduler_file=str(file), timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            yield client.scheduler.address


def idle(address: str) -> None:
    """Wait until no task is left on the cluster (a killed client's runs are finished or forgotten)."""
    from distributed import Client

    with Client(address, timeout="10s") as client:
        wait_for(lambda: not any(client.processing().values()), 30, "an idle cluster")


def test_a_real_cluster_gives_joblib_outputs(study, reference, scheduler):
    out = study / "dask-real"
    assert (
        main(["sweep", str(study / "sweep.toml"), "--backend", "dask", "--scheduler", scheduler, "--out", str(out)])
        == 0
    )
    same_outputs(out, reference)


def test_killed_then_resumed_on_the_cluster_equals_a_clean_run(study, reference, scheduler, tmp_path, capsys):
    out = tmp_path / "out"
    command = sweep_command(study / "sweep.toml", out, "--backend", "dask", "--scheduler", scheduler)
    with started(command, study, tmp_path / "log") as sweep:
        wait_for(lambda: (out / "ledgers").is_dir() and len(ledgers(out)) >= 2, 60, "two ledgers")
        sweep.send_signal(signal.SIGKILL)
        sweep.wait(timeout=10)
    done = len(ledgers(out))
    assert done < RUNS and not (out / "results.csv").exists()
    assert (
        main(
            [
                "sweep",
                str(study / "sweep.toml"),
                "--backend",
                "dask",
                "--scheduler",
                scheduler,
                "--out",
                str(out),
                "--resume",
            ]
        )
        == 0
    )
    kept = int(capsys.readouterr().out.split(" ran, ")[1].split(" kept")[0])
    assert kept >= done
    idle(scheduler)
    assert not [p.name for p in (out / "ledgers").iterdir() if p.name.startswith(".")]
    same_outputs(out, reference)


def test_two_sweeps_share_the_cluster(study, reference, scheduler, tmp_path):
    """Two sweeps at once on one cluster (the same runs, different --out): each gets its own ledgers."""
    first, second = tmp_path / "first", tmp_path / "second"
    command = sweep_command(study / "sweep.toml", first, "--backend", "dask", "--scheduler", scheduler)
    with started(command, study, tmp_path / "log") as sweep:
        assert (
            main(
                [
                    "sweep",
                    str(study / "sweep.toml"),
                    "--backend",
                    "dask",
                    "--scheduler",
                    scheduler,
                    "--out",
                    str(second),
                ]
            )
            == 0
        )
        assert sweep.wait(timeout=60) == 0, (tmp_path / "log").read_text()
    same_outputs(first, reference)
    same_outputs(second, reference)


def test_a_second_sweep_on_the_same_out_is_refused(study, scheduler, tmp_path, capsys):
    out = tmp_path / "out"
    command = sweep_command(study / "long.toml", out, "--backend", "dask", "--scheduler", scheduler)
    with started(command, study, tmp_path / "log") as first:
        wait_for(lambda: (out / "ledgers").is_dir(), 60, "the first sweep to start")
        # Without a lock this short sweep runs alongside the long one and returns 0.
        code = main(
            ["sweep", str(study / "sweep.toml"), "--backend", "dask", "--scheduler", scheduler, "--out", str(out)]
        )
        first.send_signal(signal.SIGKILL)
    idle(scheduler)
    assert code == 2 and f"is in use by another tarsim process (pid {first.pid})" in capsys.readouterr().err
