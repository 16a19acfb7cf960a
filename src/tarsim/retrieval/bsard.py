"""BSARD's own BM25 (the `bsard` variant), as the official code scores it, so the paper's BM25 row can be rerun.

The official code (maastrichtlawtech/bsard, scripts/experiments/models/lexical_models.py, `BM25Retriever`;
bBSARD reuses it) differs from bm25s's Lucene BM25 in four ways, all kept here:
- idf = log10((N - df + 0.5) / (df + 0.5)) (Robertson's, base 10: negative for terms in over half the articles);
- df counts the articles whose text *contains the term as a substring* (`t in doc` on the article string), not
  the articles that have it as a token;
- tf, document length and average length count whitespace tokens of the preprocessed text; a query term counts
  once per occurrence in the query;
- every article is scored and the top `depth` are listed whatever their score (0 or negative included), ties in
  corpus order (Python's stable sort); tied scores are lowered by float32 ulps (strictly_decreasing) so that
  evaluating the run in trec_eval's order (float32 scores, ties by docid) keeps that order.
Preprocessing is the analyzer's (tarsim.retrieval.analysis); the official code lemmatises with spaCy instead.
Written from that description, not copied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from tarsim.data import Run
from tarsim.errors import ConfigError
from tarsim.retrieval.analysis import Analyzer
from tarsim.retrieval.bm25 import check_bm25_parameters


def substring_document_frequency(term: str, texts: str, starts: np.ndarray) -> int:
    """How many documents contain `term` as a substring; `texts` is every document joined by NUL, `starts` the
    offset where each document begins (plus the end)."""
    count, position = 0, texts.find(term)
    while position != -1:
        document = int(np.searchsorted(starts, position, side="right")) - 1
        count += 1
        position = texts.find(term, int(starts[document + 1]))  # the next document
    return count


class BsardBM25:
    """The official BSARD BM25 over one analysed corpus (k1, b as given; the paper's are 1.0 and 0.6)."""

    def __init__(self, docids: Sequence[str], texts: Sequence[str], analyzer: Analyzer, k1: float, b: float) -> None:
        check_bm25_parameters(k1, b)
        if not docids:
            raise ConfigError("cannot index an empty collection")
        self.docids, self.analyzer, self.k1, self.b = list(docids), analyzer, k1, b
        documents = [" ".join(tokens) for tokens in analyzer.tokenize(texts)]
        self.vocabulary: dict[str, int] = {}
        rows, columns = [], []
        for row, document in enumerate(documents):
            for word in document.split():
                rows.append(row)
                columns.append(self.vocabulary.setdefault(word, len(self.vocabulary)))
        shape = (len(documents), max(len(self.vocabulary), 1))
        ones = np.ones(len(rows), dtype=np.float64)
        self.tf = sp.csc_matrix((ones, (rows, columns)), shape=shape)  # duplicates summed: term counts
        lengths = np.asarray(self.tf.sum(axis=1)).ravel()
        average = lengths.mean() if lengths.mean() > 0 else 1.0
        self.norm = k1 * (1 - b + b * lengths / average)
        self.joined = "\0".join(documents)
        self.starts = np.zeros(len(documents) + 1, dtype=np.int64)
        self.starts[1:] = np.cumsum([len(d) + 1 for d in documents])
        self._idf: dict[str, float] = {}

    def idf(self, term: str) -> float:
        """log10((N - df + 0.5) / (df + 0.5)) with df counted by substring, as the official code does."""
        if term not in self._idf:
            df = substring_document_frequency(term, self.joined, self.starts)
            n = len(self.docids)
            self._idf[term] = float(np.log10((n - df + 0.5) / (df + 0.5)))
        return self._idf[term]

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for one query text."""
        scores = np.zeros(len(self.docids))
        for term in " ".join(self.analyzer.tokenize([query])[0]).split():
            column = self.vocabulary.get(term)
            if column is None:  # tf is 0 in every document: adds nothing
                continue
            start, end = self.tf.indptr[column], self.tf.indptr[column + 1]
            rows, tf = self.tf.indices[start:end], self.tf.data[start:end]
            scores[rows] += self.idf(term) * tf * (self.k1 + 1) / (tf + self.norm[rows])
        return scores

    def search(self, queries: Mapping[str, str], depth: int = 500) -> Run:
        """The top `depth` documents of each query, every one listed (ties in corpus order)."""
        if depth < 1:
            raise ConfigError(f"depth must be >= 1, got {depth}")
        run: Run = {}
        for topic, text in queries.items():
            scores = self.scores(text)
            best = np.argsort(-scores, kind="stable")[:depth]
            run[topic] = dict(
                zip([self.docids[i] for i in best.tolist()], strictly_decreasing(scores[best]), strict=True)
            )
        return run


def strictly_decreasing(scores: np.ndarray) -> list[float]:
    """Non-increasing scores made strictly decreasing in single precision, each score that does not fall below the
    one before lowered to the next float32 below it. trec_eval and pytrec_eval compare scores as float32 and order
    ties by docid; separated so, the run keeps the listed (official, corpus) order in any of them."""
    single = scores.astype(np.float32)
    result = scores.astype(np.float64).tolist()
    for i in range(1, len(single)):
        if single[i] >= single[i - 1]:
            single[i] = np.nextafter(single[i - 1], np.float32(-np.inf))
            result[i] = float(single[i])
    return result
