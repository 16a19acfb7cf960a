"""Does tarsim reproduce the peers' own results? ASReview 3 (default model and logistic) and TARexp, run by
themselves, against tarsim's matching preset started from the same prior records, on the 14 srd reviews.

    python benchmarks/reproduce_peers.py --peers-python /work/PEERS/bin/python --seeds 5

For each review and prior seed s, RandomState(s) draws one relevant and one non-relevant record (the rule of
`asreview simulate --n-prior-included 1 --n-prior-excluded 1 --prior-seed s`; benchmarks/vs_peers.py's
peer_priors). Each peer reviews from those two records, to the last relevant record, in its own virtualenv
(`--peers-python`); its review order is kept in results/reproduce_peers/peers.jsonl, so a re-run only runs
what is missing (`--peers-only` fills that file without the tarsim runs). tarsim then runs each preset with
`--prior-idx` of the same rows. Reported per review and as a mean: Recall@2R+100 and WSS@95 of both, the
paired difference with a 95% confidence interval (t over review x seed pairs) and a paired randomisation test,
and the share of pairs whose review orders are identical (and the mean length of the common prefix).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tarsim.config.presets import apply_preset
from tarsim.config.review import ReviewConfig
from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.datasets import load_dataset
from tarsim.features.tfidf import review_features
from tarsim.metrics.insights import wss
from tarsim.metrics.recall_effort import recall_at_effort
from tarsim.metrics.significance import paired_tests
from tarsim.policies import SeedingChoice
from tarsim.simulator.run import review_topics
from vs_peers import BLAS_THREAD_VARIABLES, DATASETS, SRD_REVIEWS, order_ledger, prepare, run_asreview, run_tarexp

RESULTS = Path(__file__).resolve().parent / "results" / "reproduce_peers"
PEERS_FILE = RESULTS / "peers.jsonl"
PAIRS = {  # tarsim preset -> the peer run it must reproduce
    "asreview-logistic": "asreview-logistic",
    "asreview-default": "asreview-default",
    "tarexp-default": "tarexp",
}
PEER_TOOLS = tuple(dict.fromkeys(PAIRS.values()))


def recall_2r100(ledger: Ledger) -> float:
    """Recall@2R+100 in judgments."""
    return next(row["recall"] for row in recall_at_effort(ledger) if (row["a"], row["b"]) == (2, 100))


def load_peer_orders(path: Path = PEERS_FILE) -> dict[tuple[str, str, int], dict]:
    """(tool, review, seed) -> the kept peer run (prior rows, review order as rows, seconds)."""
    if not path.exists():
        return {}
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["tool"], r["review"], r["seed"]): r for r in records}


def run_peer(tool: str, review: str, seed: int, work: Path, args: argparse.Namespace) -> dict:
    """Run one peer from the seed's priors to the last relevant record; return its order as CSV rows."""
    job = prepare(f"srd:{review}", work, seed)
    options = SimpleNamespace(
        peers_python=args.peers_python, timeout=args.timeout, seed=0, until="last-relevant", tarexp_batch=200
    )
    if tool == "tarexp":
        outcome = run_tarexp(job, work, options)
    else:
        outcome = run_asreview(job, work, options, tool.split("-", 1)[1])
    if outcome.failed:
        raise SystemExit(f"{tool} on {review}, prior seed {seed}: {outcome.failed}")
    row_of = {docid: i for i, docid in enumerate(job.docids)}
    return {
        "tool": tool,
        "review": review,
        "seed": seed,
        "prior": list(job.prior),
        "order": [row_of[d] for d in outcome.ledger.docids],
        "seconds": outcome.seconds,
    }


def fill_peer_orders(reviews: list[str], seeds: int, args: argparse.Namespace) -> dict:
    """Run every missing peer run and append it to the peers file (--peers-file)."""
    kept = load_peer_orders(args.peers_file)
    args.peers_file.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tarsim-reproduce-") as tmp:
        for tool in args.peers:
            for review in reviews:
                for seed in range(seeds):
                    if (tool, review, seed) in kept:
                        continue
                    record = run_peer(tool, review, seed, Path(tmp), args)
                    kept[(tool, review, seed)] = record
                    with open(args.peers_file, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record) + "\n")
                    print(f"{tool} {review} seed {seed}: {len(record['order'])} judged in {record['seconds']:.1f} s")
    return kept


def wss95(labels: list[int], n: int) -> float | None:
    """WSS@95 as `tarsim metrics` (ASReview Insights) computes it, the order padded to N with the unscreened
    (non-relevant: every order runs to the last relevant record) records."""
    return wss(list(labels) + [0] * (n - len(labels)), 0.95)


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two review orders."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def run_tarsim_preset(preset: str, review: str, prior: list[int], features_cache: dict) -> tuple[list[int], Ledger]:
    """tarsim's preset from the peer's two prior rows (judged first, then the model is trained), to the last
    relevant record; its review order as rows and its ledger."""
    dataset = load_dataset(DATASETS / "srd" / review)
    docids = list(dataset.collection.docids)
    settings = apply_preset(preset, {"seeding": SeedingChoice("documents", tuple(docids[i] for i in prior))})
    config = ReviewConfig(**settings)
    key = (review, config.extractor)
    if key not in features_cache:
        features_cache[key] = review_features(dataset.collection, None, config.extractor, config.features)
    batch = review_topics(dataset, config, [review], None, features=features_cache[key])
    ledger = batch.ledgers[review]
    row_of = {docid: i for i, docid in enumerate(docids)}
    return [row_of[d] for d in ledger.docids], ledger


def confidence_interval(differences: list[float]) -> tuple[float, float]:
    """95% t interval of the mean of paired differences."""
    from scipy import stats

    values = np.asarray(differences, dtype=np.float64)
    if len(values) < 2 or np.all(values == values[0]):
        return float(values.mean()), float(values.mean())
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


def compare(pairs: list[dict], measure: str) -> dict:
    """Peer vs tarsim on one measure over (review, seed) pairs: means, paired difference with its 95% CI and
    the paired t and randomisation tests (tarsim.metrics.significance)."""
    usable = [p for p in pairs if p[f"peer_{measure}"] is not None and p[f"tarsim_{measure}"] is not None]
    peer = {f"{p['review']}/{p['seed']}": p[f"peer_{measure}"] for p in usable}
    ours = {f"{p['review']}/{p['seed']}": p[f"tarsim_{measure}"] for p in usable}
    tests = paired_tests(peer, ours) if len(usable) >= 2 else {}
    low, high = confidence_interval([ours[k] - peer[k] for k in peer]) if usable else (math.nan, math.nan)
    return {"pairs": len(usable), **tests, "ci_low": low, "ci_high": high}


def tarsim_half(kept: dict, reviews: list[str], seeds: int, presets: list[str], earlier: dict | None = None) -> dict:
    """Run each preset on every kept peer run; per pair: orders, measures, identity and common prefix (a pair in
    `earlier`, preset -> rows of an earlier run, is kept rather than run again)."""
    results: dict[str, list[dict]] = {}
    done = {(p, r["review"], r["seed"]): r for p, rows in (earlier or {}).items() for r in rows}
    for preset in presets:
        tool = PAIRS[preset]
        cache: dict = {}
        rows = []
        for review in reviews:
            cache.clear()
            for seed in range(seeds):
                peer = kept.get((tool, review, seed))
                if peer is None:
                    continue
                if (preset, review, seed) in done:
                    rows.append(done[(preset, review, seed)])
                    continue
                started = time.perf_counter()
                order, ledger = run_tarsim_preset(preset, review, peer["prior"], cache)
                seconds = time.perf_counter() - started
                dataset_n, relevant = ledger.header["collection_size"], ledger.header["relevant"]
                peer_ledger = peer_order_ledger(peer, review, ledger)
                # A peer labels its whole last batch before its stopper looks: compare up to its last relevant record.
                last = int(np.flatnonzero(np.asarray(peer_ledger.label) > 0)[-1]) + 1
                peer_order = peer["order"][:last]
                rows.append(
                    {
                        "review": review,
                        "seed": seed,
                        "identical": order == peer_order,
                        "common_prefix": common_prefix(order, peer_order),
                        "peer_judged": len(peer_order),
                        "tarsim_judged": len(order),
                        "peer_recall": recall_2r100(peer_ledger),
                        "tarsim_recall": recall_2r100(ledger),
                        "peer_wss95": wss95(list(peer_ledger.label), dataset_n),
                        "tarsim_wss95": wss95(list(ledger.truth > 0), dataset_n),
                        "relevant": relevant,
                        "seconds": seconds,
                    }
                )
                row = rows[-1]
                print(f"{preset} {review} seed {seed}: identical={row['identical']} prefix {row['common_prefix']}"
                      f"/{row['peer_judged']} in {seconds:.1f} s", flush=True)  # fmt: skip
        if rows:
            results[preset] = rows
    return results


def peer_order_ledger(peer: dict, review: str, ours: Ledger) -> Ledger:
    """The peer's order as a ledger (the collection's docids and grades are read from the tarsim run's data)."""
    dataset = load_dataset(DATASETS / "srd" / review)
    docids = list(dataset.collection.docids)
    grades = dict(dataset.qrels[review])
    order = [docids[row] for row in peer["order"]]
    return order_ledger(peer["tool"], review, order, grades, ours.header["relevant"], len(docids))


def summarise(results: dict) -> dict:
    """Per preset: means, paired comparisons on Recall@2R+100 and WSS@95, identical orders and common prefix."""
    summary = {}
    for preset, rows in results.items():
        summary[preset] = {
            "peer": PAIRS[preset],
            "pairs": len(rows),
            "identical_share": sum(r["identical"] for r in rows) / len(rows),
            "mean_common_prefix": float(np.mean([r["common_prefix"] for r in rows])),
            "mean_peer_judged": float(np.mean([r["peer_judged"] for r in rows])),
            "recall_2r100": compare(rows, "recall"),
            "wss95": compare(rows, "wss95"),
        }
    return summary


def best_versus_default(results: dict) -> dict | None:
    """tarsim's best preset (highest mean Recall@2R+100 on the pairs ASReview's default was run on) against
    ASReview's default on those pairs."""
    if "asreview-default" not in results:
        return None
    default = {(r["review"], r["seed"]): r["peer_recall"] for r in results["asreview-default"]}
    shared = {
        preset: {(r["review"], r["seed"]): r["tarsim_recall"] for r in rows if (r["review"], r["seed"]) in default}
        for preset, rows in results.items()
    }
    means = {p: float(np.mean(list(v.values()))) for p, v in shared.items() if len(v) == len(default)}
    best = max(means, key=means.get)
    rows = [{"review": k[0], "seed": k[1], "peer_recall": default[k], "tarsim_recall": v,
             "peer_wss95": None, "tarsim_wss95": None} for k, v in shared[best].items()]  # fmt: skip
    return {"best_preset": best, "mean_recall_by_preset": means, "vs_asreview_default": compare(rows, "recall")}


def format_report(results: dict, summary: dict) -> str:
    """Markdown tables: per preset and review (means over seeds), then the paired comparisons."""
    lines = []
    for preset, rows in results.items():
        lines += [f"### {preset} vs {PAIRS[preset]}", "",
                  "| review | pairs | identical | common prefix | peer R@2R+100 | tarsim R@2R+100 | peer WSS@95 "
                  "| tarsim WSS@95 |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for review in dict.fromkeys(r["review"] for r in rows):
            mine = [r for r in rows if r["review"] == review]

            def mean(key: str, mine: list[dict] = mine) -> str:
                values = [r[key] for r in mine if r[key] is not None]
                return f"{np.mean(values):.3f}" if values else "n/a"

            lines.append(
                f"| {review} | {len(mine)} | {sum(r['identical'] for r in mine)}/{len(mine)} | "
                f"{np.mean([r['common_prefix'] for r in mine]):.0f}/{np.mean([r['peer_judged'] for r in mine]):.0f} | "
                f"{mean('peer_recall')} | {mean('tarsim_recall')} | {mean('peer_wss95')} | {mean('tarsim_wss95')} |"
            )
        s = summary[preset]
        lines += [""]
        for measure, label in (("recall_2r100", "Recall@2R+100"), ("wss95", "WSS@95")):
            c = s[measure]
            if "mean_a" in c:
                lines.append(
                    f"- {label}: peer {c['mean_a']:.4f}, tarsim {c['mean_b']:.4f}, difference {c['diff']:+.4f} "
                    f"(95% CI {c['ci_low']:+.4f} to {c['ci_high']:+.4f}), paired t p = {c['p_t']:.3g}, "
                    f"randomisation p = {c['p_rand']:.3g}, {c['pairs']} pairs"
                )
        lines += [f"- identical review orders: {s['identical_share']:.0%} of {s['pairs']} pairs; mean common prefix "
                  f"{s['mean_common_prefix']:.0f} of {s['mean_peer_judged']:.0f} judgments", ""]  # fmt: skip
    return "\n".join(lines)


def write_results(results: dict) -> str:
    """Write results/reproduce_peers/tarsim.json (every pair, the summaries) and report.md; return the report."""
    summary = summarise(results)
    document = {"summary": summary, "best_vs_asreview_default": best_versus_default(results), "pairs": results}
    RESULTS.mkdir(parents=True, exist_ok=True)
    with atomic_write(RESULTS / "tarsim.json") as handle:
        json.dump(document, handle, indent=1)
    report = format_report(results, summary)
    best = document["best_vs_asreview_default"]
    if best and "mean_a" in best["vs_asreview_default"]:
        c = best["vs_asreview_default"]
        report += (f"\nBest tarsim preset ({best['best_preset']}) vs ASReview's default on Recall@2R+100: "
                   f"{c['mean_b']:.4f} vs {c['mean_a']:.4f} ({c['diff']:+.4f}, "
                   f"randomisation p = {c['p_rand']:.3g})\n")  # fmt: skip
    with atomic_write(RESULTS / "report.md") as handle:
        handle.write(report + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers-python", help="python of the environment where asreview and tarexp are installed")
    parser.add_argument("--seeds", type=int, default=5, help="prior seeds 0..N-1 (default 5)")
    parser.add_argument("--reviews", nargs="+", default=SRD_REVIEWS, help="srd reviews (default: all 14)")
    parser.add_argument("--peers", nargs="+", default=list(PEER_TOOLS), choices=PEER_TOOLS)
    parser.add_argument("--peers-only", action="store_true", help="only run the missing peer runs")
    parser.add_argument(
        "--peers-file", type=Path, default=PEERS_FILE, help="the kept peer runs (read by the tarsim half)"
    )
    parser.add_argument("--presets", nargs="+", default=list(PAIRS), choices=list(PAIRS), help="tarsim presets to run")
    parser.add_argument("--fresh", action="store_true", help="re-run pairs kept in results/.../tarsim.json")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per peer run before it is killed")
    args = parser.parse_args(argv)
    os.environ.update({name: "1" for name in BLAS_THREAD_VARIABLES})  # the same limit for every tool
    if args.peers_python:
        fill_peer_orders(args.reviews, args.seeds, args)
    if args.peers_only:
        return 0
    kept = load_peer_orders(args.peers_file)
    if not kept:
        print(f"no peer runs in {args.peers_file}: run with --peers-python first", file=sys.stderr)
        return 1
    saved = RESULTS / "tarsim.json"  # presets not run this time keep their earlier results
    earlier = json.loads(saved.read_text())["pairs"] if saved.exists() and not args.fresh else {}
    results = {preset: rows for preset, rows in earlier.items() if preset not in args.presets}
    for preset in args.presets:  # the results files are rewritten after each preset: a long run keeps its part
        results.update(tarsim_half(kept, args.reviews, args.seeds, [preset], earlier))
        report = write_results(results)
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
