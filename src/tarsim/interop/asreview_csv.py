"""Import ASReview-style screening CSV files (kept for callers; the reader is tarsim.interop.screening)."""

from __future__ import annotations

from tarsim.data.collection import Collection
from tarsim.data.lines import PathLike
from tarsim.data.qrels import Qrels
from tarsim.interop.screening import read_screening_file


def read_asreview_csv(path: PathLike, topic: str | None = None) -> tuple[Collection, Qrels]:
    """Read a screening file into a collection and qrels for one topic (default: the file's stem).

    Every record must be labelled 0 or 1; records without `record_id` are numbered from 0 in file order.
    """
    screening = read_screening_file(path, topic)
    return screening.collection, screening.qrels
