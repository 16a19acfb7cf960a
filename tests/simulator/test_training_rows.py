"""The training matrix grown in place (tarsim.simulator.training_rows) is the one vstack builds, round after round."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from tarsim.simulator.training_rows import DocumentTrainingRows


def _documents(rows: int, columns: int, seed: int) -> sp.csr_matrix:
    matrix = sp.random(rows, columns, density=0.05, format="csr", dtype=np.float32, random_state=seed)
    if rows > 5:  # an empty row
        matrix.data[matrix.indptr[5] : matrix.indptr[6]] = 0
        matrix.eliminate_zeros()
    return matrix


def _same(built: tuple[sp.csr_matrix, np.ndarray], expected_x: sp.csr_matrix, expected_y: np.ndarray) -> None:
    x, y = built
    assert x.shape == expected_x.shape and x.dtype == expected_x.dtype
    assert x.indices.dtype == expected_x.indices.dtype and x.indptr.dtype == expected_x.indptr.dtype
    assert np.array_equal(x.indptr, expected_x.indptr)
    assert np.array_equal(x.indices, expected_x.indices)
    assert np.array_equal(x.data, expected_x.data)
    assert y.dtype == expected_y.dtype and np.array_equal(y, expected_y)


def test_rounds_build_what_vstack_builds() -> None:
    documents = _documents(400, 60, seed=0)
    query = _documents(1, 60, seed=1)
    rng = np.random.default_rng(2)
    order = rng.permutation(400).tolist()
    for seed_row in (query, None):
        rows = DocumentTrainingRows(documents, seed_row)
        docs, labels, judged = [], [], 0
        for batch in (0, 1, 1, 2, 7, 0, 40, 150, 199):  # rounds with no new judgment included
            docs += order[judged : judged + batch]
            labels += rng.integers(0, 2, size=batch).tolist()
            judged += batch
            presumed = documents[rng.choice(400, size=30, replace=False)]
            parts = ([seed_row] if seed_row is not None else []) + ([documents[docs]] if docs else []) + [presumed]
            expected_y = np.concatenate(
                ([np.ones(1, np.int64)] if seed_row is not None else [])
                + [np.asarray(labels, dtype=np.int64), np.zeros(30, np.int64)]
            )
            _same(rows.build(docs, labels, presumed), sp.vstack(parts, format="csr"), expected_y)


def test_lists_not_grown_by_appending_are_left_to_the_caller() -> None:
    documents = _documents(50, 20, seed=3)
    rows = DocumentTrainingRows(documents, None)
    presumed = documents[[1, 2]]
    assert rows.build([4, 7], [1, 0], presumed) is not None
    assert rows.build([4, 8, 9], [1, 0, 0], presumed) is None  # an earlier judged document changed
    shrunk = DocumentTrainingRows(documents, None)
    assert shrunk.build([4, 7], [1, 0], presumed) is not None
    assert shrunk.build([4], [1], presumed) is None  # the judged list got shorter
    other = DocumentTrainingRows(documents, sp.csr_matrix(np.ones((1, 20))))  # float64 seed row: vstack upcasts
    assert other.build([1], [1], presumed) is None


@pytest.mark.slow
def test_a_review_writes_the_same_ledger_with_rows_held_in_place_or_stacked(tmp_path, monkeypatch) -> None:
    from tarsim import simulate
    from tarsim.simulator import training_rows

    original = training_rows.DocumentTrainingRows.build
    results = {"held": [], "stacked": []}

    def ledger(how: str) -> bytes:
        def build(self, *args):
            built = original(self, *args) if how == "held" else None
            results[how].append(built is not None)
            return built

        monkeypatch.setattr(training_rows.DocumentTrainingRows, "build", build)
        simulate(topic="T1", max_effort="2R", effort=("judge",), out=tmp_path / how)
        return next((tmp_path / how / "ledgers").glob("*.jsonl")).read_bytes()

    assert ledger("held") == ledger("stacked")
    assert all(results["held"]) and len(results["held"]) > 5  # every round held its rows in place
    assert len(results["stacked"]) == len(results["held"])  # the same rounds, each stacked instead
