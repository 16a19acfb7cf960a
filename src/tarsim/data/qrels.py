"""TREC qrels (`topic iteration docid relevance`, graded) and sentence qrels readers and writers."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Collection as Container
from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, split_fields
from tarsim.errors import InputError, InputWarning

COLUMNS_FROM_BYTES = 1 << 18
"""Qrels files from this size are read as columns; smaller ones read as fast by line, without importing pyarrow."""

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_INTEGER = re.compile(r"[+-]?[0-9]+")

Qrels = dict[str, dict[str, int]]
"""topic -> docid -> graded relevance (> 0 relevant); the layout pytrec_eval uses."""

SentenceQrels = dict[str, dict[str, dict[int, int]]]
"""topic -> docid -> sentence index (from 0) -> relevance."""


def parse_grade(path: PathLike, number: int, value: str, what: str = "relevance") -> int:
    """A relevance grade: an ASCII integer that fits a signed 64-bit integer (numpy and trec_eval need that)."""
    if not _INTEGER.fullmatch(value):
        raise InputError(path, number, f"{what} is not an integer: {value!r}")
    grade = int(value)
    if not INT64_MIN <= grade <= INT64_MAX:
        raise InputError(path, number, f"{what} out of range: {value} does not fit a 64-bit integer")
    return grade


def read_qrels(path: PathLike) -> Qrels:
    """Read a TREC qrels file; reject wrong column counts, non-integer or out-of-range relevance and
    conflicting duplicates.

    An exact repeat of a judgment (Reuters-21578 has two) is accepted, as trec_eval does. A plain file (single
    spaces or single tabs, ASCII, "\\n" line ends) is read as columns at C speed; any other, or one with a bad
    line, goes through the line reader, which accepts the same files and names the first bad line.
    """
    qrels = _read_qrels_columns(path) if _file_size(path) >= COLUMNS_FROM_BYTES else None
    return qrels if qrels is not None else _read_qrels_lines(path)


def _file_size(path: PathLike) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # the line reader reports it in one line


def _read_qrels_columns(path: PathLike) -> Qrels | None:
    """Qrels of a plain file with pyarrow's CSV reader, or None when the line reader must read it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from tarsim.data.arrow_numpy import to_numpy
    from tarsim.data.plain_columns import group_rows, read_plain_columns

    types = {"topic": pa.string(), "docid": pa.string(), "relevance": pa.string()}
    table = read_plain_columns(path, ["topic", "iteration", "docid", "relevance"], types)
    if table is None:
        return None
    relevance = table["relevance"]
    if not pc.all(pc.match_substring_regex(relevance, r"^-?[0-9]+$")).as_py():
        return None  # "+1" and the like: parse_grade decides
    try:
        grades = pc.cast(relevance, pa.int64()).to_pylist()
    except pa.ArrowInvalid:
        return None  # out of the 64-bit range: parse_grade names the line
    topics = pc.dictionary_encode(table["topic"]).combine_chunks()
    order, starts, in_place = group_rows(to_numpy(topics.indices), len(topics.dictionary))
    docids = table["docid"].to_pylist()
    if not in_place:  # a topic's lines apart: each topic's rows brought together, in file order
        docids, grades = [docids[i] for i in order.tolist()], [grades[i] for i in order.tolist()]
    qrels: Qrels = {}
    bounds = starts.tolist()
    for topic, start, end in zip(topics.dictionary.to_pylist(), bounds[:-1], bounds[1:], strict=True):
        pairs = list(zip(docids[start:end], grades[start:end], strict=True))
        judged = qrels[topic] = dict(pairs)
        if len(judged) < len(pairs) and any(judged[docid] != grade for docid, grade in pairs):
            return None  # conflicting judgments: the line reader names the line
    return qrels


def _read_qrels_lines(path: PathLike) -> Qrels:
    """Read qrels line by line, checking every field, so that an error names the first bad line."""
    qrels: Qrels = {}
    for number, line in iter_lines(path):
        topic, _iteration, docid, relevance = split_fields(path, number, line, 4, "topic iteration docid relevance")
        grade = parse_grade(path, number, relevance)
        judged = qrels.setdefault(topic, {})
        previous = judged.get(docid)
        if previous is not None and previous != grade:
            raise InputError(
                path, number, f"conflicting judgments for topic {topic!r}, docid {docid!r}: {previous} and {grade}"
            )
        judged[docid] = grade
    return qrels


def check_qrels_in_collection(qrels: Qrels, docids: Container[str], path: PathLike) -> tuple[int, int]:
    """Compare the judged docids with the collection's: warn with counts when some are absent, fail when none is.

    Returns (judged docids absent from the collection, judgments in all). Qrels that name no document of the
    collection mean the two files do not belong together: every topic would be skipped or score 0.
    """
    judged = [(topic, docid, grade) for topic, docs in qrels.items() for docid, grade in docs.items()]
    absent = [(topic, docid, grade) for topic, docid, grade in judged if docid not in docids]
    if not judged or not absent:
        return 0, len(judged)
    if len(absent) == len(judged):
        example = absent[0][1]
        raise InputError(
            path,
            None,
            f"none of the {len(judged):,} judged docids is in the collection (e.g. {example!r}): "
            "qrels and documents do not belong together",
        )
    relevant = [item for item in judged if item[2] > 0]
    absent_relevant = sum(1 for item in absent if item[2] > 0)
    left = {topic for topic, docid, grade in relevant if docid in docids}
    lost = len({topic for topic, _, _ in relevant} - left)
    message = (
        f"{len(absent):,} of {len(judged):,} judged docids are not in the collection "
        f"({absent_relevant:,} of {len(relevant):,} relevant judgments)"
    )
    if lost:
        message += f"; {lost:,} topic(s) keep no relevant document"
    warnings.warn(f"{path}: {message}", InputWarning, stacklevel=2)
    return len(absent), len(judged)


def write_qrels(path: PathLike, qrels: Qrels) -> None:
    """Write qrels in TREC format, topics and docids in sorted order (atomic)."""
    with atomic_write(path) as out:
        for topic in sorted(qrels):
            for docid in sorted(qrels[topic]):
                out.write(f"{topic} 0 {docid} {qrels[topic][docid]}\n")


def relevant_docids(qrels: Qrels, topic: str, threshold: int = 1) -> set[str]:
    """The documents of `topic` whose relevance is at least `threshold`."""
    return {docid for docid, grade in qrels.get(topic, {}).items() if grade >= threshold}


def read_sentence_qrels(path: PathLike) -> SentenceQrels:
    """Read sentence qrels: `topic docid sentence_index relevance`, sentence_index counted from 0."""
    qrels: SentenceQrels = {}
    for number, line in iter_lines(path):
        topic, docid, index, relevance = split_fields(path, number, line, 4, "topic docid sentence_index relevance")
        sentence = parse_grade(path, number, index, "sentence_index")
        if sentence < 0:
            raise InputError(path, number, f"sentence_index must be >= 0, got {sentence}")
        grade = parse_grade(path, number, relevance)
        sentences = qrels.setdefault(topic, {}).setdefault(docid, {})
        if sentence in sentences:
            raise InputError(
                path, number, f"duplicate judgment for topic {topic!r}, docid {docid!r}, sentence {sentence}"
            )
        sentences[sentence] = grade
    return qrels


def write_sentence_qrels(path: PathLike, qrels: SentenceQrels) -> None:
    """Write sentence qrels, sorted by topic, docid and sentence index (atomic)."""
    with atomic_write(Path(path)) as out:
        for topic in sorted(qrels):
            for docid in sorted(qrels[topic]):
                for index in sorted(qrels[topic][docid]):
                    out.write(f"{topic} {docid} {index} {qrels[topic][docid][index]}\n")
