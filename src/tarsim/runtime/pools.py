"""Local worker processes that exit with the process that started them: joblib's loky workers, and
concurrent.futures' ProcessPoolExecutor on workers forked from this process where forking is safe (WorkerPool).

A parent killed with SIGKILL cannot stop its workers, and loky's idle workers wait minutes before timing out
(busy ones first finish their task), so each worker watches its parent and exits as soon as it is gone. Only
documented APIs of the libraries are used: a WorkerPool is stopped by a pipe its workers watch, not from outside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.connection import Connection

from joblib import Parallel
from joblib.parallel import get_active_backend

from tarsim.runtime.signals import Terminated


def exit_with_parent(parent: int, interval: float = 0.2) -> None:
    """In a worker process: exit as soon as process `parent` is gone (checked every `interval` seconds).

    A daemon thread polls the parent pid: portable, and unlike Linux's PR_SET_PDEATHSIG not tied to the thread
    that started the worker. Does nothing in `parent` itself (joblib runs `n_jobs=1` work in the caller).
    """
    if os.getpid() == parent:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)  # no clean-up: nothing of a worker's unfinished run is ever read (hidden partial files)

    threading.Thread(target=watch, name="tarsim-exit-with-parent", daemon=True).start()


def local_parallel(n_jobs: int, **options) -> Parallel:
    """A joblib `Parallel` on loky worker processes that exit with this process (`n_jobs=1`: in this process).

    Inside a joblib worker, joblib's own choice for nested loops (threads, then sequential) is kept.
    """
    backend, _ = get_active_backend()
    if getattr(backend, "nesting_level", 0):
        return Parallel(n_jobs=n_jobs, **options)
    return Parallel(n_jobs=n_jobs, backend="loky", initializer=exit_with_parent, initargs=(os.getpid(),), **options)


def is_main_process() -> bool:
    """This is a main process, not one of a pool's workers (a sweep's runs on other cores are such workers)."""
    import multiprocessing

    return multiprocessing.parent_process() is None and not multiprocessing.current_process().daemon


def os_thread_count() -> int:
    """This process's operating-system threads (Linux: /proc/self/task, proc(5)), C libraries' included (OpenBLAS's
    pool); Python's own threads where the OS does not say."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def fork_is_safe() -> bool:
    """Forking is safe here: Linux, a main process (not a sweep's worker) and no other thread at all, Python's or a
    C library's (os_thread_count). Python >= 3.12 warns when a process with threads forks, since a thread's lock held
    at the fork stays held in the child: tarsim does not fork then (its callers use joblib's loky workers instead)."""
    import sys

    return sys.platform == "linux" and is_main_process() and threading.active_count() == 1 and os_thread_count() == 1


_STOP_CHECK_SECONDS = 0.2
"""How often a worker looks whether its parent is gone (a stop request wakes it at once)."""

_TASK_LOCK = threading.Lock()
"""Held in a worker while it changes or reads _IN_TASK, so that a stop never ends a worker that has just finished its
task and is sending the result back (half a message in the pool's result pipe would leave the pool's reader waiting
for the rest forever)."""

_IN_TASK = False
_STOPPING = False


def _worker_start(parent: int, ignore_interrupt: bool, stop: Connection) -> None:
    """In a WorkerPool's worker: exit as soon as `parent` is gone or `stop` (a pipe's reading end) has data (at once
    inside a task,
    else before the next one); on Ctrl-C, with `ignore_interrupt` go on (the terminal sends SIGINT to the whole
    process group; the parent decides what stops), else stop as for `stop` (Python's KeyboardInterrupt would print
    a worker's traceback under the parent's one-line `tarsim: interrupted`). SIGTERM ends a worker at once (the
    default action, not the parent's Terminated, which it would inherit); the pool itself sends it to the workers of
    a broken pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_interrupt else _on_interrupt)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def watch() -> None:
        while os.getppid() == parent:
            if stop.poll(_STOP_CHECK_SECONDS):  # never read, so every worker sees the parent's stop
                _stop_now()
                return
        os._exit(1)  # the parent is gone: nothing of an unfinished task is ever read (hidden partial files)

    threading.Thread(target=watch, name="tarsim-worker-watch", daemon=True).start()


def _stop_now() -> None:
    """End this worker at once if it is inside a task, else before its next task starts."""
    global _STOPPING
    with _TASK_LOCK:
        _STOPPING = True
        if _IN_TASK:
            os._exit(1)


def _on_interrupt(signum: int, frame: object) -> None:
    """A worker's Ctrl-C (in its main thread, between two bytecodes): _stop_now, without the lock, which only the
    main thread's own task wrapper and the watching thread take, never both at once in one thread."""
    global _STOPPING
    _STOPPING = True
    if _IN_TASK:
        os._exit(1)


def _run_task(function: Callable, arguments: tuple, keywords: dict):
    """function(*arguments, **keywords) as a worker's task that a stop (or Ctrl-C) ends at once."""
    global _IN_TASK
    with _TASK_LOCK:
        if _STOPPING:
            os._exit(1)
        _IN_TASK = True
    try:
        return function(*arguments, **keywords)
    finally:
        with _TASK_LOCK:
            _IN_TASK = False


class WorkerPool(ProcessPoolExecutor):
    """concurrent.futures' ProcessPoolExecutor on `workers` processes forked from this one at once (check
    fork_is_safe first), that exit with it and that stop() ends at once; with `ignore_interrupt` they finish their
    task on Ctrl-C (a sweep's runs), else Ctrl-C ends them too. They start with everything this process imported and
    holds. A worker that dies breaks the pool (BrokenProcessPool) instead of losing its task."""

    def __init__(self, workers: int, ignore_interrupt: bool = False) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        # A pipe, not an Event: a worker ended at once could die holding an Event's lock, and stop() would then wait
        # for it forever; a pipe that nobody reads has no lock, and each worker sees its data.
        stop_reader, self.stop_writer = context.Pipe(duplex=False)
        super().__init__(
            workers,
            context,
            initializer=_worker_start,
            initargs=(os.getpid(), ignore_interrupt, stop_reader),
        )
        # A fork-context pool forks all its workers at its first task, before it starts its own threads: do it now,
        # while this process has no other thread (the caller may start some next, such as a slow import's).
        self.submit(int)

    def submit(self, fn: Callable, /, *args, **kwargs) -> Future:
        """fn(*args, **kwargs) on a worker, as a task that stop() ends at once."""
        return super().submit(_run_task, fn, args, kwargs)

    def stop(self) -> None:
        """End the workers now: at once inside a task, else once the result being sent is whole; drop the tasks not
        started and shut the pool down (its unfinished tasks fail with BrokenProcessPool). Workers are asked to stop,
        not killed from outside: one killed while it sent a result left half a message in the pool's result pipe
        that the pool's reader waited for forever (SIGTERM during 16 MB results: 10 of 10 hung)."""
        with contextlib.suppress(OSError):  # stopped before
            self.stop_writer.send_bytes(b"stop")
        self.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def forked_workers(workers: int, ignore_interrupt: bool = False) -> Iterator[WorkerPool]:
    """WorkerPool(workers, ignore_interrupt) for a with-block: shut down when the block ends, after its tasks; a
    block left by SIGTERM (Terminated) ends the workers at once, one left by Ctrl-C or an error drops the tasks not
    started and waits for the running ones if the workers ignore Ctrl-C, else ends them at once (stop_pool)."""
    pool = WorkerPool(workers, ignore_interrupt)
    try:
        yield pool
    except Terminated:  # the job is being ended: no waiting for running tasks
        pool.stop()
        raise
    except BaseException:
        stop_pool(pool, wait_for_running=ignore_interrupt)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: WorkerPool, wait_for_running: bool = True) -> None:
    """Drop a pool's tasks not started and, with `wait_for_running`, wait for the running ones (else end them); a
    second Ctrl-C meanwhile ends the workers at once (their unfinished work is lost) and is raised."""
    try:
        if wait_for_running:
            pool.shutdown(wait=True, cancel_futures=True)
        else:
            pool.stop()
    except KeyboardInterrupt:
        pool.stop()
        raise


_INHERITED: tuple[Callable, list[tuple]] | None = None
"""The function and argument tuples of the parallel_map under way: its forked workers inherit them, so a task sends
only its index (pickling Reuters-21578's documents to the workers took this process 0.09 s, the workers 0.07 s)."""


def _run_inherited(index: int):
    """In a forked worker: the task at `index` of the parallel_map that forked it."""
    function, argument_lists = _INHERITED
    return function(*argument_lists[index])


def parallel_map(
    function, argument_lists: list[tuple], jobs: int, fork: bool | None = None, while_waiting: Callable | None = None
) -> list:
    """function(*arguments) for each tuple, results in order, on up to `jobs` local processes: forked from this
    one when `fork` (default: fork_is_safe()), else joblib's loky workers; in this process for one tuple or job.
    Forked workers inherit the arguments (only results travel back).

    `while_waiting()` is called once, in this process, while forked workers run (otherwise before the work): the
    place for what this process needs next, such as a slow import, so that it overlaps the workers' work. It gets a
    core of its own: one worker fewer is forked, and this process then runs the tasks no worker has started yet
    (steal_unstarted), instead of a worker slowing it down on its core."""
    global _INHERITED
    if jobs <= 1 or len(argument_lists) <= 1:
        if while_waiting is not None:
            while_waiting()
        return [function(*arguments) for arguments in argument_lists]
    workers = min(jobs, len(argument_lists))
    if fork_is_safe() if fork is None else fork:
        outer, _INHERITED = _INHERITED, (function, argument_lists)  # set before the fork: the workers see it now
        try:
            with forked_workers(workers if while_waiting is None else max(workers - 1, 1)) as pool:
                futures = [pool.submit(_run_inherited, index) for index in range(len(argument_lists))]
                if while_waiting is None:
                    return [future.result() for future in futures]
                while_waiting()
                return steal_unstarted(function, argument_lists, futures)
        finally:
            _INHERITED = outer  # a parallel_map inside another's task leaves the outer one's tasks in place
    from joblib import delayed

    if while_waiting is not None:
        while_waiting()
    return local_parallel(workers)(delayed(function)(*arguments) for arguments in argument_lists)


def steal_unstarted(function: Callable, argument_lists: list[tuple], futures: list[Future]) -> list:
    """The results of `futures` (one per argument tuple, submitted in order), running in this process, from the last
    one back, each task no worker has started (a pool's workers take tasks in order, so the first one that cannot be
    cancelled ends the stealing): this process works too once its own business is done, instead of waiting."""
    stolen: dict[int, object] = {}
    for index in range(len(futures) - 1, -1, -1):
        if not futures[index].cancel():
            break
        stolen[index] = function(*argument_lists[index])
    return [stolen[index] if index in stolen else future.result() for index, future in enumerate(futures)]
