"""Scores in row blocks on threads (tarsim.learners.scoring) are the plain sparse product's floats, bit for bit."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from tarsim.learners import scoring
from tarsim.learners.scoring import linear_scores, row_blocks


def _matrix(rows: int, columns: int, seed: int) -> sp.csr_matrix:
    """A random float32 CSR matrix whose rows have 0 to 60 entries (a block of empty rows included)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 61, size=rows)
    lengths[rows // 3 : rows // 3 + 50] = 0  # rows with no entries, some at a block boundary
    lengths[-7:] = 0
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    indices = np.concatenate([np.sort(rng.choice(columns, n, replace=False)) for n in lengths]).astype(np.int32)
    data = (rng.standard_normal(int(indptr[-1])) * 1e3 ** rng.integers(-1, 2, size=int(indptr[-1]))).astype(np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(rows, columns))


@pytest.mark.slow
@pytest.mark.parametrize("threads", [2, 3, 4, 7, 64, 5000])
def test_blocks_give_the_plain_product_bit_for_bit(threads: int) -> None:
    matrix = _matrix(3000, 500, seed=threads)
    rng = np.random.default_rng(1)
    weights = (rng.standard_normal(500) * 10.0 ** rng.integers(-4, 4, size=500)).astype(np.float32)
    bias = np.float32(-0.37)
    plain = np.asarray(matrix @ weights).ravel() + bias
    blocked = linear_scores(matrix, weights, bias, threads=threads)
    assert blocked.dtype == np.float32
    assert np.array_equal(blocked, plain)
    assert np.array_equal(blocked.view(np.uint32), plain.view(np.uint32))  # the same bits, not just equal values


def test_blocks_cover_every_row_once_and_balance_the_entries() -> None:
    matrix = _matrix(3000, 500, seed=0)
    for count in (1, 2, 3, 8, 4000):
        blocks = row_blocks(matrix.indptr, count)
        assert blocks[0][0] == 0 and blocks[-1][1] == 3000
        assert all(a < b for a, b in blocks) and all(b == c for (_, b), (c, _) in itertools.pairwise(blocks))
        assert len(blocks) <= count
    two = row_blocks(matrix.indptr, 2)
    entries = [int(matrix.indptr[b] - matrix.indptr[a]) for a, b in two]
    assert abs(entries[0] - entries[1]) <= 60  # at most one row's entries apart


def _pools_started(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The thread pools linear_scores starts from now on (one entry each)."""
    started: list[dict] = []
    monkeypatch.setattr(scoring, "ThreadPoolExecutor", lambda **kw: started.append(kw) or ThreadPoolExecutor(**kw))
    return started


def test_small_or_other_inputs_take_the_plain_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below THREADED_ROWS, CSC matrices and mixed float types: the one plain product, no thread pool."""
    started = _pools_started(monkeypatch)
    matrix = _matrix(200, 100, seed=3)
    weights = np.linspace(-1, 1, 100, dtype=np.float32)
    expected = np.asarray(matrix @ weights).ravel() + np.float32(0.5)
    assert np.array_equal(linear_scores(matrix, weights, np.float32(0.5)), expected)  # below THREADED_ROWS
    assert np.array_equal(linear_scores(matrix.tocsc(), weights, np.float32(0.5), threads=2), expected)
    wide = weights.astype(np.float64)
    assert linear_scores(matrix, wide, np.float32(0.5), threads=2).dtype == np.float64  # mixed dtypes: plain
    wide_bias = np.float64(0.1)  # a float64 bias makes float64 scores, as the plain sum does
    assert np.array_equal(
        linear_scores(matrix, weights, wide_bias, threads=2), np.asarray(matrix @ weights) + wide_bias
    )
    empty = sp.csr_matrix((0, 100), dtype=np.float32)
    assert linear_scores(empty, weights, np.float32(0.5), threads=2).shape == (0,)
    assert started == []
    linear_scores(matrix, weights, np.float32(0.5), threads=2)
    assert len(started) == 1  # a float32 CSR matrix: blocks on threads


def test_a_pools_worker_scores_in_one_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a sweep's worker the other cores run other reviews: no threads, whatever the size."""
    matrix = _matrix(400, 100, seed=4)
    weights = np.linspace(-1, 1, 100, dtype=np.float32)
    monkeypatch.setattr(scoring, "THREADED_ROWS", 10)
    monkeypatch.setattr(scoring, "usable_cores", lambda: 2)
    started = _pools_started(monkeypatch)
    expected = np.asarray(matrix @ weights).ravel() + np.float32(0.5)
    assert np.array_equal(linear_scores(matrix, weights, np.float32(0.5)), expected)
    assert len(started) == 1  # the main process: threads
    monkeypatch.setattr(scoring, "is_main_process", lambda: False)
    assert np.array_equal(linear_scores(matrix, weights, np.float32(0.5)), expected)
    assert len(started) == 1  # a worker: none


@pytest.mark.slow
def test_is_main_process_is_false_in_a_pools_worker() -> None:
    from joblib import Parallel, delayed

    from tarsim.runtime.pools import is_main_process

    assert is_main_process()
    assert Parallel(n_jobs=2, backend="loky")(delayed(is_main_process)() for _ in range(2)) == [False, False]


def test_a_nan_feature_is_an_error_not_nan_scores() -> None:
    """scikit-learn's finite check stays on: a plugin extractor's NaN must stop the review, not rank by NaN."""
    from tarsim.learners.named import fit_and_score, make_learner

    matrix = _matrix(60, 100, seed=6).astype(np.float64)
    matrix.data[3] = np.nan
    labels = np.arange(60) % 2
    with pytest.raises(ValueError, match="NaN"):
        fit_and_score(make_learner("bmi"), matrix, labels, matrix)
