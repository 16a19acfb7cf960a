"""A whole study run by three tools: the 14 srd reviews x 10 prior seeds, each review to the last relevant
record, with ASReview's logistic set-up; wall time of the whole study per tool, in one run (issue 13).

    mkdir -p benchmarks/results/study_vs_peers
    /work/venv/bin/python benchmarks/study_vs_peers.py --peers-python /work/PEERS/bin/python \
        --json benchmarks/results/study_vs_peers/study.json | tee benchmarks/results/study_vs_peers/study.txt

Every (review, prior seed) starts from the same two prior rows in every tool: one relevant and one non-relevant
record drawn as `asreview simulate --n-prior-included 1 --n-prior-excluded 1 --prior-seed S` draws them
(tarsim.policies.seeding.draw_priors, the draw of a sweep's `prior_seeds`; checked against tarsim's ledgers).

- ASReview 3: `asreview simulate CSV -c logistic -q max -b balanced -e tfidf --n-query 10 --prior-idx I J
  --seed 0` (its default stop: the last relevant record), one process per review, two at a time (Makita's jobs).
- TARexp: benchmarks/vs_peers.py's one-phase workflow (SklearnRanker(LogisticRegression, liblinear),
  RelevanceSampler, PerfectLabeler, tf-idf sublinear min_df 2; batch `--tarexp-batch`, default 10 as ASReview's
  --n-query), seed documents I and J, stopped when every relevant record is found; one process per review, two
  at a time.
- tarsim: ONE `tarsim sweep STUDY.toml --jobs 2` (preset asreview-logistic, prior_seeds, until all-relevant),
  first with a fresh empty --cache-dir (cold: features built in the run), then again with that cache (warm).
- tarsim-warm-start: the same sweep with preset asreview-logistic-warm-start (each refit starts from the last
  coefficients; orders drift from ASReview's), with the cache of the runs before it (cold when it runs alone).
  Its Recall@E and WSS@95 are compared with asreview-logistic's pair by pair (mean difference, 95% CI, paired
  t and randomisation tests).

Seconds are wall time of the whole study per tool (the pool of peer processes, or the sweep command), every
process with one BLAS thread. Converting the srd collections to the peers' CSV input and reading their orders
afterwards is not timed. Recall@E (judgments) and WSS@95 are computed from every tool's review order the same way
(tarsim.interop.order.foreign_ledger, tarsim.metrics.recall_effort); identical orders are counted up to the last
relevant record of both.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from machine_info import describe_machine  # same folder
from reproduce_peers import common_prefix, compare, wss95
from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger, read_ledger
from tarsim.metrics.recall_effort import recall_at_effort
from tarsim.policies.seeding import draw_priors
from vs_peers import (
    BLAS_THREAD_VARIABLES,
    DATASETS,
    SRD_REVIEWS,
    Job,
    _failure,
    _peer_env,
    _tarsim_env,
    asreview_command,
    asreview_ledger,
    order_ledger,
    prepare,
    run_measured,
    tarexp_command,
    tarexp_ledger,
)

SWEEPS = {  # tool -> (preset of its sweep, the summary's column of ratios to its time)
    "tarsim": ("asreview-logistic", "x cold"),
    "tarsim-warm": ("asreview-logistic", "x warm"),
    "tarsim-warm-start": ("asreview-logistic-warm-start", "x warm-start"),
}
TOOLS = (*SWEEPS, "asreview-logistic", "tarexp")
MEASURES = ("1R+100", "2R+100", "4R+1000", "WSS@95")
Key = tuple[str, int]  # (review, prior seed)


def study_toml(reviews: list[str], seeds: int, out: Path, preset: str) -> str:
    """The sweep configuration of the study: every review's collection, the preset, 1 + 1 random priors."""
    lines = ["[sweep]", f"out = {json.dumps(str(out))}", f"prior_seeds = {seeds}", ""]
    for review in reviews:
        lines += ["[[collections]]", f"path = {json.dumps(str(DATASETS / 'srd' / review))}", ""]
    lines += ["[review]", f"preset = {json.dumps(preset)}", 'until = "all-relevant"']
    lines += ["n_prior_included = 1", "n_prior_excluded = 1", ""]
    return "\n".join(lines)


def run_pool(commands: dict[Key, tuple[list[str], Path]], jobs: int, timeout: float) -> tuple[float, float, dict]:
    """Run the commands `jobs` at a time, each in its own scratch folder; (wall seconds of all, largest peak MB,
    key -> None or why it failed)."""

    def one(item: tuple[Key, tuple[list[str], Path]]) -> tuple[Key, float, str | None]:
        key, (command, cwd) = item
        cwd.mkdir(parents=True, exist_ok=True)
        _, peak, code, text = run_measured(command, timeout, env=_peer_env(), cwd=cwd)
        return key, peak, _failure(code, timeout, text) if code else None

    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(one, commands.items()))
    seconds = time.perf_counter() - start
    return seconds, max((peak for _, peak, _ in done), default=0.0), {key: failed for key, _, failed in done}


def run_sweep(toml: Path, out: Path, cache: Path, jobs: int, timeout: float) -> tuple[float, float, str | None]:
    """`tarsim sweep` as a user types it; (wall seconds, peak MB, None or why it failed)."""
    command = [sys.executable, "-m", "tarsim", "sweep", str(toml), "--jobs", str(jobs)]
    command += ["--out", str(out), "--cache-dir", str(cache)]
    seconds, peak, code, text = run_measured(command, timeout, env=_tarsim_env())
    return seconds, peak, _failure(code, timeout, text) if code else None


def sweep_orders(out: Path, jobs: dict[Key, Job]) -> dict[Key, list[str]]:
    """(review, prior seed) -> tarsim's review order (docids), read from the sweep's ledgers."""
    orders = {}
    for path in sorted((out / "ledgers").glob("*.jsonl")):
        ledger = read_ledger(path)
        sweep = ledger.header["sweep"]
        key = (sweep["collection"], int(sweep["prior_seed"]))
        if key in jobs:
            orders[key] = list(ledger.docids)
    return orders


def measures(ledger: Ledger) -> dict[str, float | None]:
    """Recall@1R+100, @2R+100, @4R+1000 (judgments) and WSS@95 of one review order."""
    recall = {f"{r['a']}R+{r['b']}": r["recall"] for r in recall_at_effort(ledger, "judge")}
    out: dict[str, float | None] = {m: recall[m] for m in MEASURES if m in recall}
    out["WSS@95"] = wss95([int(t > 0) for t in ledger.truth], ledger.header["collection_size"])
    return out


def to_last_relevant(order: list[str], job: Job) -> list[str]:
    """The order up to its last relevant record (a peer labels its whole last batch before it stops)."""
    hits = [i for i, d in enumerate(order) if job.grades.get(d, 0) > 0]
    return order[: hits[-1] + 1] if hits else order


def evaluate(tool: str, orders: dict[Key, list[str]], jobs: dict[Key, Job]) -> list[dict]:
    """One record per (review, prior seed) with the tool's order: its measures, computed alike for every tool."""
    records = []
    for key, job in jobs.items():
        if key not in orders:
            continue
        ledger = order_ledger(tool, job.topic, orders[key], job.grades, job.relevant, len(job.docids))
        records.append({"tool": tool, "review": key[0], "seed": key[1], "judged": len(orders[key]), **measures(ledger)})
    return records


def peer_orders(tool: str, jobs: dict[Key, Job], work: Path, failed: dict, peers_python: str) -> dict:
    """(review, prior seed) -> the peer's review order (docids), read after the timed runs."""
    orders = {}
    for key, job in jobs.items():
        if failed.get(key):
            continue
        folder = work / tool / f"{key[0]}-{key[1]}"
        if tool == "tarexp":
            ledger, _ = tarexp_ledger(job, folder / "order.json")
        else:
            ledger = asreview_ledger(job, folder / "project.asreview", folder / "order.json", peers_python, tool)
            if isinstance(ledger, str):
                failed[key] = ledger
                continue
        orders[key] = list(ledger.docids)
    return orders


def summary_table(document: dict) -> str:
    """The text table: per tool seconds, ratio to each tarsim sweep that ran, runs and mean measures."""
    tools = document["tools"]
    bases = [(label, tools[tool]["seconds"]) for tool, (_, label) in SWEEPS.items() if tool in tools]
    head = f"{'tool':<18} {'seconds':>8} " + " ".join(f"{name:>12}" for name, _ in bases)
    head += f" {'CPU s':>7} {'peak MB':>8} {'runs':>5} {'failed':>6} "
    lines = [head + " ".join(f"{m:>8}" for m in MEASURES)]
    for tool, t in tools.items():
        ratios = [f"{t['seconds'] / base:>12.2f}" if base and t["seconds"] else f"{'-':>12}" for _, base in bases]
        means = " ".join(f"{t['means'][m]:>8.4f}" if t["means"].get(m) is not None else f"{'-':>8}" for m in MEASURES)
        lines.append(
            f"{tool:<18} {t['seconds']:>8.1f} {' '.join(ratios)} {t.get('cpu_seconds', float('nan')):>7.1f} "
            f"{t['peak_mb']:>8.0f} {t['runs']:>5} "
            f"{t['failed']:>6} {means}"
        )
    for key, tool in (("identical_tarsim_asreview", "tarsim"), ("identical_warm_start_asreview", "tarsim-warm-start")):
        same = document.get(key)
        if same:
            lines.append(
                f"identical review orders {tool} / asreview-logistic: {same['identical']} of {same['pairs']} "
                f"(mean common prefix {same['mean_common_prefix']:.0f} of {same['mean_asreview_length']:.0f})"
            )
    for m, c in (document.get("warm_start_vs_asreview") or {}).items():
        if "diff" not in c:  # fewer than two pairs: no test
            continue
        lines.append(
            f"tarsim-warm-start - asreview-logistic, {m}: {c['diff']:+.4f} (95% CI {c['ci_low']:+.4f} to "
            f"{c['ci_high']:+.4f}), paired t p = {c['p_t']:.3g}, randomisation p = {c['p_rand']:.3g}, "
            f"{c['n']:.0f} pairs"
        )
    if document["prior_mismatches"]:
        lines.append(f"tarsim's priors differ from the peers' on {len(document['prior_mismatches'])} reviews")
    return "\n".join(lines)


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far, and of the children they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(run: Callable[..., tuple[float, float, Any]], *args: Any) -> tuple[float, float, Any, float]:
    """run(*args)'s (seconds, peak MB, failures) and the CPU seconds of the child processes it waited for."""
    before = children_cpu()
    seconds, peak, failed = run(*args)
    return seconds, peak, failed, children_cpu() - before


def summarise_tool(
    tool: str, orders: dict, jobs: dict, seconds: float, peak: float, cpu: float, note: str | None, records: list
) -> dict:
    """The tool's seconds, peak memory, CPU seconds, runs and the mean of every measure over its finished runs; its
    per-run records are added to `records`."""
    mine = evaluate(tool, orders, jobs)
    records += mine
    means = {}
    for m in MEASURES:
        values = [r[m] for r in mine if r.get(m) is not None]
        means[m] = float(np.mean(values)) if values else None
    failed = len(jobs) - len(mine)
    return {"seconds": seconds, "peak_mb": peak, "runs": len(mine), "failed": failed, "means": means, "note": note,
            "cpu_seconds": cpu}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers-python", help="python of the environment where asreview and tarexp are installed")
    parser.add_argument(
        "--reviews", nargs="+", default=SRD_REVIEWS, help="srd reviews by name, or a count N: the first N (default all)"
    )
    parser.add_argument("--seeds", type=int, default=10, help="prior seeds 0..N-1 (default 10)")
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS, help="tarsim-warm needs tarsim")
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time, every tool (default 2)")
    parser.add_argument("--tarexp-batch", type=int, default=10, help="TARexp's batch size (default 10)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per process before it is killed")
    parser.add_argument("--json", type=Path, help="write the per-run records and the summary to this file")
    parser.add_argument("--summarise", type=Path, metavar="JSON", help="print the table of an earlier --json file")
    parser.add_argument("--keep", type=Path, help="keep the scratch folder (inputs, outputs) here")
    args = parser.parse_args(argv)
    if args.summarise:
        print(summary_table(json.loads(args.summarise.read_text())))
        return 0
    if len(args.reviews) == 1 and args.reviews[0].isdigit():
        args.reviews = SRD_REVIEWS[: int(args.reviews[0])]
    unknown = sorted(set(args.reviews) - set(SRD_REVIEWS))
    if unknown or not args.reviews:
        parser.error(f"unknown srd reviews {unknown}; accepted: {', '.join(SRD_REVIEWS)}")
    if "tarsim-warm" in args.tools and "tarsim" not in args.tools:
        parser.error("tarsim-warm reuses the cache the cold tarsim run fills: give tarsim too")
    os.environ.update({name: "1" for name in BLAS_THREAD_VARIABLES})  # the same limit for every tool's process
    peers = [t for t in args.tools if not t.startswith("tarsim")]
    if peers and not args.peers_python:
        parser.error("--peers-python is needed for " + ", ".join(peers))
    print(f"machine: {describe_machine()}; {len(args.reviews)} reviews x {args.seeds} prior seeds; "
          f"--jobs {args.jobs}; BLAS threads: 1", flush=True)  # fmt: skip
    if args.keep:
        shutil.rmtree(args.keep, ignore_errors=True)
        args.keep.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="tarsim-study-") as tmp:
        work = args.keep or Path(tmp)
        document = study(args, work)
    print(summary_table(document))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(args.json) as handle:
            json.dump(document, handle, indent=1)
    return 0


def study(args: argparse.Namespace, work: Path) -> dict:
    """Run every tool on the study; the JSON document of per-run records and per-tool summaries."""
    jobs: dict[Key, Job] = {}
    (work / "csv").mkdir()
    for review in args.reviews:  # untimed: each review's CSV for the peers, and every seed's prior rows
        job = prepare(f"srd:{review}", work / "csv", 0)
        relevant = np.array([job.grades.get(d, 0) > 0 for d in job.docids])
        for seed in range(args.seeds):
            jobs[(review, seed)] = replace(job, prior=tuple(draw_priors(relevant, 1, 1, seed, review)))
    tools: dict[str, dict] = {}
    records: list[dict] = []
    orders: dict[str, dict[Key, list[str]]] = {}
    mismatches: list[str] = []
    cache = work / "feature-cache"
    cache.mkdir()
    for tool, (preset, _) in SWEEPS.items():
        if tool in args.tools:
            toml = work / f"{tool}.toml"
            toml.write_text(study_toml(args.reviews, args.seeds, work / "unused-out", preset), encoding="utf-8")
            out = work / f"{tool}-out"
            seconds, peak, failed, cpu = timed(run_sweep, toml, out, cache, args.jobs, args.timeout)
            print(f"{tool}: {seconds:.1f} s" + (f" FAILED {failed}" if failed else ""), flush=True)
            orders[tool] = {} if failed else sweep_orders(out, jobs)
            tools[tool] = summarise_tool(tool, orders[tool], jobs, seconds, peak, cpu, failed, records)
    for tool in SWEEPS:  # every tarsim sweep starts each review from the peers' two prior rows
        for key, order in orders.get(tool, {}).items():
            if [job_row(jobs[key], d) for d in order[:2]] != list(jobs[key].prior):
                mismatches.append(f"{tool}: {key[0]}/{key[1]}")
    for tool in peers_of(args.tools):
        options = SimpleNamespace(
            peers_python=args.peers_python, seed=0, until="last-relevant", tarexp_batch=args.tarexp_batch
        )
        commands = {}
        for key, job in jobs.items():
            folder = work / tool / f"{key[0]}-{key[1]}"
            if tool == "tarexp":
                commands[key] = (tarexp_command(job, folder / "order.json", options), folder)
            else:
                commands[key] = (asreview_command(job, folder / "project.asreview", options, "logistic"), folder)
        seconds, peak, failed, cpu = timed(run_pool, commands, args.jobs, args.timeout)
        print(f"{tool}: {seconds:.1f} s, {sum(map(bool, failed.values()))} failed", flush=True)
        orders[tool] = peer_orders(tool, jobs, work, failed, args.peers_python)
        note = "; ".join(sorted({f for f in failed.values() if f})) or None
        tools[tool] = summarise_tool(tool, orders[tool], jobs, seconds, peak, cpu, note, records)
    return {
        "machine": describe_machine(),
        "reviews": args.reviews,
        "seeds": args.seeds,
        "jobs": args.jobs,
        "tarexp_batch": args.tarexp_batch,
        "blas_threads": 1,
        "tools": tools,
        "identical_tarsim_asreview": identical(orders.get("tarsim"), orders.get("asreview-logistic"), jobs),
        "warm_start_vs_asreview": against_asreview(records, "tarsim-warm-start"),
        "identical_warm_start_asreview": identical(
            orders.get("tarsim-warm-start"), orders.get("asreview-logistic"), jobs
        ),
        "prior_mismatches": mismatches,
        "runs": records,
    }


def against_asreview(records: list[dict], tool: str) -> dict | None:
    """Per measure, the tool against asreview-logistic over the (review, seed) pairs both finished
    (reproduce_peers.compare: both means, the mean difference tool - ASReview with its 95% CI, paired tests)."""
    theirs = {(r["review"], r["seed"]): r for r in records if r["tool"] == "asreview-logistic"}
    pairs = [
        {"review": r["review"], "seed": r["seed"]}
        | {f"peer_{m}": theirs[(r["review"], r["seed"])].get(m) for m in MEASURES}
        | {f"tarsim_{m}": r.get(m) for m in MEASURES}
        for r in records
        if r["tool"] == tool and (r["review"], r["seed"]) in theirs
    ]
    return {m: compare(pairs, m) for m in MEASURES} if pairs else None


def peers_of(tools: list[str]) -> list[str]:
    return [t for t in tools if not t.startswith("tarsim")]


def job_row(job: Job, docid: str) -> int:
    return job.docids.index(docid)


def identical(ours: dict | None, theirs: dict | None, jobs: dict[Key, Job]) -> dict | None:
    """How many (review, seed) orders of tarsim and ASReview are identical up to their last relevant record."""
    if not ours or not theirs:
        return None
    keys = [k for k in jobs if k in ours and k in theirs]
    a = {k: to_last_relevant(ours[k], jobs[k]) for k in keys}
    b = {k: to_last_relevant(theirs[k], jobs[k]) for k in keys}
    return {
        "pairs": len(keys),
        "identical": sum(a[k] == b[k] for k in keys),
        "mean_common_prefix": float(np.mean([common_prefix(a[k], b[k]) for k in keys])),
        "mean_asreview_length": float(np.mean([len(b[k]) for k in keys])),
        "different": [f"{k[0]}/{k[1]}" for k in keys if a[k] != b[k]],
    }


if __name__ == "__main__":
    raise SystemExit(main())
