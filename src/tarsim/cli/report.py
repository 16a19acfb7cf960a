"""`tarsim report OUT`: recompute the per-topic, Recall@E and hours-to-recall tables from the ledgers alone; with
`--html FILE`, one self-contained page of the study (a `simulate` or a `sweep` output, or any ledger folder)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from tarsim.components import validate
from tarsim.errors import InputError
from tarsim.reporting.tables import DEFAULT_EFFORT_MODELS, format_review_tables


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "out", metavar="OUT", help="a `tarsim simulate` output directory (with --html: also a sweep's, or ledgers)"
    )
    parser.add_argument("--effort", action="append", metavar="MODEL", help="effort model (repeatable)")
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall counts relevant documents presented (the paper's, default) or presented and labelled relevant",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="also rewrite OUT/recall_at_effort.csv and OUT/summary.json for these effort models",
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="write one self-contained HTML page (no network needed to view it): configuration, versions, tables "
        "per group, interactive figures and the commands that reproduce it (needs the report extra)",
    )
    parser.add_argument(
        "--stopping",
        action="append",
        default=[],
        metavar="RULE",
        help="with --html: stopping rules of the stopping figure (default: the rules the runs recorded)",
    )
    parser.add_argument(
        "--collection",
        action="append",
        metavar="DIR|FILE",
        help="with --html: collection directory or screening file (needed by target:T stopping rules; repeatable)",
    )
    parser.add_argument(
        "--group-by", metavar="FIELDS", help="with --html: config fields that name a group (default: those that differ)"
    )
    parser.set_defaults(handler=run)


def run_html(args: argparse.Namespace) -> int:
    """`--html FILE`: the study's page from every complete ledger under OUT (a simulate or sweep output)."""
    from tarsim.reporting.html_study import write_study_page

    written = write_study_page(args.out, args.html, args.effort or (), args.collection or (), args.stopping,
                               args.group_by, args.recall)  # fmt: skip
    print(f"{written.runs} run(s), {written.figures} figure(s) written to {written.path}")
    return 0


def run(args: argparse.Namespace) -> int:
    from tarsim.api.review import SimulationResult
    from tarsim.data.output_lock import output_lock, writer_of
    from tarsim.reporting.tables import write_simulation_reports

    if args.html:
        return run_html(args)
    _check_out_folder(Path(args.out))
    effort = tuple(args.effort or recorded_effort_models(Path(args.out)))
    for model in effort:
        validate("effort", model)
    writer = None if args.write else writer_of(args.out)  # a review still running there: say so, not "resume"
    with output_lock(args.out) if args.write else contextlib.nullcontext():  # --write: one writer per output
        result = SimulationResult.from_directory(args.out, effort)
        if not result.ledgers:
            busy = f" yet: it is being written by pid {writer}" if writer else ""
            raise InputError(Path(args.out) / "ledgers", None, f"no complete ledger found{busy}")
        if args.write:
            _check_rewritable(Path(args.out))
            summary, problem = read_summary(Path(args.out))
            if problem is not None:  # rewritten below from the ledgers; only the topics it skipped are lost
                print(f"tarsim: warning: {problem}: the topics it recorded as skipped are not carried over",
                      file=sys.stderr)  # fmt: skip
            skipped = summary.get("skipped", {})
            skipped = skipped if isinstance(skipped, dict) else {}
            write_simulation_reports(Path(args.out), list(result.ledgers.values()), effort, skipped, args.recall)
    if writer is not None:
        print(
            f"tarsim: warning: {args.out} is being written by tarsim process {writer}: the reviews it has not "
            "finished are left out of these tables",
            file=sys.stderr,
        )
    else:
        for ledger in unfinished_ledgers(Path(args.out) / "ledgers"):
            print(
                f"tarsim: warning: {ledger}: a review that did not finish is left out of these tables "
                "(`tarsim simulate --resume` with the same settings finishes it)",
                file=sys.stderr,
            )
    print(format_review_tables(result.ledgers.values(), effort, args.recall))
    return 0


def _check_out_folder(out: Path) -> None:
    """Refuse an OUT that is there but is no folder (a file, a FIFO, a symlink loop or a link to nothing), in one
    line naming it and what it is (a loop gave a traceback, or "File exists" with --write); a missing OUT is left
    to the ledgers' reader to name."""
    from tarsim.data.regular_files import existing_path_problem

    problem = existing_path_problem(out, "folder")
    if problem is not None:
        raise InputError(out, None, f"{problem} (give a `tarsim simulate` output folder)")


def recorded_effort_models(out: Path) -> tuple[str, ...]:
    """The effort models the review printed and wrote (OUT/summary.json: judge alone for a screening file), else
    the defaults."""
    models = read_summary(out)[0].get("effort_models")  # an unreadable summary: the ledgers are what counts
    if not isinstance(models, list) or not all(isinstance(model, str) for model in models):
        return tuple(DEFAULT_EFFORT_MODELS)
    return tuple(models) or tuple(DEFAULT_EFFORT_MODELS)


def _check_rewritable(out: Path) -> None:
    """Refuse --write, before it writes anything, when one of the files it rewrites is a device or a FIFO (atomic_write
    would refuse it halfway, after the files before it were written)."""
    from tarsim.data.atomic import not_replaceable
    from tarsim.reporting.tables import REPORT_FILES

    for name in REPORT_FILES:
        problem = not_replaceable(out / name)
        if problem is not None:
            raise InputError(out / name, None, problem)


def read_summary(out: Path) -> tuple[dict, str | None]:
    """OUT/summary.json as a JSON object, and None; or {} and why it could not be read (missing: no reason). Opened
    as a regular file only: a FIFO or a link to /dev/zero under its name blocked or filled memory."""
    from tarsim.data.regular_files import MISSING, open_regular

    path = out / "summary.json"
    try:
        with open_regular(path) as handle:
            record = json.loads(handle.read(1 << 24).decode("utf-8"))
    except InputError as error:
        return {}, None if error.problem == MISSING else str(error)
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        return {}, f"{path}: not the JSON tarsim writes ({type(error).__name__})"
    if not isinstance(record, dict):
        return {}, f"{path}: not the JSON object tarsim writes"
    return record, None


def unfinished_ledgers(directory: Path) -> list[Path]:
    """The partial ledgers of reviews without a complete ledger (killed, or still running) in a ledgers folder."""
    from tarsim.data.ledger import PARTIAL_FILE

    found = []
    for path in sorted(directory.glob(".*.partial")):
        match = PARTIAL_FILE.fullmatch(path.name)
        if match and not (directory / match["ledger"]).exists():
            found.append(path)
    return found
