"""The PD paper's measures and those of the release code's evaluator, computed on a tarsim run.

The paper (Stammbach et al. 2026) reports recall@5 and recall@1 as the share of queries with at least one gold
paragraph in the top k (a hit rate). The release code scores with sentence-transformers'
`InformationRetrievalEvaluator`, whose `recall@k` is something else: the share of a query's gold paragraphs in the
top k, averaged over queries. The two agree only for queries with one gold paragraph, so they are named apart here:
`Hit@k` (the paper's recall@k, the evaluator's `accuracy@k`) and `ST-Recall@k` (the evaluator's `recall@k`).

Definitions, read from the evaluator's source (`compute_metrics`) and written anew here (binary relevance):
- only queries with at least one relevant document are evaluated, and every mean is over those queries;
- a query's ranking is its documents by score, highest first (ties: the run's listing order);
- accuracy@k: 1 if a relevant document is in the top k; precision@k: relevant in the top k / k;
  recall@k: relevant in the top k / number relevant;
- MRR@k: 1 / rank of the first relevant document in the top k (0 if none);
- nDCG@k: sum over the top k of rel_i / log2(i + 1) (i from 1), divided by the same sum for a ranking of all the
  relevant documents first (so the ideal counts min(k, number relevant) ones);
- MAP@k: the sum, over the relevant documents in the top k, of the precision at their rank, divided by
  min(k, number relevant) (trec_eval divides by the number relevant: they differ when more than k are relevant).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tarsim.data import Qrels, Run

FAMILIES = ("Hit", "ST-Precision", "ST-Recall", "MRR", "nDCG", "MAP")
"""Hit is the paper's recall (the evaluator's accuracy); the ST- names are the evaluator's precision and recall."""


@dataclass(frozen=True)
class EvaluatorCutoffs:
    """The cut-offs the evaluator is asked for (its defaults; the PD release adds nDCG@5)."""

    accuracy: tuple[int, ...] = (1, 3, 5, 10)
    precision_recall: tuple[int, ...] = (1, 3, 5, 10)
    mrr: tuple[int, ...] = (10,)
    ndcg: tuple[int, ...] = (10,)
    map: tuple[int, ...] = (100,)

    def names(self) -> list[str]:
        """The measure names, in the evaluator's reporting order."""
        return [
            *(f"Hit@{k}" for k in self.accuracy),
            *(f"ST-{family}@{k}" for k in self.precision_recall for family in ("Precision", "Recall")),
            *(f"MRR@{k}" for k in self.mrr),
            *(f"nDCG@{k}" for k in self.ndcg),
            *(f"MAP@{k}" for k in self.map),
        ]


PD_RELEASE = EvaluatorCutoffs(ndcg=(5, 10))
"""What the PD release's `retrieval_experiments.py` asks for (`ndcg_at_k=[5, 10]`, the other defaults)."""


def ranking(scores: Mapping[str, float]) -> list[str]:
    """Document ids by score, highest first; ties keep the run's listing order (a stable sort)."""
    return sorted(scores, key=lambda docid: -scores[docid])


def dcg(gains: Sequence[int]) -> float:
    """sum of gain_i / log2(i + 1), i from 1."""
    return math.fsum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, 1))


def query_measures(ranked: Sequence[str], relevant: set[str], cutoffs: EvaluatorCutoffs) -> dict[str, float]:
    """Every measure of one query with at least one relevant document."""
    gains = [1 if docid in relevant else 0 for docid in ranked]
    values: dict[str, float] = {}
    for k in cutoffs.accuracy:
        values[f"Hit@{k}"] = float(any(gains[:k]))
    for k in cutoffs.precision_recall:
        found = sum(gains[:k])
        values[f"ST-Precision@{k}"] = found / k
        values[f"ST-Recall@{k}"] = found / len(relevant)
    for k in cutoffs.mrr:
        first = next((rank for rank, gain in enumerate(gains[:k], 1) if gain), None)
        values[f"MRR@{k}"] = 1.0 / first if first else 0.0
    for k in cutoffs.ndcg:
        values[f"nDCG@{k}"] = dcg(gains[:k]) / dcg([1] * min(k, len(relevant)))
    for k in cutoffs.map:
        found, total = 0, 0.0
        for rank, gain in enumerate(gains[:k], 1):
            if gain:
                found += 1
                total += found / rank
        values[f"MAP@{k}"] = total / min(k, len(relevant))
    return values


def evaluator_per_query(
    qrels: Qrels, run: Run, cutoffs: EvaluatorCutoffs = PD_RELEASE, topics: Iterable[str] | None = None
) -> dict[str, dict[str, float]]:
    """Each evaluated query's measures: the queries of `topics` (default: the qrels') with a relevant document;
    a query the run does not list scores 0 everywhere."""
    per_query = {}
    for topic in qrels if topics is None else topics:
        relevant = {docid for docid, grade in qrels.get(topic, {}).items() if grade > 0}
        if relevant:
            per_query[topic] = query_measures(ranking(run.get(topic, {})), relevant, cutoffs)
    return per_query


def evaluator_means(
    qrels: Qrels, run: Run, cutoffs: EvaluatorCutoffs = PD_RELEASE, topics: Iterable[str] | None = None
) -> dict[str, float]:
    """The evaluator's figures: each measure's mean over the evaluated queries (0 for every measure if none)."""
    per_query = evaluator_per_query(qrels, run, cutoffs, topics)
    count = len(per_query)
    return {
        name: (math.fsum(values[name] for values in per_query.values()) / count if count else 0.0)
        for name in cutoffs.names()
    }
