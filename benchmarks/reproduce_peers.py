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
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from tarsim.data.ledger import Ledger
from tarsim.metrics.recall_effort import recall_at_effort
from vs_peers import BLAS_THREAD_VARIABLES, SRD_REVIEWS, prepare, run_asreview, run_tarexp

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


def load_peer_orders() -> dict[tuple[str, str, int], dict]:
    """(tool, review, seed) -> the kept peer run (prior rows, review order as rows, seconds)."""
    if not PEERS_FILE.exists():
        return {}
    records = [json.loads(line) for line in PEERS_FILE.read_text().splitlines() if line.strip()]
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
    """Run every missing peer run and append it to the results file."""
    kept = load_peer_orders()
    RESULTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tarsim-reproduce-") as tmp:
        for tool in args.peers:
            for review in reviews:
                for seed in range(seeds):
                    if (tool, review, seed) in kept:
                        continue
                    record = run_peer(tool, review, seed, Path(tmp), args)
                    kept[(tool, review, seed)] = record
                    with open(PEERS_FILE, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record) + "\n")
                    print(f"{tool} {review} seed {seed}: {len(record['order'])} judged in {record['seconds']:.1f} s")
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers-python", help="python of the environment where asreview and tarexp are installed")
    parser.add_argument("--seeds", type=int, default=5, help="prior seeds 0..N-1 (default 5)")
    parser.add_argument("--reviews", nargs="+", default=SRD_REVIEWS, help="srd reviews (default: all 14)")
    parser.add_argument("--peers", nargs="+", default=list(PEER_TOOLS), choices=PEER_TOOLS)
    parser.add_argument("--peers-only", action="store_true", help="only run the missing peer runs")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per peer run before it is killed")
    args = parser.parse_args(argv)
    os.environ.update({name: "1" for name in BLAS_THREAD_VARIABLES})  # the same limit for every tool
    if args.peers_python:
        fill_peer_orders(args.reviews, args.seeds, args)
    if args.peers_only:
        return 0
    print("tarsim half: see the presets (added with --preset)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
