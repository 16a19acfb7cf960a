"""Where tarsim's Recall@2R+100 falls short of ASReview's on the srd reviews: BMI defaults against the same
start as the peers (their prior records) and ASReview's fixed batches of 10.

    python benchmarks/recall_gap.py [--peers benchmarks/results/vs_peers/vs_peers.jsonl]

Reads ASReview's figures from a vs_peers.py JSON-lines file (the same priors: RandomState(0), one relevant and
one non-relevant record) and prints tarsim's Recall@2R+100 per review under four configurations.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from tarsim.data import load_dataset
from tarsim.features import cached_features
from tarsim.metrics import recall_at_effort
from tarsim.policies import SeedingChoice
from tarsim.simulator import ReviewConfig, review_topics
from vs_peers import peer_priors  # the same prior records as the side-by-side run (same folder)

SRD = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "srd"
RESULTS = Path(__file__).resolve().parent / "results" / "vs_peers" / "vs_peers.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, default=RESULTS)
    args = parser.parse_args()
    records = [json.loads(line) for line in args.peers.read_text().splitlines()]
    asreview = {
        r["dataset"].split(":", 1)[1]: r["recall"]["2R+100"]
        for r in records
        if r["tool"] == "asreview-logistic" and not r["failed"] and r["dataset"].startswith("srd:")
    }
    cache = Path(tempfile.gettempdir()) / "tarsim-feature-cache"
    labels = ["BMI", "BMI batch 10", "priors", "priors + batch 10", "ASReview logistic"]
    print(f"{'review':40} " + " ".join(f"{label:>17}" for label in labels))
    columns: dict[str, list[float]] = {label: [] for label in labels}
    for directory in sorted(p for p in SRD.iterdir() if p.is_dir() and p.name in asreview):
        dataset = load_dataset(directory)
        features = cached_features(dataset.collection, cache)
        docids = dataset.collection.docids
        relevant = np.array([dataset.qrels[directory.name].get(d, 0) > 0 for d in docids])
        priors = SeedingChoice("documents", tuple(docids[i] for i in peer_priors(relevant)))
        configs = [
            ReviewConfig(),
            ReviewConfig(batch="10"),
            ReviewConfig(seeding=priors),
            ReviewConfig(batch="10", seeding=priors),
        ]
        values = []
        for config in configs:
            ledger = review_topics(dataset, config, features=features).ledgers[directory.name]
            grid = {(row["a"], row["b"]): row["recall"] for row in recall_at_effort(ledger)}
            values.append(grid[(2, 100)])
        values.append(asreview[directory.name])
        for label, value in zip(labels, values, strict=True):
            columns[label].append(value)
        print(f"{directory.name:40} " + " ".join(f"{v:17.3f}" for v in values))
    print(f"{'mean':40} " + " ".join(f"{np.mean(columns[label]):17.3f}" for label in labels))


if __name__ == "__main__":
    main()
