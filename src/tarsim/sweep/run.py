"""Running a sweep: validate and plan everything, build each collection's features once, run what is missing on
the chosen backend, then write the tidy table from the complete ledgers.

Outputs: OUT/ledgers/<run-id>.jsonl (one per run; written to a hidden .partial file and renamed when complete),
OUT/results.parquet and OUT/results.csv. Features and docids of each collection live in the user's feature cache
(tarsim.features.cache.resolve_cache_dir: --cache-dir, $TARSIM_CACHE_DIR or platformdirs' user cache dir), shared by all
runs, sweeps and simulations.
The whole sweep holds the output lock OUT/.tarsim.lock (tarsim.data.output_lock): one writer per output folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from joblib import delayed

from tarsim.config.review import ReviewConfig, normalise_header
from tarsim.data.dataset import Dataset
from tarsim.data.digests import collection_digest
from tarsim.data.ledger import encode, ends_with_end_record, read_ledger, remove_partial_files
from tarsim.data.output_lock import writing_to
from tarsim.data.regular_files import open_regular
from tarsim.errors import ConfigError, InputError, require
from tarsim.features.cache import resolve_cache_dir
from tarsim.features.review import review_cache_path, review_features
from tarsim.runtime.pools import fork_is_safe, local_parallel, parallel_map
from tarsim.simulator.run import check_judged_grades, ledger_header, scores_kept, topic_grades
from tarsim.sweep.backends import BACKENDS, dask_client, run_dask, run_joblib
from tarsim.sweep.config import SweepConfig
from tarsim.sweep.docids import write_docids
from tarsim.sweep.folder import check_no_foreign_ledgers, check_same_runs, remove_results_tables
from tarsim.sweep.plan import RunSpec, load_collections, planned_runs
from tarsim.sweep.tables import results_frame, run_rows, write_results
from tarsim.sweep.worker import RunResult, RunTask, execute_run, remember


@dataclass
class SweepOutcome:
    """What a sweep did: the planned runs, which ran now, which were kept (resume), failures, skipped topics."""

    out: Path
    runs: list[RunSpec]
    executed: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    table: pd.DataFrame | None = None
    stopping: object | None = None  # the stopping study (tarsim.sweep.stopping_study.StoppingStudy), with rules


@dataclass
class PreparedSweep:
    """The validated plan with one task per run and the loaded collections."""

    config: SweepConfig
    out: Path
    runs: list[RunSpec]
    tasks: list[RunTask]
    datasets: dict[str, Dataset]
    skipped: dict[str, str]


def run_header(dataset: Dataset, spec: RunSpec, config, digest: str, base_seed: int) -> dict:
    """The ledger header of a run: what `tarsim simulate` records, plus the run's place in the sweep."""
    judged = dataset.qrels.get(spec.topic, {})
    relevant = sum(1 for d, g in judged.items() if g > 0 and d in dataset.collection)
    return {
        **ledger_header(dataset, spec.topic, config, digest, relevant),
        "sweep": {
            "run_id": spec.run_id,
            "collection": spec.collection,
            **({} if spec.preset is None else {"preset": spec.preset}),
            **({"vary": dict(spec.vary)} if spec.vary else {}),  # [sweep] vary: the run's varied settings
            "policy": spec.policy,
            "strategy": spec.strategy,
            "seed": spec.seed,
            "base_seed": base_seed,
            **({} if spec.prior_seed is None else {"prior_seed": spec.prior_seed}),
        },
    }


def sweep_out(config: SweepConfig, out: Path | None = None) -> Path:
    """The sweep's output folder: `out`, else the config's sweep.out, else CONFIG-NAME-out beside the config."""
    return Path(out or config.out or config.source.with_suffix("").name + "-out").resolve()


def prepare_sweep(
    config: SweepConfig, out: Path | None = None, jobs: int = 1, cache_dir: Path | None = None
) -> PreparedSweep:
    """Load every collection, expand the plan, refuse an output folder holding other runs, and build (or find
    cached) features once per collection."""
    out = sweep_out(config, out)
    datasets = load_collections(config)
    runs, skipped = planned_runs(config, datasets)
    used = {name: dataset for name, dataset in datasets.items() if any(run.collection == name for run in runs)}
    digests = {name: collection_digest(dataset.collection) for name, dataset in used.items()}
    planned = check_output_folder(config, out, datasets, runs, digests)
    cache = resolve_cache_dir(cache_dir).resolve()
    docids_paths = {  # verified, rewritten if damaged; first, so that an unwritable cache is refused before any build
        name: write_docids(cache, dataset.collection.docids, digests[name]) for name, dataset in used.items()
    }
    # one feature matrix per collection and extractor: swept presets (or a varied extractor) may read a collection
    # with different ones
    needs = {(name, *variant): (config.extractor(name, *variant), config.feature_settings(name, *variant))
             for name in used for variant in config.variants()}  # fmt: skip
    if not fork_is_safe():  # else each collection is built below, one after another, on all cores (forked workers)
        build_feature_caches([(used[key[0]].collection, *made) for key, made in needs.items()], cache, jobs)
    features_paths: dict[tuple, str] = {}
    for (name, *variant), (extractor, settings) in needs.items():
        dataset = used[name]
        path = str(review_cache_path(dataset.collection, cache, extractor, settings))
        if path not in features_paths.values():  # built (or found) once, whichever variants share it
            features = review_features(dataset.collection, cache, extractor, settings)
            remember(path, str(docids_paths[name]), features, list(dataset.collection.docids))
        features_paths[(name, *variant)] = path
    tasks = [
        RunTask(
            spec=spec,
            config=review,
            query=datasets[spec.collection].topics[spec.topic],
            judged=dict(datasets[spec.collection].qrels.get(spec.topic, {})),
            header=header,
            features_path=features_paths[spec.collection, spec.preset, spec.vary],
            docids_path=str(docids_paths[spec.collection]),
            ledger_path=str(out / "ledgers" / spec.ledger_file),
            unlabelled_rows=datasets[spec.collection].unlabelled_rows,
        )
        for spec, review, header in planned
    ]
    return PreparedSweep(config, out, runs, tasks, datasets, skipped)


def check_output_folder(
    config: SweepConfig,
    out: Path,
    datasets: dict[str, Dataset],
    runs: Sequence[RunSpec],
    digests: dict[str, str] | None = None,
) -> list[tuple[RunSpec, ReviewConfig, dict]]:
    """Each run with its configuration and ledger header, after refusing an output folder that holds ledgers of
    other runs, or of these runs written with another header (tarsim.sweep.folder). `digests`: each used
    collection's digest, computed here when not given."""
    check_no_foreign_ledgers(out / "ledgers", {out / "ledgers" / spec.ledger_file for spec in runs})
    if digests is None:
        names = {spec.collection for spec in runs}
        digests = {name: collection_digest(datasets[name].collection) for name in names}
    planned: list[tuple[RunSpec, ReviewConfig, dict]] = []
    for spec in runs:
        dataset = datasets[spec.collection]
        query = dataset.topics[spec.topic]
        review = config.review_config(
            spec.policy,
            spec.strategy,
            spec.derived_seed,
            spec.prior_seed,
            query,
            spec.collection,
            spec.preset,
            spec.vary,
        )
        planned.append((spec, review, run_header(dataset, spec, review, digests[spec.collection], config.base_seed)))
    check_same_runs(out, [(out / "ledgers" / spec.ledger_file, header) for spec, _, header in planned])
    return planned


def build_feature_caches(builds: Sequence[tuple], cache: Path, jobs: int) -> None:
    """Fill the feature cache of every (collection, extractor, settings), `jobs` at a time (each built only once)."""
    missing = [(c, e, s) for c, e, s in builds if not review_cache_path(c, cache, e, s).exists()]
    if jobs > 1 and len(missing) > 1:
        build = delayed(review_features)
        local_parallel(min(jobs, len(missing)))(build(c, cache, e, s) for c, e, s in missing)


def is_finished(path: Path, header: dict) -> bool:
    """A complete ledger of exactly this run: same header (configuration, inputs, seed) and an end record (read from
    the end of the file, not through every judgment)."""
    try:  # opened as a regular file only: a FIFO at a run's name is no finished run, and must not block
        with open_regular(path) as handle:
            head = json.loads(handle.readline().decode("utf-8"))
    except (InputError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    if not isinstance(head, dict):
        return False
    recorded = normalise_header({k: v for k, v in head.items() if k not in ("type", "format")})
    return encode(recorded) == encode(normalise_header(header)) and ends_with_end_record(path)


def kept_whole(task: RunTask, datasets: dict[str, Dataset]) -> bool:
    """Whether --resume may keep a finished ledger, read whole as `tarsim simulate --resume` reads it: a ledger whose
    lines no longer match its end record's digests, or whose judgments disagree with the qrels, is refused in one
    line naming it (InputError: it was edited or damaged after it was written, and would otherwise be counted as
    kept, then refused by the table); one whose score log is not whole runs again (False)."""
    path = Path(task.ledger_path)
    try:
        ledger = read_ledger(path)
        if not scores_kept(ledger, path):
            return False
        docids = datasets[task.spec.collection].collection.docids
        position = {docid: row for row, docid in enumerate(docids)}
        check_judged_grades(ledger, topic_grades(task.judged, position, len(docids)), position, path)
    except InputError as exc:
        raise InputError(
            exc.path, exc.line, f"{exc.problem}; --resume keeps only whole ledgers: delete it to run it again"
        ) from None
    return True


def run_sweep(
    config: SweepConfig,
    out: Path | None = None,
    *,
    backend: str = "joblib",
    jobs: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    retries: int = 1,
    runner: Callable[[RunTask], RunResult] = execute_run,
    progress: Callable[[int, int], Callable[[], None] | None] | None = None,
    cache_dir: Path | None = None,
) -> SweepOutcome:
    """Run every planned run that is missing (all of them without `resume`) and write the results table.

    Features come from `cache_dir`, else the user's feature cache (tarsim.features.cache.resolve_cache_dir).

    `progress(total, already_done)` may return a callable that is called once per finished run.
    """
    if backend not in BACKENDS:
        raise ConfigError(f"--backend {backend!r} unknown; accepted: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise ConfigError("--scheduler needs --backend dask")
    if backend == "dask":  # said before the output folder is made
        require("distributed", "dask", "tarsim sweep --backend dask", package="dask[distributed]")
    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")
    target = sweep_out(config, out)
    with writing_to(target):  # one writer per output folder, for the whole sweep, a killed sweep's partial files gone
        try:
            outcome = _run_locked(
                config, target, backend, jobs, scheduler, resume, retries, runner, progress, cache_dir
            )
        finally:  # left by workers killed mid-run (their runs were retried) or by an interrupted sweep
            remove_partial_files(target / "ledgers")
    return outcome


def _run_locked(
    config: SweepConfig,
    out: Path,
    backend: str,
    jobs: int,
    scheduler: str | None,
    resume: bool,
    retries: int,
    runner: Callable[[RunTask], RunResult],
    progress: Callable[[int, int], Callable[[], None] | None] | None,
    cache_dir: Path | None = None,
) -> SweepOutcome:
    prepared = prepare_sweep(config, out, jobs, cache_dir)
    outcome = SweepOutcome(prepared.out, prepared.runs, skipped=prepared.skipped)
    pending: list[RunTask] = []
    for task in prepared.tasks:
        if resume and is_finished(Path(task.ledger_path), task.header) and kept_whole(task, prepared.datasets):
            outcome.resumed.append(task.spec.run_id)
        else:
            pending.append(task)
    remove_results_tables(out)  # rewritten below from every ledger; never left beside ledgers they do not describe
    tick = progress(len(prepared.tasks), len(outcome.resumed)) if progress else None

    def finished(result: RunResult) -> None:
        outcome.executed.append(result.run_id)
        if tick:
            tick()

    def failed(task: RunTask, reason: str) -> None:
        outcome.failed[task.spec.run_id] = reason
        if tick:
            tick()

    if backend == "joblib":
        run_joblib(pending, runner, jobs, finished, failed)
    elif pending:
        with dask_client(scheduler, jobs) as client:
            run_dask(pending, runner, client, finished, failed, retries=retries)
    outcome.table = write_table(prepared, outcome.failed, jobs if backend == "joblib" else 1)
    from tarsim.sweep.stopping_study import write_stopping_study

    outcome.stopping = write_stopping_study(prepared, outcome.failed, jobs if backend == "joblib" else 1)
    return outcome


def _measure_runs(tasks: Sequence[RunTask], config: SweepConfig, docids: Sequence[str], qrels: dict) -> list[dict]:
    """Tidy rows of the complete ledgers among `tasks` (all of one collection), in task order."""
    rows: list[dict] = []
    for task in tasks:
        ledger = read_ledger(Path(task.ledger_path))
        if not ledger.complete:  # cannot happen (ledgers are renamed into place when complete); never count one
            continue
        rows.extend(
            run_rows(
                ledger,
                task.spec,
                config.effort_models,
                config.stopping,
                config.recall_target,
                docids=docids,
                qrels=qrels,
            )
        )
    return rows


def write_table(prepared: PreparedSweep, failed: dict[str, str] | Sequence[str] = (), jobs: int = 1) -> pd.DataFrame:
    """Measure every complete ledger of the plan (in plan order, `jobs` chunks at a time) and write
    results.parquet and results.csv."""
    done = [t for t in prepared.tasks if t.spec.run_id not in failed and Path(t.ledger_path).exists()]
    chunks: list[list[RunTask]] = []
    for task in done:  # contiguous chunks of one collection each, so plan order survives concatenation
        if chunks and chunks[-1][0].spec.collection == task.spec.collection and len(chunks[-1]) < 32:
            chunks[-1].append(task)
        else:
            chunks.append([task])
    datasets = prepared.datasets
    parts = parallel_map(
        _measure_runs,
        [
            (
                chunk,
                prepared.config,
                datasets[chunk[0].spec.collection].collection.docids,
                datasets[chunk[0].spec.collection].qrels,
            )
            for chunk in chunks
        ],
        jobs,
    )
    frame = results_frame([row for part in parts for row in part])
    write_results(prepared.out, frame)
    return frame
