"""Speed of `tarsim evaluate` end to end (read qrels + run, compute the eight default measures).

Generates (fixed seed) a TREC run of 5,000 topics x 1,000 documents with about 10 relevant documents per
topic, then times, each in a fresh Python process:
  tarsim API   read_qrels + read_run_table + evaluate_run + aggregate (time inside the process)
  tarsim CLI   `tarsim evaluate QRELS RUN` (wall time of the whole command, interpreter start included)
  pytrec_eval  ir_measures with its pytrec_eval provider, reading the same files (time inside the process)
  ranx cold    ranx reading the files and evaluating in a fresh process with an empty numba cache
               (so its JIT compilation is included)
  ranx warm    the same, a second time in that process (compiled code, files read again)
and prints a table of seconds and ratios to tarsim (API), plus the largest difference between the
aggregates of tarsim and of the others (pytrec_eval should agree to ~1e-12; ranx orders ties differently).

    python benchmarks/evaluate_speed.py [--topics 5000] [--docs 1000] [--repeat 3] [--no-ranx]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from extras import require_extras  # same folder

MEASURES = ["R@100", "R@20", "nDCG@20", "RPrec", "AP@100", "RR@100", "Success@5", "Success@1"]
RANX_METRICS = ["recall@100", "recall@20", "ndcg@20", "r-precision", "map@100", "mrr@100", "hit_rate@5", "hit_rate@1"]

TARSIM_API = """
import json, sys, time
start = time.perf_counter()
from tarsim.data import read_qrels
from tarsim.data.runs import read_run_table
from tarsim.metrics import DEFAULT_MEASURES, aggregate, evaluate_run
summary = aggregate(evaluate_run(read_qrels(sys.argv[1]), read_run_table(sys.argv[2]), DEFAULT_MEASURES))
print(json.dumps({"seconds": time.perf_counter() - start, "values": summary}))
"""

PYTREC_EVAL = """
import json, sys, time
start = time.perf_counter()
import ir_measures
measures = [ir_measures.parse_measure(name) for name in json.loads(sys.argv[3])]
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
result = ir_measures.pytrec_eval.evaluator(measures, qrels).calc_aggregate(run)
values = {str(m).replace("Rprec", "RPrec"): float(v) for m, v in result.items()}
print(json.dumps({"seconds": time.perf_counter() - start, "values": values}))
"""

RANX = """
import json, sys, time
names = json.loads(sys.argv[3])
metrics = json.loads(sys.argv[4])
def once():
    start = time.perf_counter()
    from ranx import Qrels, Run, evaluate
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    scores = evaluate(qrels, run, metrics)
    return time.perf_counter() - start, {n: float(scores[m]) for n, m in zip(names, metrics)}
cold, values = once()
warm, _ = once()
print(json.dumps({"seconds": cold, "warm": warm, "values": values}))
"""


def generate(directory: Path, topics: int, docs: int, relevant: float, seed: int) -> tuple[Path, Path]:
    """Write qrels.txt and run.txt: per topic `docs` ranked documents, ~`relevant` relevant, 4-decimal scores."""
    rng = np.random.default_rng(seed)
    pool = 1_000_000
    qrels_path, run_path = directory / "qrels.txt", directory / "run.txt"
    with qrels_path.open("w") as qrels, run_path.open("w") as run:
        for t in range(topics):
            retrieved = rng.choice(pool, size=docs + 50, replace=False)
            n_relevant = max(1, int(rng.poisson(relevant)))
            relevant_ids = retrieved[docs : docs + n_relevant]  # some relevant documents are not retrieved
            in_run = rng.random(n_relevant) < 0.8
            positions = rng.choice(docs, size=int(in_run.sum()), replace=False)
            ranked = retrieved[:docs]
            ranked[positions] = relevant_ids[in_run]
            scores = rng.normal(10.0, 3.0, size=docs)
            scores[positions] += rng.exponential(4.0, size=len(positions))  # relevant ones tend to rank higher
            scores = np.round(scores, 4)  # 4 decimals, as many runs are printed: some ties
            order = np.argsort(-scores, kind="stable")
            grades = rng.integers(1, 3, size=n_relevant)
            nonrelevant = ranked[rng.choice(docs, size=10, replace=False)]
            judged = {int(d): 0 for d in nonrelevant}
            judged.update({int(d): int(g) for d, g in zip(relevant_ids, grades, strict=True)})
            qrels.write("".join(f"q{t} 0 d{d} {g}\n" for d, g in judged.items()))
            run.write(
                "".join(
                    f"q{t} Q0 d{ranked[i]} {r} {scores[i]:.4f} bench\n" for r, i in enumerate(order.tolist(), start=1)
                )
            )
    return qrels_path, run_path


def in_fresh_process(code: str, *argv: str, env: dict[str, str] | None = None) -> tuple[dict, float]:
    """Run `code` in a new interpreter; return its JSON report and the wall time of the whole process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout), time.perf_counter() - start


def tarsim_cli(qrels: Path, run: Path) -> tuple[dict, float]:
    command = shutil.which("tarsim") or str(Path(sys.executable).with_name("tarsim"))
    start = time.perf_counter()
    done = subprocess.run(
        [command, "evaluate", str(qrels), str(run), "--format", "json"], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    return {"seconds": wall, "values": json.loads(done.stdout)["aggregate"]}, wall


def largest_difference(a: dict[str, float], b: dict[str, float], skip: str = "") -> tuple[float, str]:
    """The largest absolute difference between two aggregates (measure `skip` left out), and its measure."""
    return max((abs(a[name] - b[name]), name) for name in MEASURES if name != skip)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--relevant", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="best of N for each contender (single runs of a 170 MB file move by 2x with the machine)",
    )
    parser.add_argument("--no-ranx", action="store_true")
    args = parser.parse_args()
    require_extras(__file__, "ir_measures", "ranx")  # before any work

    with tempfile.TemporaryDirectory(prefix="tarsim-evaluate-speed-") as tmp:
        directory = Path(tmp)
        start = time.perf_counter()
        qrels, run = generate(directory, args.topics, args.docs, args.relevant, args.seed)
        lines = sum(1 for _ in run.open())
        print(
            f"generated {lines:,} run lines, {sum(1 for _ in qrels.open()):,} qrels lines "
            f"in {time.perf_counter() - start:.1f} s (seed {args.seed})"
        )
        files = (str(qrels), str(run))
        contenders = {
            "tarsim API": lambda: in_fresh_process(TARSIM_API, *files),
            "tarsim CLI": lambda: tarsim_cli(qrels, run),
            "pytrec_eval (ir_measures)": lambda: in_fresh_process(PYTREC_EVAL, *files, json.dumps(MEASURES)),
        }
        if not args.no_ranx:

            def ranx_cold() -> tuple[dict, float]:
                with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
                    return in_fresh_process(
                        RANX, *files, json.dumps(MEASURES), json.dumps(RANX_METRICS), env={"NUMBA_CACHE_DIR": cache}
                    )

            contenders["ranx"] = ranx_cold
        results: dict[str, tuple[dict, float]] = {}
        for name, call in contenders.items():
            best = None
            for _ in range(args.repeat):
                report, wall = call()
                if best is None or report["seconds"] < best[0]["seconds"]:
                    best = (report, wall)
            results[name] = best
            print(f"  {name}: {best[0]['seconds']:.2f} s", flush=True)

    base = results["tarsim API"][0]["seconds"]
    rows = []
    for name, (report, wall) in results.items():
        label = "ranx cold (JIT included)" if name == "ranx" else name
        ours = results["tarsim API"][0]["values"]
        differences = (
            largest_difference(ours, report["values"]),
            largest_difference(ours, report["values"], skip="RR@100"),
        )
        rows.append((label, report["seconds"], wall, differences))
        if name == "ranx":
            rows.append(("ranx warm (compiled)", report["warm"], float("nan"), None))
    print()
    print(f"{args.topics:,} topics x {args.docs:,} docs, 8 measures ({' '.join(MEASURES)})")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    print(
        f"{'contender':<28} {'seconds':>8} {'process':>8} {'x tarsim':>9}  "
        f"{'max |diff| vs tarsim':<24}{'same, RR@100 left out'}"
    )
    for label, seconds, wall, diff in rows:
        process = f"{wall:8.2f}" if wall == wall else f"{'':>8}"
        difference = "".join(f"{f'{d[0]:.2e} ({d[1]})':<24}" for d in diff) if diff else ""
        print(f"{label:<28} {seconds:8.2f} {process} {seconds / base:9.2f}  {difference}")
    print("seconds: inside the process (files read + measures computed; the CLI row is its whole command);")
    print("process: wall time of the fresh Python process; x tarsim: seconds / tarsim API seconds.")
    print("ir_measures sends RR@k to a provider that does not order tied scores as trec_eval does, hence its")
    print("RR@100 difference; tarsim's RR@k matches pytrec_eval's recip_rank on the run cut in trec_eval order.")


if __name__ == "__main__":
    main()
