"""Term counts of texts over their sorted vocabulary: what scikit-learn's CountVectorizer(analyzer=...) gives.

Feature builds count in forked workers. Counting with CountVectorizer made every build import scikit-learn
before forking (about a second on the 2-core machine), so the parent could not import it while the workers
counted. This counter needs only numpy and scipy. tests/text/test_term_counts.py checks it against CountVectorizer,
matrix and vocabulary, on real collections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import scipy.sparse as sp


def count_terms(
    texts: Iterable[str],
    analyse: Callable[[str], list[str]],
    map_words: Callable[[list[str]], list[str]] | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Counts (texts x terms, int32, canonical CSR) of each text's terms and the terms in sorted order, as
    `CountVectorizer(analyzer=analyse, dtype=np.int32).fit_transform(texts)` and its `get_feature_names_out()`
    (no terms at all: a matrix of no columns and an empty vocabulary, where CountVectorizer raises).

    map_words: the analyser's last step, given apart: a text's terms are then `[map_words([w])[0] for w in
    analyse(text)]`, and map_words is called once, on the distinct words (it must map each word on its own)."""
    index: dict[str, int] = {}  # term -> column in order of first occurrence
    columns: list[int] = []
    ends = [0]
    column_of = index.__getitem__
    for text in texts:
        terms = analyse(text)
        if not isinstance(terms, (list, tuple)):  # any iterable, as CountVectorizer takes: read it once
            terms = list(terms)
        try:
            known = list(map(column_of, terms))  # most texts add no new term: one C-level pass
        except KeyError:
            for term in terms:  # setdefault's default is evaluated first: a new term takes the next column
                index.setdefault(term, len(index))
            known = list(map(column_of, terms))
        columns.extend(known)
        ends.append(len(columns))
    if map_words is not None:  # words -> terms: the columns of words with one term are summed below
        words = list(index)
        terms_of_words = map_words(words)
        if len(terms_of_words) != len(words):
            raise ValueError(f"map_words gave {len(terms_of_words)} terms for {len(words)} words")
        index = {}
        word_column = np.fromiter(
            (index.setdefault(term, len(index)) for term in terms_of_words), dtype=np.int64, count=len(words)
        )
        columns = word_column[np.asarray(columns, dtype=np.int64)] if columns else []
    ordered = sorted(index)  # CountVectorizer sorts its vocabulary the same way (str order)
    rank = np.empty(len(index), dtype=np.int32)  # column of first occurrence -> column in sorted order
    rank[np.fromiter((index[term] for term in ordered), dtype=np.int64, count=len(ordered))] = np.arange(len(ordered))
    counts = sp.csr_matrix(  # one entry per token, rows as given; summing makes it canonical (sorted, unique)
        (np.ones(len(columns), dtype=np.int32), rank[np.asarray(columns, dtype=np.int32)], np.asarray(ends)),
        shape=(len(ends) - 1, len(index)),
    )
    counts.sum_duplicates()
    return counts, np.array(ordered, dtype=object)
