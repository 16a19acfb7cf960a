"""Issue 3's verification table: every feedback strategy on the shared srd reviews and the Reuters categories
with at least 20 relevant stories; mean Recall@E at the aR+b grid under E_judge and E_sent.

    python benchmarks/simulate_strategies.py [--jobs 2] [--oracle classifier] [--out benchmarks/results/strategies]

Writes <out>/recall_at_effort.csv (every topic) and <out>/strategies.md (the mean tables), and prints them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

from extras import require_extras  # same folder
from tarsim.datasets import load_dataset
from tarsim.features.cache import cached_features
from tarsim.reporting import recall_at_effort_frame
from tarsim.simulator import STRATEGIES, review_topics, strategy_config

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def review_collection(
    directory: Path, topics: list[str] | None, strategy: str, oracle: str, cache: Path
) -> pd.DataFrame:
    """Review the topics of one collection under one strategy; return the Recall@E rows (judge and sent)."""
    dataset = load_dataset(directory)
    features = cached_features(dataset.collection, cache)
    config = strategy_config(strategy, sentence_oracle=oracle)
    batch = review_topics(dataset, config, topics, features=features)
    frame = recall_at_effort_frame(batch.ledgers.values(), ("judge", "sent"))
    return frame.assign(collection=directory.name)


def reuters_topics(minimum: int = 20) -> list[str]:
    dataset = load_dataset(SHARED / "reuters21578")
    return [t for t in dataset.topics if sum(g > 0 for g in dataset.qrels.get(t, {}).values()) >= minimum]


def mean_table(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.assign(budget=[f"{a:g}R+{b:g}" for a, b in zip(frame["a"], frame["b"], strict=True)])
    order = list(dict.fromkeys(frame["budget"]))
    table = frame.pivot_table(index=["effort_model", "budget"], columns="strategy", values="recall", aggfunc="mean")
    return table.reindex([(m, b) for m in ("judge", "sent") for b in order])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--oracle", default="classifier", help="sentence oracle: inherit or classifier")
    parser.add_argument("--out", default="benchmarks/results/strategies")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tarsim-feature-cache"))
    parser.add_argument("--quick", action="store_true", help="3 srd reviews and 3 Reuters topics only")
    args = parser.parse_args()
    require_extras(__file__, "tabulate")  # before any work
    out = Path(args.out)
    cache = Path(args.cache)
    srd = sorted(p for p in (SHARED / "srd").iterdir() if p.is_dir())
    topics = reuters_topics()
    if args.quick:
        srd, topics = srd[:3], ["acq", "coffee", "gold"]
    # Build each collection's features once, before fanning out (workers read the cache).
    for directory in [*srd, SHARED / "reuters21578"]:
        cached_features(load_dataset(directory).collection, cache)
    jobs = [(d, None, s) for d in srd for s in STRATEGIES]
    jobs += [(SHARED / "reuters21578", [t], s) for t in topics for s in STRATEGIES]
    start = time.perf_counter()
    frames = Parallel(n_jobs=args.jobs)(delayed(review_collection)(d, t, s, args.oracle, cache) for d, t, s in jobs)
    elapsed = time.perf_counter() - start
    frame = pd.concat(frames, ignore_index=True)
    frame["group"] = ["reuters" if c == "reuters21578" else "srd" for c in frame["collection"]]
    out.mkdir(parents=True, exist_ok=True)
    frame.sort_values(["group", "collection", "topic", "strategy", "effort_model", "a", "b"]).to_csv(
        out / "recall_at_effort.csv", index=False
    )
    parts = [
        f"# Mean Recall@E per feedback strategy (sentence oracle: {args.oracle})\n",
        "Strategies are named shown/trained. Each review runs to 100% recall with BMI defaults (seed 0).",
        f"Command: `python benchmarks/simulate_strategies.py --jobs {args.jobs} --oracle {args.oracle}`;"
        f" {len(jobs)} jobs in {elapsed:.0f} s on 2 cores.\n",
    ]
    for group, label in (
        ("srd", f"{frame[frame.group == 'srd'].collection.nunique()} srd reviews"),
        ("reuters", f"{frame[frame.group == 'reuters'].topic.nunique()} Reuters-21578 categories (>= 20 relevant)"),
    ):
        table = mean_table(frame[frame.group == group])
        parts.append(f"## {label}\n")
        parts.append(table.reset_index().to_markdown(index=False, floatfmt=".3f") + "\n")
    text = "\n".join(parts)
    (out / "strategies.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
