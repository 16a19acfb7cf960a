"""Import ASReview-style screening CSV files (`title`, `abstract`, `label_included`, optional `record_id`)."""

from __future__ import annotations

import csv
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.lines import PathLike, open_binary
from tarsim.data.qrels import Qrels
from tarsim.errors import InputError

REQUIRED_COLUMNS = ("title", "abstract", "label_included")


def read_asreview_csv(path: PathLike, topic: str | None = None) -> tuple[Collection, Qrels]:
    """Read a screening CSV into a collection and qrels for one topic (default: the file's stem).

    Every record is judged (label 0 or 1); records without `record_id` are numbered from 1 in file order.
    """
    path = Path(path)
    topic = topic or path.stem
    try:
        with open_binary(path) as raw:
            text = raw.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw_line_of(path, exc.start)
        raise InputError(path, line, "undecodable bytes (not UTF-8)") from None
    if not text.strip():
        raise InputError(path, None, "empty file")
    reader = csv.DictReader(text.splitlines(keepends=True))
    header = reader.fieldnames or []
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise InputError(path, 1, f"missing column(s) {', '.join(missing)}; header is {', '.join(header)}")
    documents: list[Document] = []
    labels: dict[str, int] = {}
    for row_number, row in enumerate(reader, start=1):
        line = reader.line_num
        if None in row:
            raise InputError(path, line, f"more fields than the {len(header)} header columns")
        docid = (row.get("record_id") or str(row_number)).strip()
        if not docid or any(ch.isspace() for ch in docid):
            raise InputError(path, line, f"invalid record_id {docid!r}")
        label_text = (row["label_included"] or "").strip()
        try:
            label = int(float(label_text))
        except ValueError:
            raise InputError(path, line, f"label_included is not 0 or 1: {label_text!r}") from None
        if label not in (0, 1):
            raise InputError(path, line, f"label_included is not 0 or 1: {label_text!r}")
        if docid in labels:
            raise InputError(path, line, f"duplicate record_id {docid!r}")
        labels[docid] = label
        documents.append(
            Document(docid=docid, title=(row["title"] or "").strip(), text=(row["abstract"] or "").strip())
        )
    return Collection(documents, source=str(path)), {topic: labels}


def raw_line_of(path: Path, byte_offset: int) -> int:
    """1-based line number of a byte offset in a file (used to locate undecodable bytes)."""
    with open_binary(path) as raw:
        return raw.read(byte_offset).count(b"\n") + 1
