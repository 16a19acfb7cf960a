"""TREC runs (`topic Q0 docid rank score tag`) and binary decision files (`topic docid label`)."""

from __future__ import annotations

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_float, parse_int, split_fields
from tarsim.errors import InputError

Run = dict[str, dict[str, float]]
"""topic -> docid -> score (higher is better); the layout pytrec_eval uses."""

Decisions = dict[str, dict[str, int]]
"""topic -> docid -> binary label (1 relevant, 0 not)."""


def read_run(path: PathLike) -> Run:
    """Read a TREC run; reject wrong column counts, non-numeric rank or score, duplicate (topic, docid).

    A fast pass parses lines without per-field checks; any malformed line sends the file through the
    checked reader, which names the first bad line (a run of 5M lines reads in a few seconds).
    """
    run: Run = {}
    try:
        for _number, line in iter_lines(path):
            topic, _q0, docid, rank, score, _tag = line.split()
            int(rank)
            value = float(score)
            if value - value != 0.0:  # NaN or infinity
                raise ValueError(score)
            ranked = run.get(topic)
            if ranked is None:
                ranked = run[topic] = {}
            elif docid in ranked:
                raise ValueError(docid)
            ranked[docid] = value
    except ValueError:
        return _read_run_checked(path)
    return run


def _read_run_checked(path: PathLike) -> Run:
    """Read a TREC run checking every field, so that the error names the first bad line."""
    run: Run = {}
    for number, line in iter_lines(path):
        fields = line.split()
        if len(fields) != 6:
            raise InputError(path, number, f"expected 6 columns (topic Q0 docid rank score tag), found {len(fields)}")
        topic, _q0, docid, rank, score, _tag = fields
        parse_int(path, number, rank, "rank")
        value = parse_float(path, number, score, "score")
        ranked = run.get(topic)
        if ranked is None:
            ranked = run[topic] = {}
        if docid in ranked:
            raise InputError(path, number, f"duplicate docid {docid!r} for topic {topic!r}")
        ranked[docid] = value
    return run


def write_run(path: PathLike, run: Run, tag: str = "tarsim") -> None:
    """Write a TREC run, each topic ranked by score descending (ties by docid descending, as trec_eval)."""
    with atomic_write(path) as out:
        for topic in sorted(run):
            ranked = sorted(run[topic].items(), key=lambda item: (item[1], item[0]), reverse=True)
            for rank, (docid, score) in enumerate(ranked, start=1):
                out.write(f"{topic} Q0 {docid} {rank} {score!r} {tag}\n")


def read_decisions(path: PathLike) -> Decisions:
    """Read binary relevance decisions `topic docid label` (label 0 or 1)."""
    decisions: Decisions = {}
    for number, line in iter_lines(path):
        topic, docid, label = split_fields(path, number, line, 3, "topic docid label")
        value = parse_int(path, number, label, "label")
        if value not in (0, 1):
            raise InputError(path, number, f"label must be 0 or 1, got {value}")
        decided = decisions.setdefault(topic, {})
        if docid in decided:
            raise InputError(path, number, f"duplicate decision for topic {topic!r}, docid {docid!r}")
        decided[docid] = value
    return decisions


def write_decisions(path: PathLike, decisions: Decisions) -> None:
    """Write binary decisions `topic docid label`, sorted (atomic)."""
    with atomic_write(path) as out:
        for topic in sorted(decisions):
            for docid in sorted(decisions[topic]):
                out.write(f"{topic} {docid} {decisions[topic][docid]}\n")
