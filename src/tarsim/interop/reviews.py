"""Any review input read as a ledger by what it is: an ASReview project (.asreview), a tarsim ledger, or an order
file of another tool's screening order."""

from __future__ import annotations

from pathlib import Path

from tarsim.data.ledger import Ledger, read_ledger
from tarsim.data.lines import PathLike, iter_lines
from tarsim.data.qrels import Qrels
from tarsim.interop.asreview_project import read_asreview_project
from tarsim.interop.order import read_order


def read_review(path: PathLike, qrels: Qrels | None = None) -> Ledger:
    """Any review input as a ledger: an ASReview project (.asreview), a tarsim ledger, or an order file."""
    path = Path(path)
    if path.suffix == ".asreview":
        return read_asreview_project(path)
    if path.suffix == ".jsonl" or _starts_like_json(path):  # a ledger, even a damaged one (its reader says why)
        return read_ledger(path)
    return read_order(path, qrels)


def _starts_like_json(path: Path) -> bool:
    for _, line in iter_lines(path):
        return line.lstrip().startswith("{")
    return False
