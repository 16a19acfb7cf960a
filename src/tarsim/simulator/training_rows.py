"""The document-trained review's training matrix, grown in place: each round copies only its new rows.

A round trains on [seed query row, judged documents in judgment order, fresh presumed non-relevant rows]. Stacking
that anew each round copies every judged row again (hundreds of thousands late in a large review); here the judged
rows stay in buffers that grow by half, and only the presumed rows (a tail replaced every round) and the rows
judged since the last round are copied. The matrix handed to the learner has the same entries, in the same order,
with the same dtypes as `scipy.sparse.vstack` of the parts, so every fit and score is the same.

The judged list must only be appended to between rounds, as the review's TrainingSet does: a list that got shorter,
or whose last held document changed, falls back to stacking; an edit further back would not be noticed.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_INT32_MAX = np.iinfo(np.int32).max


def _grown(buffer: np.ndarray, needed: int) -> np.ndarray:
    """`buffer`, or a copy half as long again (at least) when it holds fewer than `needed` items.

    Half, not double: scipy's CSR constructor copies an array that fills under half of its buffer (`prune`).
    """
    if needed <= len(buffer):
        return buffer
    grown = np.empty(max(needed, len(buffer) * 3 // 2, 1024), dtype=buffer.dtype)
    grown[: len(buffer)] = buffer
    return grown


class GrowingRows:
    """CSR rows appended in place (amortised growth), with a tail that `truncate` drops again.

    Index arrays are int32 (what vstack gives, and what liblinear accepts); `fits` says whether more entries still
    fit them.
    """

    def __init__(self, columns: int, dtype: np.dtype) -> None:
        self.columns = columns
        self.dtype = np.dtype(dtype)
        self.data = np.empty(0, dtype=self.dtype)
        self.indices = np.empty(0, dtype=np.int32)
        self.indptr = np.zeros(1024, dtype=np.int32)
        self.rows = 0

    @property
    def nnz(self) -> int:
        return int(self.indptr[self.rows])

    def fits(self, matrix: sp.csr_matrix) -> bool:
        """Whether `matrix`'s rows can be appended (same columns and dtype, int32 indices still enough)."""
        return matrix.shape[1] == self.columns and matrix.dtype == self.dtype and self.nnz + matrix.nnz <= _INT32_MAX

    def append(self, matrix: sp.csr_matrix) -> None:
        """Append the rows of a CSR matrix (call `fits` first)."""
        rows, start, nnz = matrix.shape[0], self.nnz, matrix.nnz
        self.data = _grown(self.data, start + nnz)
        self.indices = _grown(self.indices, start + nnz)
        self.indptr = _grown(self.indptr, self.rows + rows + 1)
        self.data[start : start + nnz] = matrix.data[:nnz]
        self.indices[start : start + nnz] = matrix.indices[:nnz]
        self.indptr[self.rows + 1 : self.rows + rows + 1] = matrix.indptr[1:] - matrix.indptr[0] + start
        self.rows += rows

    def truncate(self, rows: int) -> None:
        """Drop every row after the first `rows`."""
        self.rows = min(rows, self.rows)

    def matrix(self) -> sp.csr_matrix:
        """The rows so far as a CSR matrix over the buffers (no copy: valid until the next append)."""
        nnz = self.nnz
        return sp.csr_matrix(
            (self.data[:nnz], self.indices[:nnz], self.indptr[: self.rows + 1]),
            shape=(self.rows, self.columns),
            copy=False,
        )


class DocumentTrainingRows:
    """[optional seed row, judged documents in order, presumed rows] for reviews that train on documents only."""

    def __init__(self, documents: sp.csr_matrix, seed_row: sp.csr_matrix | None) -> None:
        self.documents = documents
        self.rows = GrowingRows(documents.shape[1], documents.dtype)
        self.labels = np.empty(1024, dtype=np.int64)
        self.seeded = seed_row is not None
        self.usable = documents.format == "csr" and documents.indptr.dtype == np.int32
        if seed_row is not None:
            seed_row = sp.csr_matrix(seed_row)
            self.usable = self.usable and self.rows.fits(seed_row) and seed_row.indices.dtype == np.int32
            if self.usable:
                self.rows.append(seed_row)
                self.labels[0] = 1
        self.judged = 0  # judged documents held (rows after the seed row)
        self.last_doc = -1  # the last of them (a cheap check that the judged list only grew)

    def build(
        self, docs: list[int], doc_labels: list[int], presumed: sp.csr_matrix
    ) -> tuple[sp.csr_matrix, np.ndarray] | None:
        """The round's (X, y), or None when this review's rows cannot be held here (the caller stacks them)."""
        if not self.usable or len(docs) < self.judged or len(doc_labels) != len(docs):
            return None
        if self.judged and docs[self.judged - 1] != self.last_doc:  # not appended to since the last round
            self.usable = False
            return None
        base = int(self.seeded) + self.judged
        self.rows.truncate(base)
        new = self.documents[docs[self.judged :]] if len(docs) > self.judged else None
        for part in (new, presumed):
            if part is not None and not self.rows.fits(part):
                self.usable = False
                return None
        self.labels = _grown(self.labels, base + len(docs) - self.judged + presumed.shape[0])
        if new is not None:
            self.rows.append(new)
            self.labels[base : base + new.shape[0]] = doc_labels[self.judged :]
            self.judged = len(docs)
            self.last_doc = docs[-1]
        end = int(self.seeded) + self.judged
        self.rows.append(presumed)
        self.labels[end : end + presumed.shape[0]] = 0
        return self.rows.matrix(), self.labels[: end + presumed.shape[0]].copy()
