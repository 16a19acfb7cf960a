"""TREC qrels (`topic iteration docid relevance`, graded) and sentence qrels readers and writers."""

from __future__ import annotations

from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_int, split_fields
from tarsim.errors import InputError

Qrels = dict[str, dict[str, int]]
"""topic -> docid -> graded relevance (> 0 relevant); the layout pytrec_eval uses."""

SentenceQrels = dict[str, dict[str, dict[int, int]]]
"""topic -> docid -> sentence index (from 0) -> relevance."""


def read_qrels(path: PathLike) -> Qrels:
    """Read a TREC qrels file; reject wrong column counts, non-integer relevance and conflicting duplicates.

    An exact repeat of a judgment (Reuters-21578 has two) is accepted, as trec_eval does.
    """
    qrels: Qrels = {}
    for number, line in iter_lines(path):
        topic, _iteration, docid, relevance = split_fields(path, number, line, 4, "topic iteration docid relevance")
        grade = parse_int(path, number, relevance, "relevance")
        judged = qrels.setdefault(topic, {})
        previous = judged.get(docid)
        if previous is not None and previous != grade:
            raise InputError(
                path, number, f"conflicting judgments for topic {topic!r}, docid {docid!r}: {previous} and {grade}"
            )
        judged[docid] = grade
    return qrels


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
        sentence = parse_int(path, number, index, "sentence_index")
        if sentence < 0:
            raise InputError(path, number, f"sentence_index must be >= 0, got {sentence}")
        grade = parse_int(path, number, relevance, "relevance")
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
