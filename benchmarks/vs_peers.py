"""tarsim side by side with ASReview and TARexp: wall time, peak memory and Recall@E on the same reviews.

Installs nothing. The peers live in their own virtualenv (see docs/speed.md for the pip commands) and are run as
subprocesses of `--peers-python`; tarsim runs as a subprocess of this interpreter, so every tool's peak memory is
its own process's (os.wait4's ru_maxrss). Each tool reviews the whole collection (or, with `--until last-relevant`,
stops at the last relevant document); each tool's review order becomes a ledger and Recall@E at E = aR + b is
computed from it by tarsim.metrics.recall_effort, the same way for every tool.

    /work/venv/bin/python benchmarks/vs_peers.py --peers-python /work/peers-venv/bin/python \
        --datasets srd reuters:acq reuters:coffee reuters:gold --timeout 900
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from machine_info import describe_machine  # same folder
from tarsim.data.ledger import Ledger, read_ledger
from tarsim.datasets import load_dataset
from tarsim.interop.order import foreign_ledger
from tarsim.metrics.recall_effort import GRID_A, GRID_B, recall_at_effort

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
SRD_REVIEWS = sorted(p.name for p in (DATASETS / "srd").iterdir()) if (DATASETS / "srd").is_dir() else []
TOOLS = ("tarsim", "tarsim-prior", "tarsim-warm", "asreview-logistic", "asreview-default", "tarexp")
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

# ---- the code each tool runs in its own process ------------------------------------------------------------------
ASREVIEW_ORDER = textwrap.dedent(
    """
    import json, sqlite3, sys, tempfile, zipfile
    from pathlib import Path
    project, out = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(project).extractall(tmp)
        dbs = [p for p in Path(tmp).rglob("*") if p.suffix in (".db", ".sqlite")]
        rows = []
        for db in dbs:
            con = sqlite3.connect(db)
            tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
            if "results" in tables and "record" in tables:
                rows = con.execute(
                    "select record.dataset_row, results.label from results"
                    " join record on results.record_id = record.record_id order by results.rowid"
                ).fetchall()
            con.close()
    json.dump({"row": [r[0] for r in rows], "label": [r[1] for r in rows]}, open(out, "w"))
    """
)

TAREXP_RUNNER = textwrap.dedent(
    """
    import csv, json, sys, time, warnings
    warnings.filterwarnings("ignore")
    t0 = time.perf_counter()
    import numpy as np
    import tarexp
    from tarexp import component
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    path, out, batch, seed, until, prior = sys.argv[1:7]
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    text = [r["title"] + " " + r["abstract"] for r in rows]
    labels = np.array([r["label_included"] == "1" for r in rows])
    t1 = time.perf_counter()
    dataset = tarexp.SparseVectorDataset.from_text(text, vectorizer=TfidfVectorizer(sublinear_tf=True, min_df=2))
    dataset = dataset.setLabels(labels)
    t2 = time.perf_counter()
    seed_doc = [int(i) for i in prior.split(",")]
    setting = component.combine(
        component.SklearnRanker(LogisticRegression, solver="liblinear"),
        component.PerfectLabeler(),
        component.RelevanceSampler(),
        component.NullStoppingRule(),
    )()
    workflow = tarexp.OnePhaseTARWorkflow(dataset, setting, seed_doc=seed_doc, batch_size=int(batch),
                                          random_seed=int(seed))
    order, found, total = [], 0, int(labels.sum())
    while True:
        batch_docs = [int(d) for d in workflow.review_candidates]
        order.extend(batch_docs)
        found += int(labels[batch_docs].sum())
        if len(order) >= len(labels) or (until == "last-relevant" and found >= total) or not batch_docs:
            break
        workflow.step()
    t3 = time.perf_counter()
    json.dump({"order": order, "timing": {"load": t1 - t0, "features": t2 - t1, "review": t3 - t2}}, open(out, "w"))
    """
)


@dataclass
class Outcome:
    """One tool's run on one dataset: what it cost and the review order it produced."""

    tool: str
    seconds: float | None = None
    peak_mb: float | None = None
    failed: str | None = None
    ledger: Ledger | None = None
    detail: dict = field(default_factory=dict)


def run_measured(
    command: list[str], timeout: float, env: dict | None = None, cwd: Path | None = None, terminal: bool = False
) -> tuple[float, float, int, str]:
    """Run a command; return (wall seconds, peak RSS in MB of the process tree it waited for, exit code, output).

    The wait blocks until the process ends (a timer kills its process group at the limit), so the time is exact;
    polling every 50 ms rounded every tool's time up by up to 50 ms. Exit code -9 with the time at the limit means
    it was killed at the timeout. With `terminal` (`--terminal`) the output goes to a pseudo-terminal, read as it
    comes: the tool runs as at a user's terminal (progress bars and anything else that checks isatty()).
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        pseudo = _Terminal() if terminal else None
        outputs = (pseudo.follower, pseudo.follower) if pseudo else (out, err)
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=outputs[0], stderr=outputs[1], start_new_session=True, env=env,
            cwd=cwd,
        )  # fmt: skip
        if pseudo:
            pseudo.started()
        timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        text = pseudo.output() if pseudo else None
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and seconds >= timeout:
            process.returncode = -9
            return seconds, usage.ru_maxrss / 1024, -9, ""
        process.returncode = os.waitstatus_to_exitcode(status)
        if text is not None:
            return seconds, usage.ru_maxrss / 1024, process.returncode, text
        err.seek(0)
        out.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        stdout = out.read().decode("utf-8", "replace")
        return seconds, usage.ru_maxrss / 1024, process.returncode, stdout + "\n" + stderr


class _Terminal:
    """A pseudo-terminal for one process's output, drained on a thread (a full terminal would block the process)."""

    def __init__(self) -> None:
        import pty

        self.leader, self.follower = pty.openpty()
        self._chunks: list[bytes] = []
        self._reader = threading.Thread(target=self._drain, daemon=True)

    def started(self) -> None:
        os.close(self.follower)  # the process holds it now: reading ends when the process closes it
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.leader, 65536)
            except OSError:  # EIO: every writer has closed its end
                return
            if not chunk:
                return
            self._chunks.append(chunk)

    def output(self) -> str:
        self._reader.join(timeout=10)
        os.close(self.leader)
        return b"".join(self._chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def order_ledger(tool: str, topic: str, docids: list[str], grades: dict[str, int], relevant: int, n: int) -> Ledger:
    """A review order as a (minimal) tarsim ledger: one judgment of effort 1 per document, in order."""
    truth = [grades.get(d, 0) for d in docids]
    return foreign_ledger(
        tool=tool,
        topic=topic,
        docids=docids,
        labels=[int(g > 0) for g in truth],
        truth=truth,
        prior=[False] * len(docids),
        relevant=relevant,
        collection_size=n,
        source=tool,
    )


@dataclass
class Job:
    """One dataset and topic to review, with its input converted for the peers."""

    name: str
    directory: Path
    topic: str
    docids: list[str]
    grades: dict[str, int]
    csv_path: Path
    prior: tuple[int, int]  # rows of one relevant and one non-relevant record, every tool's first judgments

    @property
    def relevant(self) -> int:
        return sum(1 for g in self.grades.values() if g > 0)


def peer_priors(relevant: np.ndarray, seed: int = 0) -> tuple[int, int]:
    """Rows of one relevant and one non-relevant record: the first judgments of every tool."""
    rng = np.random.RandomState(seed)
    return int(rng.choice(np.flatnonzero(relevant))), int(rng.choice(np.flatnonzero(~relevant)))


def prepare(spec: str, work: Path, seed: int) -> Job:
    """`srd:<review>` or `reuters:<topic>`: load it and write ASReview/TARexp's CSV input (title, abstract, label)."""
    kind, _, name = spec.partition(":")
    if kind == "srd":
        directory, topic = DATASETS / "srd" / name, name
    elif kind == "reuters":
        directory, topic = DATASETS / "reuters21578", name
    else:
        raise SystemExit(f"unknown dataset {spec!r}: expected srd:<review> or reuters:<topic>")
    dataset = load_dataset(directory)
    grades = dataset.qrels[topic]
    docids = dataset.collection.docids
    path = work / f"{spec.replace(':', '_')}.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "label_included"])
        for document in dataset.collection:
            text = document.text or "."  # ASReview drops records with neither title nor abstract
            writer.writerow([document.title, text, int(grades.get(document.docid, 0) > 0)])
    prior = peer_priors(np.array([grades.get(d, 0) > 0 for d in docids]), seed)
    return Job(spec, directory, topic, list(docids), dict(grades), path, prior)


def tarsim_command(job: Job, out: Path, until: str, seed: int, cache: Path, prior: tuple[str, ...] = ()) -> list[str]:
    """The `tarsim simulate` command a user types for this review (run with this interpreter)."""
    command = [sys.executable, "-m", "tarsim", "simulate", "--collection", str(job.directory), "--topic", job.topic]
    command += ["--until", "exhausted" if until == "all" else "all-relevant", "--seed", str(seed)]
    if prior:  # BMI judges the peers' prior records first instead of seeding with the topic's query
        command += ["--seeding", "documents", *(x for docid in prior for x in ("--seed-doc", docid))]
    return [*command, "--out", str(out), "--cache-dir", str(cache)]


def run_tarsim(job: Job, work: Path, args: argparse.Namespace, tool: str) -> Outcome:
    """`tarsim simulate` as a subprocess. `tarsim`: BMI seeded with the topic's query, features built cold (a
    fresh, empty --cache-dir); `tarsim-prior`: seeded with the peers' prior records, cold too; `tarsim-warm`:
    `tarsim` again with the features in the --cache-dir an untimed first run filled (every run of a study or
    sweep after the first pays this)."""
    name = job.name.replace(":", "_")
    prior = tuple(job.docids[i] for i in job.prior) if tool == "tarsim-prior" else ()
    cache = work / f"feature-cache-{tool}-{name}"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    if tool == "tarsim-warm":
        warm_up = tarsim_command(job, work / f"{tool}-warm-up-{name}", args.until, args.seed, cache, prior)
        _, _, code, text = run_measured(warm_up, args.timeout, env=_tarsim_env(), terminal=args.terminal)
        if code:  # without its cache the timed run would be a cold one
            return Outcome(tool, failed="warm-up run: " + _failure(code, args.timeout, text))
    out = work / f"{tool}-{name}"
    command = tarsim_command(job, out, args.until, args.seed, cache, prior)
    seconds, peak, code, text = run_measured(command, args.timeout, env=_tarsim_env(), terminal=args.terminal)
    if code:
        return Outcome(tool, seconds, peak, _failure(code, args.timeout, text))
    ledger = read_ledger(next((out / "ledgers").glob("*.jsonl")))
    return Outcome(tool, seconds, peak, ledger=ledger)


def _tarsim_env() -> dict:
    """This process's environment, with this checkout's src first on PYTHONPATH (`-m tarsim` imports it)."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def asreview_command(job: Job, project: Path, args: argparse.Namespace, model: str) -> list[str]:
    """`asreview simulate` of this job from its prior rows (`args`: peers_python, seed, until)."""
    command = [args.peers_python, "-m", "asreview", "simulate", str(job.csv_path), "-o", str(project)]
    command += ["--prior-idx", *(str(i) for i in job.prior)]
    command += ["--seed", str(args.seed)]
    if model == "logistic":
        command += ["-c", "logistic", "-q", "max", "-b", "balanced", "-e", "tfidf", "--n-query", "10"]
    if args.until == "all":
        command += ["--n-stop", "-1"]
    return command


def asreview_ledger(job: Job, project: Path, order_file: Path, peers_python: str, tool: str) -> Ledger | str:
    """The review order kept in an ASReview project as a ledger, or why it could not be read."""
    subprocess.run([peers_python, "-c", ASREVIEW_ORDER, str(project), str(order_file)], check=True)
    result = json.loads(order_file.read_text())
    # ASReview's record table maps each record to its row in our CSV; check it against the labels it recorded.
    docids = [job.docids[row] for row in result["row"]]
    truth = [int(job.grades.get(d, 0) > 0) for d in docids]
    if truth != [int(x) for x in result["label"]]:
        return "record_id mapping does not reproduce ASReview's labels"
    return order_ledger(tool, job.topic, docids, job.grades, job.relevant, len(job.docids))


def run_asreview(job: Job, work: Path, args: argparse.Namespace, model: str) -> Outcome:
    tool = f"asreview-{model}"
    project = work / f"{tool}-{job.name.replace(':', '_')}.asreview"
    project.unlink(missing_ok=True)
    # Run in the scratch folder: ASReview leaves a synergy_cache.sqlite in its working directory.
    command = asreview_command(job, project, args, model)
    seconds, peak, code, text = run_measured(command, args.timeout, env=_peer_env(), cwd=work, terminal=args.terminal)
    if code:
        return Outcome(tool, seconds, peak, _failure(code, args.timeout, text))
    order_file = work / f"{tool}-{job.name.replace(':', '_')}.order.json"
    ledger = asreview_ledger(job, project, order_file, args.peers_python, tool)
    if isinstance(ledger, str):
        return Outcome(tool, seconds, peak, ledger)
    return Outcome(tool, seconds, peak, ledger=ledger)


def tarexp_command(job: Job, order_file: Path, args: argparse.Namespace) -> list[str]:
    """TARexp's one-phase workflow (TAREXP_RUNNER) on this job (`args`: peers_python, tarexp_batch, seed, until)."""
    command = [args.peers_python, "-c", TAREXP_RUNNER, str(job.csv_path), str(order_file)]
    return [*command, str(args.tarexp_batch), str(args.seed), args.until, ",".join(str(i) for i in job.prior)]


def tarexp_ledger(job: Job, order_file: Path) -> tuple[Ledger, dict]:
    """TARexp's review order (written by TAREXP_RUNNER) as a ledger, and the runner's timings."""
    result = json.loads(order_file.read_text())
    docids = [job.docids[i] for i in result["order"]]
    return order_ledger("tarexp", job.topic, docids, job.grades, job.relevant, len(job.docids)), result["timing"]


def run_tarexp(job: Job, work: Path, args: argparse.Namespace) -> Outcome:
    order_file = work / f"tarexp-{job.name.replace(':', '_')}.json"
    command = tarexp_command(job, order_file, args)
    seconds, peak, code, text = run_measured(command, args.timeout, env=_peer_env(), terminal=args.terminal)
    if code:
        return Outcome("tarexp", seconds, peak, _failure(code, args.timeout, text))
    ledger, timing = tarexp_ledger(job, order_file)
    return Outcome("tarexp", seconds, peak, ledger=ledger, detail=timing)


def _peer_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def _failure(code: int, timeout: float, text: str) -> str:
    if code == -9:
        return f"did not finish in {timeout:g} s"
    last = [line for line in text.strip().splitlines() if line.strip()][-1:] or ["?"]
    return f"exit {code}: {last[0][:120]}"


def report(job: Job, outcomes: list[Outcome]) -> str:
    """The per-dataset table: time, peak memory, time ratio to tarsim, Recall@E at every aR+b."""
    grid = [(a, b) for a in GRID_A for b in GRID_B]
    head = f"{'tool':<18} {'seconds':>8} {'peak MB':>8} {'x tarsim':>8} {'judged':>7} " + " ".join(
        f"{f'{a}R+{b}':>7}" for a, b in grid
    )
    lines = [f"== {job.name}: {len(job.docids)} documents, R = {job.relevant}", head]
    base = next((o.seconds for o in outcomes if o.tool == "tarsim" and o.failed is None), None)
    for o in outcomes:
        if o.failed:
            lines.append(f"{o.tool:<18} {'-':>8} {'-':>8} {'-':>8} {'-':>7} {o.failed}")
            continue
        rows = recall_at_effort(o.ledger, "judge")
        recall = {(r["a"], r["b"]): r["recall"] for r in rows}
        ratio = f"{o.seconds / base:.1f}" if base else "-"
        cells = " ".join(f"{recall[(a, b)]:>7.3f}" for a, b in grid)
        lines.append(f"{o.tool:<18} {o.seconds:>8.1f} {o.peak_mb:>8.0f} {ratio:>8} {len(o.ledger):>7} {cells}")
    timings = [f"{o.tool}: " + ", ".join(f"{k} {v:.1f}s" for k, v in o.detail.items()) for o in outcomes if o.detail]
    if timings:
        lines.append("   (inside: " + "; ".join(timings) + ")")
    return "\n".join(lines)


FLOOR_RUNS = 3


def start_up_floor(python: str, env: dict) -> float:
    """Median wall seconds of `python -c "import sklearn.linear_model"`: what every tool here pays before its first
    fit (the interpreter, numpy, scipy and scikit-learn's imports), whatever else it does."""
    command = [python, "-c", "import sklearn.linear_model"]
    seconds = []
    for _ in range(FLOOR_RUNS):
        wall, _, code, text = run_measured(command, 60.0, env=env)
        if code:
            raise SystemExit(f"{python} cannot import scikit-learn: {text.strip().splitlines()[-1:]}")
        seconds.append(wall)
    return float(np.median(seconds))


def floor_line(floor: dict[str, float]) -> str:
    names = {"tarsim": "tarsim's Python", "peers": "the peers' Python"}
    shown = ", ".join(f"{names[where]} {seconds:.2f} s" for where, seconds in floor.items())
    return f"start-up floor (python -c 'import sklearn.linear_model', median of {FLOOR_RUNS}): {shown}"


def summarise(records: list[dict]) -> str:
    """A markdown table from --json records: seconds, each peer's ratio to tarsim cold / warm, Recall@2R+100;
    then the start-up floors measured in the same run."""
    by_dataset: dict[str, dict[str, dict]] = {}
    floors = [record["floor"] for record in records if "floor" in record]
    for record in records:
        if "floor" not in record:
            by_dataset.setdefault(record["dataset"], {})[record["tool"]] = record
    present = [tool for tool in TOOLS if any(tool in runs for runs in by_dataset.values())]
    peers = [tool for tool in present if not tool.startswith("tarsim")]
    recall_tools = [tool for tool in present if tool != "tarsim-warm"]  # same review as `tarsim`
    head = ["dataset", "N", "R", "tarsim s (cold / warm)", *(f"{peer} s (x cold / warm)" for peer in peers)]
    head.append("R@2R+100 " + " / ".join(recall_tools))
    lines = ["| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 2) + "---|"]
    for dataset, runs in by_dataset.items():
        first = next(iter(runs.values()))
        cold, warm = (_finished_seconds(runs.get(tool)) for tool in ("tarsim", "tarsim-warm"))
        cells = [dataset.split(":", 1)[1], str(first["documents"]), str(first["relevant"])]
        cells.append(" / ".join("-" if x is None else f"{x:.1f}" for x in (cold, warm)))
        for peer in peers:
            run = runs.get(peer)
            if run is None:
                cells.append("-")
                continue
            bound = "> " if run["failed"] else ""  # killed at the time limit: at least this slow
            ratios = " / ".join(f"{bound}{run['seconds'] / base:.1f}" if base else "-" for base in (cold, warm))
            shown = f"DNF in {run['seconds']:.0f}" if run["failed"] else f"{run['seconds']:.1f}"
            cells.append(f"{shown} ({ratios})")
        recall = [
            runs[t]["recall"].get("2R+100") if t in runs and not runs[t]["failed"] else None for t in recall_tools
        ]
        cells.append(" / ".join("-" if r is None else f"{r:.3f}" for r in recall))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *(floor_line(floor) for floor in floors)]
    return "\n".join(lines)


def _finished_seconds(record: dict | None) -> float | None:
    return None if record is None or record["failed"] else record["seconds"]


def expand(specs: list[str]) -> list[str]:
    out: list[str] = []
    for spec in specs:
        out.extend(f"srd:{r}" for r in SRD_REVIEWS) if spec == "srd" else out.append(spec)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers-python", help="python of the environment where asreview and tarexp are installed")
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["srd", "reuters:acq", "reuters:coffee", "reuters:gold"],
        help="srd (all 14 reviews), srd:<review>, reuters:<topic>",
    )
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument(
        "--until",
        choices=("all", "last-relevant"),
        default="all",
        help="review the whole collection (default) or stop at the last relevant document",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per tool run before it is killed")
    parser.add_argument("--tarexp-batch", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also append one JSON line per run to this file")
    parser.add_argument(
        "--terminal", action="store_true", help="give every tool a pseudo-terminal for its output, as at a terminal"
    )
    parser.add_argument(
        "--blas-threads",
        default="1",
        help="threads of BLAS/OpenMP in every tool's process (default 1; 'default' leaves each library's choice)",
    )
    parser.add_argument("--summarise", type=Path, metavar="JSONL", help="print the markdown summary of --json records")
    args = parser.parse_args(argv)
    if args.summarise:
        print(summarise([json.loads(line) for line in args.summarise.read_text().splitlines() if line.strip()]))
        return 0
    if args.blas_threads != "default":
        # The same limit for every tool. With OpenBLAS's default (one thread per core) ASReview's lbfgs fits of
        # a few thousand records spend most of their time synchronising threads: 7x slower on 2 cores.
        os.environ.update({name: args.blas_threads for name in BLAS_THREAD_VARIABLES})
    peers = [t for t in args.tools if not t.startswith("tarsim")]
    if peers and not (args.peers_python and _importable(args.peers_python)):
        print("peers not importable (give --peers-python with asreview and tarexp installed): tarsim only")
        args.tools = [t for t in args.tools if t.startswith("tarsim")]
        peers = []
    output = "a pseudo-terminal" if args.terminal else "files"
    print(f"machine: {describe_machine()}; until={args.until}; BLAS threads: {args.blas_threads}; output to {output}")
    floor = {"tarsim": start_up_floor(sys.executable, _tarsim_env())}
    if peers:
        floor["peers"] = start_up_floor(args.peers_python, _peer_env())
    print(floor_line(floor), flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"floor": floor}) + "\n")
    with tempfile.TemporaryDirectory(prefix="tarsim-vs-peers-") as tmp:
        work = Path(tmp)
        for spec in expand(args.datasets):
            job = prepare(spec, work, args.seed)
            outcomes = []
            for tool in args.tools:
                if tool.startswith("tarsim"):
                    outcomes.append(run_tarsim(job, work, args, tool))
                elif tool == "tarexp":
                    outcomes.append(run_tarexp(job, work, args))
                else:
                    outcomes.append(run_asreview(job, work, args, tool.split("-", 1)[1]))
                if args.json:
                    o = outcomes[-1]
                    rows = recall_at_effort(o.ledger, "judge") if o.ledger is not None else []
                    record = {
                        "dataset": spec,
                        "tool": o.tool,
                        "seconds": o.seconds,
                        "peak_mb": o.peak_mb,
                        "failed": o.failed,
                        "judged": len(o.ledger) if o.ledger is not None else None,
                        "relevant": job.relevant,
                        "documents": len(job.docids),
                        "blas_threads": args.blas_threads,
                        "terminal": args.terminal,
                        "detail": o.detail,
                        "recall": {f"{r['a']}R+{r['b']}": r["recall"] for r in rows},
                    }
                    with open(args.json, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record) + "\n")
            print(report(job, outcomes), flush=True)
    return 0


def _importable(python: str) -> bool:
    check = subprocess.run([python, "-c", "import asreview, tarexp"], capture_output=True)
    return check.returncode == 0


if __name__ == "__main__":
    raise SystemExit(main())
