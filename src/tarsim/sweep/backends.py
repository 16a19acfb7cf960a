"""Where runs execute: joblib (local processes) or a Dask distributed cluster.

Both report each run as it finishes (result or failure) through callbacks, in completion order; the sweep
orders everything it writes by the plan, so outputs do not depend on the backend or the worker count.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence

from tarsim.errors import ConfigError, TarsimError, require
from tarsim.runtime.pools import fork_is_safe, forked_workers, local_parallel
from tarsim.runtime.signals import Terminated

__all__ = ["BACKENDS", "POOL_STOPPED", "dask_client", "run_dask", "run_joblib"]

BACKENDS = ("joblib", "dask")

Runner = Callable[[object], object]
OnResult = Callable[[object], None]
OnFailure = Callable[[object, str], None]


def _guarded(runner: Runner, task) -> tuple[bool, object]:
    """Run a task; an exception becomes a reported failure instead of stopping the other runs."""
    try:
        return True, runner(task)
    except Exception as exc:  # a failed run is reported, the sweep goes on
        last = traceback.extract_tb(exc.__traceback__)[-1:] if not isinstance(exc, TarsimError) else []
        where = f" ({last[0].filename}:{last[0].lineno})" if last else ""  # tarsim's own errors say what and where
        return False, (task, f"{type(exc).__name__}: {exc}{where}")


def run_joblib(tasks: Sequence, runner: Runner, jobs: int, on_result: OnResult, on_failure: OnFailure) -> None:
    """Run tasks on `jobs` local worker processes (1: in this process), reporting each as it finishes; the workers
    exit with this process, also when it is killed with SIGKILL."""
    from joblib import delayed

    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")
    if not tasks:
        return
    if jobs > 1 and fork_is_safe():
        import tarsim.learners.estimators  # noqa: F401  (before forking: once here, not in every worker)

        if fork_is_safe():  # still no thread after the import (else forking would copy a thread's held locks)
            _run_forked(tasks, runner, jobs, on_result, on_failure)
            return
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    parallel = local_parallel(jobs, return_as="generator_unordered")
    reported: set[int] = set()
    try:
        for index, (ok, value) in parallel(delayed(_numbered)(runner, task, i) for i, task in enumerate(tasks)):
            reported.add(index)
            if ok:
                on_result(value)
            else:
                on_failure(*value)
    except TerminatedWorkerError:  # loky does not say which runs had started: each is "not finished"
        for index, task in enumerate(tasks):
            if index not in reported:
                on_failure(task, NOT_FINISHED)
    except KeyboardInterrupt:  # joblib ends loky's workers at once: nothing is waited for, and that is said
        print(loky_stopping_notice(len(tasks) - len(reported), len(tasks)), file=sys.stderr, flush=True)
        raise


def loky_stopping_notice(unfinished: int, total: int) -> str:
    """What a sweep on loky's workers says on Ctrl-C: the runs in progress end now (loky's pool is stopped at once,
    unlike forked workers, which finish them: stopping_notice), and how many runs are not finished."""
    return (
        f"tarsim: stopping: the runs in progress end now (their partial ledgers are removed); {unfinished} of {total} "
        "runs not finished, the finished runs' ledgers are kept"
    )


WORKER_DIED = "a worker process died (killed, or out of memory) while this run was in progress"
"""The failure of the runs a local worker pool was running when one of its processes died (that process's run, and
the others, which the broken pool stopped)."""
NOT_STARTED = "not started: a worker process died (killed, or out of memory) and the worker pool stopped"
"""The failure of the runs a local worker pool had not started when one of its processes died."""
NOT_FINISHED = "not finished: a worker process died (killed, or out of memory) and the worker pool stopped"
"""The failure of the runs a loky pool had not finished when one of its processes died (started or not: loky does
not say)."""
POOL_STOPPED = (WORKER_DIED, NOT_STARTED, NOT_FINISHED)
"""The failures of one broken local pool: the command reports them in one line, not one per run."""


def _numbered(runner: Runner, task, index: int) -> tuple[int, tuple[bool, object]]:
    return index, _guarded(runner, task)


def _run_forked(tasks: Sequence, runner: Runner, jobs: int, on_result: OnResult, on_failure: OnFailure) -> None:
    """Local workers forked from this process (Linux): they start at once with scikit-learn imported and the
    sweep's features in memory, where fresh loky workers each import everything and load every collection.

    Runs are handed out one per free worker, so Ctrl-C (KeyboardInterrupt here; the workers ignore SIGINT) stops
    the sweep after the runs in flight, whose ledgers are kept (tarsim.runtime.pools.forked_workers); it says so at
    once, with how many runs it waits for (stopping_notice), and a second Ctrl-C ends them now (their partial
    ledgers are removed: a ledger that exists is still complete). A worker that
    dies (killed, out of memory) breaks the pool: the runs in progress fail (WORKER_DIED) and the runs not yet
    handed out are reported as not started (NOT_STARTED); the finished ones stand.
    """
    import tarsim.learners.estimators  # noqa: F401  (scikit-learn imported once, here, not in every worker)

    waiting = iter(tasks)
    running: dict = {}
    with forked_workers(jobs, ignore_interrupt=True) as pool:  # runs in flight finish, so their ledgers are whole
        try:
            _hand_out(pool, runner, waiting, running, jobs, on_result, on_failure)
        except Terminated:  # SIGTERM: the workers are ended at once, nothing to wait for
            raise
        except KeyboardInterrupt:  # Ctrl-C: said at once, before the wait for the runs in flight (forked_workers)
            announce_stopping(len(running), len(list(waiting)))
            raise


def stopping_notice(running: int, not_started: int) -> str:
    """What a sweep says at once on Ctrl-C: that it stops, how many runs it waits for, and how to end them now."""
    runs = lambda n: f"{n} run{'' if n == 1 else 's'}"  # noqa: E731
    left = f"; {runs(not_started)} not started" if not_started else ""
    return (
        f"tarsim: stopping: waiting for the {runs(running)} in progress to finish (their ledgers are kept){left}; "
        "press Ctrl-C again to end them now"
    )


def announce_stopping(running: int, not_started: int) -> None:
    """Print stopping_notice on stderr when runs are in progress (with none, the sweep ends at once: nothing to say)."""
    if running:
        print(stopping_notice(running, not_started), file=sys.stderr, flush=True)


def _hand_out(
    pool, runner: Runner, waiting: Iterator, running: dict, jobs: int, on_result: OnResult, on_failure: OnFailure
) -> None:
    """Hand runs out one per free worker and report each as it finishes, until every run is done; `running` holds
    the runs in flight (future -> task) at every moment, so Ctrl-C can say how many it waits for."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    while True:
        for task in itertools.islice(waiting, jobs - len(running)):
            try:
                running[pool.submit(_guarded, runner, task)] = task
            except BrokenProcessPool:  # a worker died: the pool takes no more runs
                for lost in (task, *waiting):
                    on_failure(lost, NOT_STARTED)
                break
        if not running:
            return
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            task = running.pop(future)
            try:
                ok, value = future.result()
            except BrokenProcessPool:
                on_failure(task, WORKER_DIED)
                continue
            if ok:
                on_result(value)
            else:
                on_failure(*value)


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator:
    """A client of the cluster at `scheduler`, or (None) of a local cluster with `workers` processes."""
    require("distributed", "dask", "tarsim sweep --backend dask", package="dask[distributed]")
    from distributed import Client, LocalCluster

    if scheduler is None:
        from distributed.utils import silence_logging_cmgr

        _quiet_resource_tracker()

        # Runs that fail are tarsim's one line each (run_dask), an interrupted sweep its one `tarsim: interrupted`:
        # the local cluster's own logs (tracebacks of failed tasks, workers closing, dask's clean-up on Ctrl-C)
        # are silenced, here and in its worker processes, which ignore Ctrl-C (tarsim.sweep.dask_worker).
        with (
            silence_logging_cmgr(logging.CRITICAL),
            silence_logging_cmgr(logging.CRITICAL, root="tornado"),
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP server: not 8787 (may be taken)
                silence_logs=logging.CRITICAL,
                preload=["tarsim.sweep.dask_worker"],
            ) as cluster,
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


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (unless it runs) without its leak warnings: after `kill -9` of a sweep
    it removes the local cluster's semaphores, which is its job, and would say so in a Python warning."""
    from multiprocessing import resource_tracker

    option = "ignore::UserWarning:multiprocessing.resource_tracker"  # the tracker takes this process's -W options
    sys.warnoptions.append(option)
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(option)


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
