"""`tarsim sweep CONFIG.toml`: run a comparison study (every combination one simulation) on joblib or Dask."""

from __future__ import annotations

import argparse
import sys

from tarsim.cli.common import plain_int
from tarsim.cli.progress import TerminalProgress


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG.toml", help="sweep configuration (see docs/sweeps.md)")
    parser.add_argument("--backend", choices=["joblib", "dask"], default="joblib", help="where runs execute")
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 "
        "(--backend dask without it starts a local cluster of --jobs workers)",
    )
    parser.add_argument("--jobs", type=plain_int, default=1, metavar="N", help="local worker processes (default 1)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="run only the runs without a complete ledger (kept ledgers are read whole: an edited one is refused)",
    )
    parser.add_argument("--out", metavar="DIR", help="output directory (default: the config's sweep.out)")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="feature cache (default: $TARSIM_CACHE_DIR, else the user cache dir); Dask workers must see it",
    )
    parser.add_argument(
        "--retries", type=plain_int, default=1, metavar="N", help="Dask: times a failing run is retried (default 1)"
    )
    parser.add_argument(
        "--progress-every",
        type=plain_int,
        default=0,
        metavar="N",
        help="off a terminal, a progress line (runs done / total, elapsed, an estimate of the rest) every N runs "
        "(default: about every tenth of the runs; a terminal shows a bar)",
    )
    parser.add_argument("--dry-run", action="store_true", help="validate and print the plan without running it")
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="after the sweep, its one-page HTML report (as `tarsim report OUT --html FILE` writes it; needs the "
        "report extra)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.data.paths import check_output_path
    from tarsim.errors import ConfigError
    from tarsim.sweep.backends import NOT_STARTED, POOL_STOPPED
    from tarsim.sweep.config import load_sweep_config
    from tarsim.sweep.plan import load_collections, planned_runs
    from tarsim.sweep.run import check_output_folder, run_sweep, sweep_out

    if args.retries < 0:
        raise ConfigError(f"--retries must be >= 0, got {args.retries}")
    if args.progress_every < 0:
        raise ConfigError(f"--progress-every must be >= 0, got {args.progress_every}")
    if args.jobs < 1:  # checked here too, so that --dry-run does not pass a plan the real run refuses
        raise ConfigError(f"--jobs must be >= 1, got {args.jobs}")
    if args.html is not None:  # refused before any run: a missing extra (the path once the output folder is known)
        from tarsim.errors import require

        require("altair", "report", "tarsim sweep --html")
        require("vl_convert", "report", "tarsim sweep --html", "vl-convert-python")
    config = load_sweep_config(args.config)
    given_out = check_output_path(args.out, directory=True) if args.out is not None else None
    if args.html is not None:
        _check_html_path(args.html, sweep_out(config, given_out))
    if args.dry_run:  # refuses what the sweep would refuse before running: no run planned, a folder of other runs
        datasets = load_collections(config)
        runs, skipped = planned_runs(config, datasets)
        out = sweep_out(config, given_out)
        if (out / "ledgers").is_dir():
            check_output_folder(config, out, datasets, runs)
        _print_skipped(skipped)
        finished = _finished_ledgers(out, runs) if args.resume else set()
        for spec in runs:
            print(spec.run_id)  # plain run ids, one per line (scripts read them); the count goes to stderr
        kept = f"; {len(finished)} have a finished ledger in {out}, so about {len(runs) - len(finished)} would run"
        print(f"{len(runs)} run(s) planned{kept if args.resume else ''}", file=sys.stderr)
        if args.html is not None:  # checked above, but a dry run writes nothing: say so rather than nothing
            print(f"--html {args.html}: a dry run writes no page (the path is accepted)", file=sys.stderr)
        return 0
    bar = TerminalProgress("run", "sweep", log_every=args.progress_every)
    try:
        outcome = run_sweep(
            config,
            given_out,
            backend=args.backend,
            jobs=args.jobs,
            scheduler=args.scheduler,
            resume=args.resume,
            retries=args.retries,
            progress=bar.open,
            cache_dir=args.cache_dir,
        )
    finally:
        bar.close()
    _print_skipped(outcome.skipped)
    stopped = {run_id: reason for run_id, reason in outcome.failed.items() if reason in POOL_STOPPED}
    for run_id, reason in outcome.failed.items():
        if run_id not in stopped:
            print(f"tarsim: run {run_id} failed: {reason}", file=sys.stderr)
    if stopped:  # one line for the pool, not one per run it had not finished (most of which never started)
        print(f"tarsim: {_pool_stopped(list(stopped.values()))}", file=sys.stderr)
    not_started = sum(1 for reason in stopped.values() if reason == NOT_STARTED)
    print(
        f"{len(outcome.runs)} run(s): {len(outcome.executed)} ran, {len(outcome.resumed)} kept from an earlier "
        f"sweep, {len(outcome.failed)} failed{f' ({not_started} not started)' if not_started else ''}; ledgers, "
        f"results.parquet and results.csv in {outcome.out}"
    )
    if outcome.stopping is not None:  # [sweep] stopping: the study's summary, its tables and figures
        from tarsim.stopping.aggregate import summary_text

        print(summary_text(outcome.stopping.summary, group_by=outcome.stopping.group_by))
        print(
            f"stopping study: stop_table.csv, stop_summary.csv, stop_tests.csv and figures in {outcome.stopping.folder}"
        )
    _print_summary(outcome)
    if outcome.failed:
        print("tarsim: rerun with --resume to retry the failed runs", file=sys.stderr)
        return 1
    if args.html is not None:
        return _write_report(config, outcome.out, args.html)
    return 0


SWEEP_OUTPUTS = ("ledgers", "results.csv", "results.parquet", "stopping")
"""What a sweep writes in its output folder: never a place for its --html page."""


def _check_html_path(html: str, out) -> None:
    """Refuse, before any run, an --html page that cannot be written: as any output file (check_output_path), except
    that a page inside the sweep's output folder may name folders the sweep creates (OUT, or one below it, made
    when the page is written); the folder itself or one of the sweep's own outputs is refused."""
    from pathlib import Path

    from tarsim.data.paths import check_output_path
    from tarsim.errors import ConfigError

    try:
        path = Path(html).resolve()  # as sweep_out resolves the output folder
    except (RuntimeError, OSError):  # a symlink loop: check_output_path names it
        check_output_path(html, "--html")
        raise ConfigError(f"--html {html}: a symlink loop on its way (it leads back to itself)") from None
    inside = out == path or out in path.parents
    if not inside or path.parent.is_dir():
        check_output_path(html, "--html")
    else:
        check_output_path(path.parent, "--html", directory=True)  # no file or broken link on the way
    if inside and (path == out or path.relative_to(out).parts[0] in SWEEP_OUTPUTS):
        raise ConfigError(f"--html {html}: is the sweep's output folder or one of its outputs; give a page name")


def _finished_ledgers(out, runs) -> set:
    """The planned runs whose ledger in OUT/ledgers ends with an end record (a dry run does not read them whole, nor
    build the headers --resume compares: the real run may still run some of them)."""
    from tarsim.data.ledger import ends_with_end_record
    from tarsim.data.regular_files import is_regular_file

    found = set()
    for spec in runs:
        path = out / "ledgers" / spec.ledger_file
        if is_regular_file(path) and ends_with_end_record(path):
            found.add(spec)
    return found


def _write_report(config, out, html: str) -> int:
    """The sweep's HTML report, as `tarsim report OUT --html FILE --effort M ...` writes it (the page gives that
    command): SweepConfig.report_effort_models and the sweep's collections (for sampled stopping rules)."""
    from pathlib import Path

    from tarsim.reporting.html_study import write_study_page

    Path(html).parent.mkdir(parents=True, exist_ok=True)  # a folder below OUT (checked before the sweep ran)
    collections = [str(entry.path) for entry in config.collections if entry.path is not None]
    models = config.report_effort_models()
    written = write_study_page(str(out), html, models if models != ("judge",) else (), collections)
    print(f"{written.runs} run(s), {written.figures} figure(s) written to {written.path}")
    left = [model for model in config.effort_models if model not in models]
    if left:  # said, not dropped without a word
        flags = " ".join(f"--effort {model}" for model in ("judge", *left))
        print(f"the page draws judgments only (no strategy shows sentences); for {', '.join(left)}: "
              f"tarsim report {out} --html {html} {flags}")  # fmt: skip
    return 0


def _print_summary(outcome) -> None:
    """The sweep's per-group table (per collection when it has several): mean ± sd [95% CI] of WSS@95, Recall@2R+100
    and the effort to 95% recall over its complete runs, as `tarsim compare --group-by collection` prints it."""
    from tarsim.data.ledger import read_ledger
    from tarsim.reporting.compare import with_priors_line
    from tarsim.reporting.study_tables import format_grouped_comparison, grouped_comparison

    done = set(outcome.executed) | set(outcome.resumed)
    paths = [outcome.out / "ledgers" / spec.ledger_file for spec in outcome.runs if spec.run_id in done]
    if not paths:
        return
    ledgers = [read_ledger(path) for path in paths]
    strata = ["collection"] if len({spec.collection for spec in outcome.runs}) > 1 else []
    rows = grouped_comparison(ledgers, "", strata=strata, tests=False)
    note = with_priors_line("effort model judge; recall presented", ledgers, rows)
    print()
    print(format_grouped_comparison(rows, strata, "table", "", note), end="")


def _pool_stopped(reasons: list[str]) -> str:
    """One line for the runs a local worker pool did not finish because one of its processes died."""
    from tarsim.sweep.backends import NOT_FINISHED, NOT_STARTED, WORKER_DIED

    parts = [
        f"{count} {what}"
        for count, what in (
            (reasons.count(WORKER_DIED), "run(s) in progress were stopped"),
            (reasons.count(NOT_STARTED), "run(s) were not started"),
            (reasons.count(NOT_FINISHED), "run(s) did not finish"),
        )
        if count
    ]
    return f"a worker process died (killed, or out of memory) and the worker pool stopped: {' and '.join(parts)}"


def _print_skipped(skipped: dict[str, str]) -> None:
    for topic, reason in skipped.items():
        print(f"tarsim: skipped topic {topic}: {reason}", file=sys.stderr)
