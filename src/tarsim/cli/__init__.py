"""The `tarsim` command: one entry point whose subcommands live in their own modules.

Each subcommand module exposes `register(subparsers)` (adds its parser and sets `handler`) so that the
entry point stays thin and a slow import (Dask, matplotlib) is paid only by the command that needs it.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from tarsim.errors import InputWarning, TarsimError
from tarsim.runtime.signals import Terminated, terminate_on_sigterm
from tarsim.runtime.threads import DEFAULT_THREADS, THREADS_VARIABLE, ThreadsError, checked_threads, process_threads
from tarsim.version import __version__

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    # name: (module, one-line help)
    "evaluate": ("tarsim.cli.evaluate", "evaluate TREC runs against qrels with ranked-list measures"),
    "simulate": ("tarsim.cli.simulate", "simulate a CAL review and compute Recall@E"),
    "metrics": (
        "tarsim.cli.metrics",
        "ASReview Insights' measures (WSS, RRF, ERF, ATD) of ledgers, .asreview and order files",
    ),
    "report": (
        "tarsim.cli.report",
        "recompute Recall@E tables from the ledgers of a simulate output; --html: one page of any study",
    ),
    "sweep": (
        "tarsim.cli.sweep",
        "run a study: topics x policies x strategies x presets x any setting (vary) x seeds (joblib or Dask)",
    ),
    "plot": ("tarsim.cli.plot", "plot recall-effort curves from ledgers"),
    "compare": (
        "tarsim.cli.compare",
        "compare groups of reviews (policies, presets, any setting), per dataset, with paired tests",
    ),
    "stop": ("tarsim.cli.stop", "replay stopping rules on finished ledgers"),
    "retrieve": ("tarsim.cli.retrieve", "BM25 retrieval over a collection, writing a TREC run"),
    "bench": ("tarsim.cli.bench", "run a legal-retrieval benchmark's BM25 baseline and its measure table"),
    "data": ("tarsim.cli.data", "list, fetch and convert datasets"),
    "cache": ("tarsim.cli.cache", "show (info) or empty (clear) the user's feature cache"),
    "list": (
        "tarsim.cli.list",
        "list learners, feature extractors, policies, batch schedules, effort models, oracles, stopping rules and "
        "presets",
    ),
}


def _available_subcommands() -> dict[str, tuple[str, str]]:
    available = {}
    for name, (module, help_text) in SUBCOMMANDS.items():
        if importlib.util.find_spec(module) is not None:
            available[name] = (module, help_text)
    return available


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse with tarsim's one-line errors: the problem and where the usage is, not the whole usage first (a
    subcommand's usage runs to 20 lines, which buried the one that says what was wrong); options are never
    abbreviated."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)  # `--baselin` is a typo, not --baseline: scripts say what they mean
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


THREADS_HELP = (
    f"BLAS/OpenMP threads per process (default: ${THREADS_VARIABLE}, else {DEFAULT_THREADS}: faster for reviews, "
    "far faster on a busy machine; see benchmarks/threads_limit.py)"
)


def _threads(text: str) -> int:
    """argparse type of --threads: a whole number >= 1."""
    try:
        return checked_threads(text)
    except ThreadsError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--threads: ")) from None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only the chosen `command`'s module is imported (the others only list their help).
    `--threads` is taken before the command (`tarsim --threads 2 simulate`) or after it (`tarsim simulate
    --threads 2`)."""
    parser = OneLineErrorParser(
        prog="tarsim", description="Simulate and evaluate high-recall (technology-assisted) review."
    )
    parser.add_argument("--version", action="version", version=f"tarsim {__version__}")
    parser.add_argument("--threads", type=_threads, default=None, metavar="N", help=THREADS_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in _available_subcommands().items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--threads", type=_threads, default=argparse.SUPPRESS, metavar="N", help=THREADS_HELP)
        if name == command:
            importlib.import_module(module).register(sub)
            parser.chosen = sub  # type: ignore[attr-defined]
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Every warning as one line: tarsim's own as they are, a library's (scikit-learn's ConvergenceWarning) with its
    kind, without the source line Python would print under it."""
    if issubclass(category, InputWarning):
        print(f"tarsim: warning: {message}", file=sys.stderr)
    else:
        print(f"tarsim: warning: {category.__name__}: {' '.join(str(message).split())}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's own flush at exit cannot fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (a test's capture): nothing to silence
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; user errors print one line to stderr and return 2, Ctrl-C returns 130, SIGTERM 143 (both after
    the same clean-up: no partial file left, the output lock released)."""
    arguments = [*(sys.argv[1:] if argv is None else argv)]  # not list(): importing tarsim.cli.list shadows it
    closed = [name for name in ("stdout", "stderr") if getattr(sys, name) is None]  # `>&-`: print() tracebacked
    for name in closed:
        setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the process's life
    if "stdout" in closed:
        print("tarsim: warning: standard output is closed: what tarsim prints there is lost", file=sys.stderr)
    command = _command(arguments)
    parser = build_parser(command if command in SUBCOMMANDS else None)
    args, unknown = parser.parse_known_args(arguments)
    if unknown:  # named by the subcommand's parser, whose --help lists what it accepts
        (getattr(parser, "chosen", None) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    warnings.showwarning = _show_warning
    try:
        with (
            process_threads(getattr(args, "threads", None)),
            terminate_on_sigterm(),
        ):  # threads set before numpy or sklearn loads
            status = int(args.handler(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the flush at interpreter exit
        return status
    except BrokenPipeError:  # `tarsim ... | head -1`: the reader has gone; exit quietly as Unix tools do
        _silence_stdout()
        return 141  # 128 + SIGPIPE, what a Unix tool killed by SIGPIPE reports
    except (TarsimError, ThreadsError) as exc:  # ThreadsError: a bad $TARSIM_THREADS
        print(f"tarsim: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the user gave cannot be read or written (not a directory, permission, ...)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tarsim: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("tarsim: terminated", file=sys.stderr)
        return 143  # 128 + SIGTERM, as for a process the signal ended
    except KeyboardInterrupt:
        print("tarsim: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if not caused_by_interrupt(exc):
            raise
        print("tarsim: interrupted", file=sys.stderr)
        return 130


def _command(arguments: Sequence[str]) -> str | None:
    """The subcommand named: the first argument that is neither an option nor the value of a global --threads."""
    skip = False
    for argument in arguments:
        if skip:
            skip = False
        elif argument == "--threads":
            skip = True
        elif not argument.startswith("-"):
            return argument
    return None


def caused_by_interrupt(error: BaseException) -> bool:
    """Whether Ctrl-C is behind this error: interrupted while a C extension initialises, an import reports its own
    error (scipy's `ImportError: initialization failed`, a dataclass's RuntimeError) with the KeyboardInterrupt as its
    cause or context (Ctrl-C during a cold build's scikit-learn import printed a traceback and exit status 1)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def run() -> None:
    """The process's entry point (the `tarsim` script, `python -m tarsim`): main(), then exit with its status.

    The interpreter then ends as Python programs do: non-daemon threads joined, atexit handlers and weakref.finalize
    callbacks run, the standard streams flushed. What main() made is first moved out of the garbage collector's
    sight (gc.freeze): the interpreter's last collection would otherwise walk it all (0.3-0.5 s after a cold
    Reuters-21578 build). Not in main(), which tests and scripts call in their own process.
    """
    try:
        status = main()
    finally:
        gc.freeze()
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
