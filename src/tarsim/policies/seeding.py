"""How a review starts: the topic query as a synthetic relevant document, given seed documents, random documents,
or priors (ASReview's way: given records or records drawn at random from each class, judged first)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tarsim.errors import ConfigError

SEEDING_CHOICES = ("query", "documents", "random", "priors")
DEFAULT_PRIORS = (1, 1)
"""Relevant and non-relevant records drawn when `priors` seeding is chosen without counts or records (the
convention of ASReview simulation studies; ASReview 3's own CLI default is no priors and a top-down start)."""


@dataclass(frozen=True)
class SeedingChoice:
    """`query`: the topic text is a relevant training example (BMI); `documents`: the given docids are
    judged first; `random`: random documents are judged until the first relevant one is found; `priors`: the
    prior records (n_prior_included/n_prior_excluded drawn at random, or prior_idx) are judged first."""

    kind: str = "query"
    docids: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in SEEDING_CHOICES:
            raise ConfigError(f"seeding {self.kind!r} unknown; accepted: {', '.join(SEEDING_CHOICES)}")
        if self.kind == "documents" and not self.docids:
            raise ConfigError("seeding 'documents' needs at least one seed docid")
        if self.kind == "priors" and self.docids:
            raise ConfigError("seeding 'priors' takes no seed docids (give prior_idx: row numbers)")


def query_text(topic: str, query: str) -> str:
    """The topic's query text for `query` seeding; an empty query cannot seed a review (file collections)."""
    if not query.strip():
        raise ConfigError(f"topic {topic!r} has no query text: use --seeding random or documents, or priors")
    return query


def check_prior_counts(relevant: np.ndarray, n_included: int, n_excluded: int, topic: str = "") -> None:
    """Refuse more priors of a class than it has records, without drawing (a run checks every topic first)."""
    found = int(np.count_nonzero(relevant))
    sides = (
        ("included", n_included, found, "relevant"),
        ("excluded", n_excluded, np.size(relevant) - found, "non-relevant"),
    )
    for side, count, size, what in sides:
        if count > size:
            where = f" of topic {topic!r}" if topic else ""
            raise ConfigError(f"n_prior_{side} {count} is more than the {size} {what} records{where}")


def draw_priors(relevant: np.ndarray, n_included: int, n_excluded: int, seed: int, topic: str = "") -> list[int]:
    """Rows of the random priors, as `asreview simulate` draws them: `n_included` of the relevant rows with
    RandomState(seed).choice(rows, n, replace=False), then `n_excluded` of the others with a fresh RandomState(seed).
    `relevant` is a boolean per row of the collection, in its document order (ASReview's record order)."""
    check_prior_counts(relevant, n_included, n_excluded, topic)
    rows: list[int] = []
    for count, pool in ((n_included, np.flatnonzero(relevant)), (n_excluded, np.flatnonzero(~relevant))):
        if count > 0:
            rows.extend(int(row) for row in np.random.RandomState(seed).choice(pool, count, replace=False))
    return rows


def check_prior_idx(prior_idx: Sequence[int], size: int, left_out: Sequence[int] = ()) -> list[int]:
    """The positions in the collection of the given prior rows, in their order. A row is a record's row number from 0
    in its file (ASReview's --prior-idx); `left_out`: the sorted rows of unlabelled records left out of the
    collection (--unlabelled skip), which are not positions and cannot be priors."""
    rows = size + len(left_out)
    positions = []
    for row in prior_idx:
        if not 0 <= row < rows:
            raise ConfigError(f"prior_idx {row} is out of range: the collection has {rows} records (rows 0-{rows - 1})")
        before = bisect.bisect_left(left_out, row)
        if before < len(left_out) and left_out[before] == row:
            raise ConfigError(f"prior_idx {row} is an unlabelled record, left out by --unlabelled skip")
        positions.append(int(row) - before)
    return positions
