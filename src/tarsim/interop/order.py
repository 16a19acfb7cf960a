"""Plain review-order files (any tool's screening order) read as ledgers, and reading any review input by its kind.

Format: one record a line, `docid label` in review order (whitespace separated), label 0 or 1, optionally a third
field `prior` marking a prior record (judged before the model ranked anything); `#` starts a comment line, blank
lines are skipped. The topic is the file name up to its first dot; the tool is what stands between the topic and the
suffix (`Triptans.asreview-logistic.txt`), else the folder's name, so a study's order files group by tool. Without
qrels the file must list every record of the collection (as ASReview's and TARexp's full orders do): N is the number
of records listed, R the number labelled 1. With qrels, R comes from the qrels of the topic (that name, or the
qrels' only topic), N is the number of records the qrels list for the topic (screening qrels list every record; at
least the records in the file), and relevance is the qrels'.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.lines import PathLike, iter_lines
from tarsim.data.qrels import Qrels
from tarsim.errors import InputError, InputWarning


def foreign_ledger(
    *,
    tool: str,
    topic: str,
    docids: Sequence[str],
    labels: Sequence[int],
    truth: Sequence[int],
    prior: Sequence[bool],
    relevant: int,
    collection_size: int,
    source: str,
) -> Ledger:
    """A review order from another tool as a ledger: one judgment of effort 1 per record, in order."""
    k = len(docids)
    ones = np.ones(k, dtype=np.float64)
    header = {
        "type": "header",
        "format": 1,
        "tool": tool,
        "topic": topic,
        "relevant": int(relevant),
        "collection_size": int(collection_size),
        "seed": 0,
        "config": {"tool": tool, "strategy": tool, "seed": 0},
    }
    return Ledger(
        header=header,
        rounds=[],
        end={"type": "end", "reason": f"read from {tool}"},
        docids=list(docids),
        sentence=np.full(k, -1, dtype=np.int64),
        label=np.asarray(labels, dtype=np.int64).reshape(k),
        truth=np.asarray(truth, dtype=np.int64).reshape(k),
        time=np.arange(1, k + 1, dtype=np.float64),
        reviewer=np.zeros(k, dtype=np.int64),
        round=np.zeros(k, dtype=np.int64),
        effort={"judge": ones, "sent": ones, "words": ones, "seconds": ones},
        source=source,
        prior=np.asarray(prior, dtype=bool).reshape(k),
    )


def read_order(path: PathLike, qrels: Qrels | None = None) -> Ledger:
    """Read an order file (see the module docstring) as a ledger whose tool is the file's name."""
    path = Path(path)
    docids: list[str] = []
    labels: list[int] = []
    prior: list[bool] = []
    seen: dict[str, int] = {}
    for number, line in iter_lines(path):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split()
        if len(fields) not in (2, 3) or (len(fields) == 3 and fields[2] != "prior"):
            count = f"{len(fields)} field{'' if len(fields) == 1 else 's'}"
            found = count if len(fields) != 3 else f"{fields[2]!r} as the third field"
            raise InputError(path, number, f"expected `docid label` or `docid label prior`, found {found}")
        docid, label = fields[0], fields[1]
        if label not in ("0", "1"):
            raise InputError(path, number, f"label must be 0 or 1, got {label!r}")
        if docid in seen:
            raise InputError(path, number, f"record {docid!r} listed twice (first on line {seen[docid]})")
        if len(fields) == 3 and prior and not prior[-1]:
            raise InputError(path, number, "a prior record after non-prior ones (priors come first)")
        seen[docid] = number
        docids.append(docid)
        labels.append(int(label))
        prior.append(len(fields) == 3)
    if not docids:
        raise InputError(path, None, "no record in the order file")
    topic = path.name.split(".")[0]
    if qrels is None:
        truth, relevant, size = labels, sum(labels), len(docids)
    else:
        if topic not in qrels and len(qrels) == 1:
            topic = next(iter(qrels))
        if topic not in qrels:
            raise InputError(path, None, f"topic {topic!r} (the file's stem) is not in the qrels")
        grades = qrels[topic]
        truth = [grades.get(docid, 0) for docid in docids]
        relevant = sum(1 for grade in grades.values() if grade > 0)
        unknown = [docid for docid in docids if docid not in grades]
        if unknown:
            warnings.warn(
                f"{path}: {len(unknown)} record(s) not in the qrels of topic {topic!r} (first {unknown[0]!r}), "
                "counted as non-relevant and added to N",
                InputWarning,
                stacklevel=2,
            )
        size = len(set(grades) | set(docids))
    return foreign_ledger(
        tool=order_tool(path),
        topic=topic,
        docids=docids,
        labels=labels,
        truth=truth,
        prior=prior,
        relevant=relevant,
        collection_size=size,
        source=str(path),
    )


def looks_like_order(path: PathLike) -> bool:
    """Whether a file found in a folder reads as an order file: its first record (blank and `#` lines aside) is
    `docid 0|1` or `docid 0|1 prior` (a qrels line has four fields, a topics line a query after its id)."""
    try:
        for _, line in iter_lines(Path(path)):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            return len(fields) in (2, 3) and fields[1] in ("0", "1") and fields[2:] in ([], ["prior"])
    except (OSError, UnicodeDecodeError, InputError):
        return False
    return False


def order_tool(path: Path) -> str:
    """Which tool an order file stands for: the part of its name between the topic and the suffix
    (`Triptans.asreview-logistic.txt` -> `asreview-logistic`), else its folder's name (a folder per tool)."""
    middle = path.name.split(".")[1:-1]
    return ".".join(middle) if middle else (path.resolve().parent.name or path.name)
