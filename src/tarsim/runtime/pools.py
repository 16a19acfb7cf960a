"""Local worker processes (joblib's loky backend) that exit with the process that started them.

A parent killed with SIGKILL cannot stop its workers, and loky's idle workers wait minutes before timing out
(busy ones first finish their task), so each worker watches its parent and exits as soon as it is gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

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


def fork_is_safe() -> bool:
    """Forking is safe here: Linux, a main process (not a sweep's worker) and no other Python thread running."""
    import sys

    return sys.platform == "linux" and is_main_process() and threading.active_count() == 1


def forked_worker_start(parent: int, ignore_interrupt: bool) -> None:
    """In a forked worker: exit as soon as `parent` is gone (exit_with_parent); with `ignore_interrupt`, ignore Ctrl-C
    (the terminal sends SIGINT to the whole process group; the parent decides what stops, see stop_pool), else let
    Ctrl-C end the worker quietly (Python's KeyboardInterrupt would print a worker's traceback under the parent's
    one-line `tarsim: interrupted`): at once inside a task, else once the result it is sending is whole
    (_on_interrupt). SIGTERM always ends a worker at once (the default action, not the parent's Terminated, which it
    would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_interrupt else _on_interrupt)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    exit_with_parent(parent)


_IN_TASK = False
_INTERRUPTED = False


def _on_interrupt(signum: int, frame: object) -> None:
    """A forked worker's Ctrl-C: end at once inside a task (interruptible); between tasks, when the next one would
    start or the pool closes. A worker ended while it sends a result leaves half a message in the pool's result pipe,
    and the pool's reader then waits for the rest forever: Ctrl-C during a cold build hung the parent at its pool's
    shutdown in 5 of 24 tries."""
    global _INTERRUPTED
    if _IN_TASK:
        os._exit(1)
    _INTERRUPTED = True


def interruptible(function: Callable, *arguments):
    """function(*arguments) as a forked worker's task that Ctrl-C ends at once (see _on_interrupt)."""
    global _IN_TASK
    if _INTERRUPTED:
        os._exit(1)
    _IN_TASK = True
    try:
        return function(*arguments)
    finally:
        _IN_TASK = False


def forked_pool(workers: int, ignore_interrupt: bool = False) -> ProcessPoolExecutor:
    """`workers` processes forked from this one now (check fork_is_safe first) that exit with it; with
    `ignore_interrupt` they finish their task on Ctrl-C (a sweep's runs), else Ctrl-C stops them at once. They start
    with everything this process imported and holds. A worker that dies breaks the pool (BrokenProcessPool) instead
    of losing its task and leaving the caller waiting forever, as multiprocessing.Pool would. The caller shuts it
    down (forked_workers does for a with-block)."""
    import multiprocessing

    # Python >= 3.12 warns about forking a process with other OS threads; here those are only idle C-library
    # pools (OpenBLAS's, which registers fork handlers). A fork-context pool forks all its workers at its first
    # task, so that task is submitted here, under the filter, and the caller's warning filters stay as they are.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(
            workers, context, initializer=forked_worker_start, initargs=(os.getpid(), ignore_interrupt)
        )
        pool.submit(int)
    return pool


@contextlib.contextmanager
def forked_workers(workers: int, ignore_interrupt: bool = False) -> Iterator[ProcessPoolExecutor]:
    """forked_pool(workers, ignore_interrupt) for a with-block: shut down when the block ends, after its tasks; a
    block left by an exception (Ctrl-C) first drops the tasks not started (stop_pool), and one left by SIGTERM
    (Terminated) ends the workers at once."""
    pool = forked_pool(workers, ignore_interrupt)
    try:
        yield pool
    except Terminated:  # the job is being ended: no waiting for running tasks
        kill_workers(pool)
        raise
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Drop a pool's tasks not started and wait for the running ones (the workers ignore Ctrl-C, so they finish);
    a second Ctrl-C meanwhile kills the workers at once (their unfinished work is lost) and is raised."""
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except KeyboardInterrupt:
        kill_workers(pool)
        raise


def kill_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes now (SIGKILL) and shut it down; its unfinished tasks fail.

    A worker killed while it sends a result leaves half a message in the pool's result pipe, and the pool's reader
    thread waits for the rest forever, so the shutdown never returned (SIGTERM during 16 MB results: 10 of 10 hung).
    Once the workers are gone, this process's own copy of the pipe's write end is closed as well: the reader then
    meets the end of the pipe and the pool reports itself broken. ProcessPoolExecutor offers no public way to do it."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    kill = getattr(pool, "kill_workers", None)  # Python >= 3.14
    if kill is not None:
        kill()
    else:
        for process in processes:
            with contextlib.suppress(OSError, ValueError):
                process.kill()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(timeout=5)
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()
    pool.shutdown(wait=True, cancel_futures=True)


_INHERITED: tuple[Callable, list[tuple]] | None = None
"""The function and argument tuples of the parallel_map under way: its forked workers inherit them, so a task sends
only its index (pickling Reuters-21578's documents to the workers took this process 0.09 s, the workers 0.07 s)."""


def _run_inherited(index: int):
    """In a forked worker: the task at `index` of the parallel_map that forked it."""
    function, argument_lists = _INHERITED
    return interruptible(function, *argument_lists[index])


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
