"""BM25 retrieval with bm25s (the `legal` extra) over a tokenised corpus, with a per-query date filter and
trec_eval-ordered cuts.

The corpus is tokenised once (`PreparedCorpus`); an index for any (k1, b) is then a cheap bm25s build, which
is what makes the k1/b grid search affordable. Scoring is bm25s's (Lucene variant); this module only masks
candidates by date and picks the top `depth` documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tarsim.data import Run
from tarsim.errors import ConfigError, require
from tarsim.retrieval.analysis import Analyzer, drop_terms

if TYPE_CHECKING:
    import bm25s  # the legal extra: imported where an index is built (tarsim.errors.require)

DIRECTIONS = ("not_after", "not_before")


@dataclass(frozen=True)
class DateFilter:
    """Which candidates are dated compatibly with a query.

    `not_after`: a candidate may not be dated after the query (before it when `strict`);
    `not_before`: a candidate may not be dated before the query (after it when `strict`).
    A candidate or query without a date is never filtered.
    """

    direction: str
    strict: bool = False

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ConfigError(f"date filter direction must be one of {', '.join(DIRECTIONS)}, got {self.direction!r}")

    def allowed(self, doc_dates: np.ndarray, query_date: float) -> np.ndarray:
        """Boolean mask of the candidates compatible with `query_date` (NaN dates always pass)."""
        if math.isnan(query_date):
            return np.ones(len(doc_dates), dtype=bool)
        with np.errstate(invalid="ignore"):
            if self.direction == "not_after":
                ok = doc_dates < query_date if self.strict else doc_dates <= query_date
            else:
                ok = doc_dates > query_date if self.strict else doc_dates >= query_date
        return ok | np.isnan(doc_dates)


def check_bm25_parameters(k1: float, b: float, *, k1_name: str = "k1", b_name: str = "b") -> None:
    """Refuse a k1 or b that BM25 cannot honour (NaN or infinite k1 gives an empty or meaningless run)."""
    if not (math.isfinite(k1) and k1 >= 0):
        raise ConfigError(f"{k1_name} must be a finite number >= 0, got {k1!r}")
    if not (math.isfinite(b) and 0.0 <= b <= 1.0):
        raise ConfigError(f"{b_name} must be a number in [0, 1], got {b!r}")


class PreparedCorpus:
    """A corpus tokenised once by an analyzer: term ids per document, vocabulary and pruned low-IDF terms."""

    def __init__(self, docids: Sequence[str], texts: Sequence[str], analyzer: Analyzer) -> None:
        if len(docids) != len(texts):
            raise ValueError("docids and texts differ in length")
        if not docids:
            raise ConfigError("cannot index an empty collection")
        self.docids = list(docids)
        self.analyzer = analyzer
        tokens = analyzer.tokenize(texts)
        self.pruned = analyzer.pruned_terms(tokens)
        tokens = drop_terms(tokens, self.pruned)
        self.vocab: dict[str, int] = {}
        self.doc_term_ids: list[list[int]] = []
        for doc in tokens:
            ids = []
            for term in doc:
                term_id = self.vocab.get(term)
                if term_id is None:
                    term_id = self.vocab[term] = len(self.vocab)
                ids.append(term_id)
            self.doc_term_ids.append(ids)
        if not self.vocab:
            raise ConfigError("preprocessing left no term in any document: nothing to index")
        self.position = {docid: i for i, docid in enumerate(self.docids)}
        # rank of each docid in descending string order: trec_eval breaks score ties by docid descending
        order = sorted(range(len(self.docids)), key=self.docids.__getitem__, reverse=True)
        self.tie_rank = np.empty(len(self.docids), dtype=np.int64)
        self.tie_rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))

    def query_term_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Analyze queries like the corpus (same pruning) and map terms to ids, dropping unknown terms."""
        tokens = drop_terms(self.analyzer.tokenize(texts), self.pruned)
        return [[self.vocab[t] for t in doc if t in self.vocab] for doc in tokens]

    def index(self, k1: float, b: float) -> bm25s.BM25:
        """A bm25s index of this corpus for (k1, b)."""
        check_bm25_parameters(k1, b)
        model = require("bm25s", "legal", "BM25 retrieval").BM25(k1=k1, b=b, method="lucene")
        model.index((self.doc_term_ids, dict(self.vocab)), show_progress=False)
        return model


def top_documents(scores: np.ndarray, allowed: np.ndarray | None, depth: int, tie_rank: np.ndarray) -> np.ndarray:
    """Indices of the `depth` best documents with a positive score, cut as trec_eval would order them.

    Among documents tied at the cut-off score, those with the larger docid are kept, so the result is the
    prefix of the full ranking in trec_eval order (score descending, docid descending).
    """
    candidate = scores > 0
    if allowed is not None:
        candidate &= allowed
    index = np.flatnonzero(candidate)
    if len(index) <= depth:
        return index
    values = scores[index]
    threshold = np.partition(values, len(values) - depth)[len(values) - depth]
    above = index[values > threshold]
    tied = index[values == threshold]
    need = depth - len(above)
    tied = tied[np.argsort(tie_rank[tied], kind="stable")[:need]]
    return np.concatenate([above, tied])


def search(
    corpus: PreparedCorpus,
    queries: Mapping[str, str],
    *,
    k1: float,
    b: float,
    depth: int = 1000,
    date_filter: DateFilter | None = None,
    doc_dates: Mapping[str, float] | None = None,
    query_dates: Mapping[str, float] | None = None,
    exclude_self: bool = True,
    model: bm25s.BM25 | None = None,
    query_ids: Sequence[Sequence[int]] | None = None,
) -> Run:
    """Rank the corpus for each query with bm25s BM25 and return the top `depth` as a run.

    Only documents sharing a term with the query are returned. With `exclude_self`, a query whose topic id
    is also a docid never retrieves itself (document-to-document retrieval).
    """
    if depth < 1:
        raise ConfigError(f"depth must be >= 1, got {depth}")
    model = model or corpus.index(k1, b)
    topics = list(queries)
    term_ids = query_ids if query_ids is not None else corpus.query_term_ids([queries[t] for t in topics])
    dates = None
    if date_filter is not None:
        dates = np.array([float((doc_dates or {}).get(d, math.nan)) for d in corpus.docids], dtype=np.float64)
    run: Run = {}
    for topic, ids in zip(topics, term_ids, strict=True):
        if not ids:
            run[topic] = {}
            continue
        scores = model.get_scores_from_ids(ids)
        allowed = None
        if date_filter is not None and dates is not None:
            allowed = date_filter.allowed(dates, float((query_dates or {}).get(topic, math.nan)))
        if exclude_self and topic in corpus.position:
            allowed = np.ones(len(scores), dtype=bool) if allowed is None else allowed.copy()
            allowed[corpus.position[topic]] = False
        best = top_documents(scores, allowed, depth, corpus.tie_rank)
        run[topic] = {corpus.docids[i]: float(scores[i]) for i in best.tolist()}
    return run
