"""Where runs execute: joblib (local processes) or a Dask distributed cluster.

Both report each run as it finishes (result or failure) through callbacks, in completion order; the sweep
orders everything it writes by the plan, so outputs do not depend on the backend or the worker count.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence

from tarsim.errors import ConfigError

BACKENDS = ("joblib", "dask")

Runner = Callable[[object], object]
OnResult = Callable[[object], None]
OnFailure = Callable[[object, str], None]


def _guarded(runner: Runner, task) -> tuple[bool, object]:
    """Run a task; an exception becomes a reported failure instead of stopping the other runs."""
    try:
        return True, runner(task)
    except Exception as exc:  # a failed run is reported, the sweep goes on
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
        return False, (task, f"{type(exc).__name__}: {exc}{where}")


def exit_with_parent(parent: int, interval: float = 0.2) -> None:
    """In a worker process: exit as soon as process `parent` is gone, since a parent killed with SIGKILL cannot
    stop its workers (loky's own check only runs between tasks, so they would finish a long run first).

    A daemon thread polls the parent pid (portable, and not tied to the spawning thread as PR_SET_PDEATHSIG is).
    Does nothing in the parent itself, so `--jobs 1` runs are unaffected.
    """
    if os.getpid() == parent:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)  # no cleanup: the parent is gone, and a hidden .partial ledger never counts

    threading.Thread(target=watch, name="tarsim-exit-with-parent", daemon=True).start()


def run_joblib(tasks: Sequence, runner: Runner, jobs: int, on_result: OnResult, on_failure: OnFailure) -> None:
    """Run tasks on `jobs` local worker processes (1: in this process), reporting each as it finishes."""
    from joblib import Parallel, delayed

    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")
    if not tasks:
        return
    if jobs == 1:
        parallel = Parallel(n_jobs=1, return_as="generator_unordered")
    else:
        parallel = Parallel(
            n_jobs=jobs,
            return_as="generator_unordered",
            backend="loky",
            initializer=exit_with_parent,
            initargs=(os.getpid(),),
        )
    for ok, value in parallel(delayed(_guarded)(runner, task) for task in tasks):
        if ok:
            on_result(value)
        else:
            on_failure(*value)


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator:
    """A client of the cluster at `scheduler`, or (None) of a local cluster with `workers` processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--backend dask needs dask[distributed] (pip install 'dask[distributed]')") from None
    if scheduler is None:
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConfigError(f"--scheduler {scheduler}: cannot connect to a Dask scheduler ({exc})") from None
    with client:
        yield client


def run_dask(
    tasks: Sequence,
    runner: Runner,
    client,
    on_result: OnResult,
    on_failure: OnFailure,
    retries: int = 1,
) -> None:
    """Submit every task to a Dask cluster; a run whose worker dies is rescheduled by the scheduler (up to its
    allowed-failures), a run that raises is retried `retries` times, and what still fails is reported."""
    from distributed import as_completed

    if not tasks:
        return
    futures = {}
    for task in tasks:
        where = hashlib.sha256(task.ledger_path.encode()).hexdigest()[:12]  # two sweeps may share a scheduler
        key = f"tarsim-run-{task.spec.run_id}-{where}"
        future = client.submit(runner, task, key=key, retries=retries, pure=False)
        futures[future.key] = (future, task)
    for future in as_completed([f for f, _ in futures.values()]):
        task = futures[future.key][1]
        if future.status == "finished":
            on_result(future.result())
        else:
            exc = future.exception()
            on_failure(task, f"{type(exc).__name__}: {exc}")
        future.release()
