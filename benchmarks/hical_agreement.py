"""Does HiCAL's learner (tarsim's `pegasos`) rank like tarsim's default `bmi` (liblinear) learner, and at what cost?

    python benchmarks/hical_agreement.py [--srd N] [--reuters N] [--out benchmarks/results/hical]

For each topic (the N smallest srd reviews; N Reuters categories with 50 to 300 relevant stories, by name):
1. Same training set, two fits: the topic's query (relevant), the first 100 documents the default review
   judged (their qrels labels) and 100 presumed non-relevant documents (seeded); both learners rank every
   document; Spearman's rho of the two score vectors (scipy.stats.spearmanr), the overlap of their top 100,
   and the seconds per fit (best of 3 after a warm-up fit, so numba's compilation is not counted).
2. Full reviews, one per learner (same seed, BMI otherwise, stopped at 4R+1000 judgments): Recall@E at E = aR+b.
Writes OUT/agreement.csv (per topic), OUT/recall_at_effort.csv and OUT/hical_agreement.md, and prints the tables.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.stats import spearmanr

from extras import require_extras  # same folder
from tarsim.data.atomic import atomic_write
from tarsim.datasets import load_dataset
from tarsim.features.cache import cached_features
from tarsim.learners.named import fit_and_score, make_learner
from tarsim.reporting import recall_at_effort_frame
from tarsim.simulator import ReviewConfig, review_topics

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
LEARNERS = ("bmi", "pegasos")
TRAINING_JUDGED = 100
PRESUMED = 100
TOP = 100


def timed_scores(name: str, X: sp.csr_matrix, y: np.ndarray, target: sp.csr_matrix) -> tuple[np.ndarray, float]:
    """Scores of every document after fitting the named learner; the best of 3 fit-and-score times."""
    estimator = make_learner(name, random_state=0)
    scores = fit_and_score(estimator, X, y, target)[0]  # warm-up (numba compiles the pegasos loop once)
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        scores = fit_and_score(estimator, X, y, target)[0]
        best = min(best, time.perf_counter() - start)
    return scores, best


def agreement(collection: str, dataset, features, ledger, topic: str) -> dict:
    """Spearman, top-100 overlap and fit times of the two learners on one training set."""
    index = {docid: i for i, docid in enumerate(dataset.collection.docids)}
    judged = [index[d] for d in ledger.docids[:TRAINING_JUDGED]]
    relevant = dataset.qrels.get(topic, {})
    presumed = np.random.default_rng(0).choice(features.n_documents, PRESUMED, replace=False)
    X = sp.vstack(
        [features.vectorise(dataset.topics[topic]), features.documents[judged], features.documents[presumed]],
        format="csr",
    )
    y = np.array([1] + [int(relevant.get(dataset.collection.docids[i], 0) > 0) for i in judged] + [0] * PRESUMED)
    scores, seconds = {}, {}
    for name in LEARNERS:
        scores[name], seconds[name] = timed_scores(name, X, y, features.documents)
    tops = [set(np.argsort(-scores[name], kind="stable")[:TOP].tolist()) for name in LEARNERS]
    return {
        "collection": collection,
        "topic": topic,
        "documents": features.n_documents,
        "R": sum(g > 0 for g in relevant.values()),
        "training": len(y),
        "spearman": float(spearmanr(scores["bmi"], scores["pegasos"]).statistic),
        "top100_overlap": len(tops[0] & tops[1]) / TOP,
        **{f"seconds_{name}": seconds[name] for name in LEARNERS},
    }


def study(collection: str, directory: Path, topics: list[str] | None, cache: Path) -> tuple[list[dict], pd.DataFrame]:
    """Both learners' full reviews and the agreement rows for one collection."""
    dataset = load_dataset(directory)
    features = cached_features(dataset.collection, cache)
    frames, rows, ledgers = [], [], {}
    for name in LEARNERS:
        config = ReviewConfig(learner=name, max_effort="4R+1000")
        start = time.perf_counter()
        batch = review_topics(dataset, config, topics, features=features)
        print(f"{collection}: {name} reviews of {len(batch.ledgers)} topics in {time.perf_counter() - start:.1f} s")
        ledgers[name] = batch.ledgers
        frame = recall_at_effort_frame(batch.ledgers.values(), ("judge",))
        frames.append(frame.assign(collection=collection, learner=name))
    for topic, ledger in ledgers["bmi"].items():
        rows.append(agreement(collection, dataset, features, ledger, topic))
    return rows, pd.concat(frames, ignore_index=True)


def reuters_topics(count: int) -> list[str]:
    """Reuters categories with 50 to 300 relevant stories, the first `count` by name."""
    dataset = load_dataset(SHARED / "reuters21578")
    sizes = {t: sum(g > 0 for g in dataset.qrels.get(t, {}).values()) for t in dataset.topics}
    return sorted(t for t, r in sizes.items() if 50 <= r <= 300)[:count]


def srd_reviews(count: int) -> list[Path]:
    """The `count` srd reviews with the fewest records."""
    reviews = [p for p in sorted((SHARED / "srd").iterdir()) if (p / "docs.jsonl").exists()]
    return sorted(reviews, key=lambda p: sum(1 for _ in (p / "docs.jsonl").open()))[:count]


def markdown(agreement_frame: pd.DataFrame, recall: pd.DataFrame) -> str:
    """The two tables of docs/fidelity.md's engine section."""
    columns = ["spearman", "top100_overlap", "seconds_bmi", "seconds_pegasos"]
    summary = agreement_frame.groupby("collection")[columns].mean().round(4)
    summary.insert(0, "topics", agreement_frame.groupby("collection").size())
    recall = recall.assign(budget=[f"{a:g}R+{b:g}" for a, b in zip(recall["a"], recall["b"], strict=True)])
    order = list(dict.fromkeys(recall["budget"]))
    table = recall.pivot_table(index="budget", columns=["collection", "learner"], values="recall", aggfunc="mean")
    table = table.reindex(order).round(3)
    table.columns = [f"{collection} {learner}" for collection, learner in table.columns]
    return (
        "Same training set (query + first 100 judged + 100 presumed non-relevant), mean over topics:\n\n"
        + summary.to_markdown()
        + "\n\nMean Recall@E (E_judge = aR+b) of full BMI reviews, one per learner:\n\n"
        + table.to_markdown()
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--srd", type=int, default=6, help="the N smallest srd reviews (default 6)")
    parser.add_argument("--reuters", type=int, default=4, help="N Reuters categories with 50-300 relevant (4)")
    parser.add_argument("--out", default="benchmarks/results/hical")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tarsim-feature-cache"))
    args = parser.parse_args()
    require_extras(__file__, "tabulate")  # before any work
    cache, out = Path(args.cache), Path(args.out)
    cache.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    rows, frames = [], []
    for review in srd_reviews(args.srd):
        more, frame = study(f"srd/{review.name}", review, None, cache)
        rows += more
        frames.append(frame.assign(collection="srd"))
    if args.reuters:
        more, frame = study("reuters21578", SHARED / "reuters21578", reuters_topics(args.reuters), cache)
        rows += more
        frames.append(frame)
    agreement_frame = pd.DataFrame(rows)
    agreement_frame["group"] = agreement_frame["collection"].str.split("/").str[0]
    recall = pd.concat(frames, ignore_index=True)
    text = markdown(agreement_frame.assign(collection=agreement_frame["group"]), recall)
    with atomic_write(out / "agreement.csv") as handle:
        agreement_frame.to_csv(handle, index=False)
    with atomic_write(out / "recall_at_effort.csv") as handle:
        recall.to_csv(handle, index=False)
    with atomic_write(out / "hical_agreement.md") as handle:
        handle.write(text)
    print(agreement_frame.to_string(index=False))
    print(text)


if __name__ == "__main__":
    main()
