"""CLEF eHealth TAR runs (`topic interaction pmid rank score run`): reading them, and writing tarsim's reviews as one.

The task's run format puts an interaction code where a TREC run has `Q0`: `AF` (the document was shown and its
judgment fed back to the system), `NF` (shown, no feedback), `NS` (not shown: the system stopped before it, the
lines of a thresholded run after its threshold). The official evaluation (github:CLEF-TAR/tar,
scripts/tar_eval.py) reads the lines in file order; rank and score are never read, so they are not parsed here
either. tarsim.metrics.clef computes the measures; docs/clef.md lists the script's rules.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import NamedTuple

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.data.lines import PathLike, iter_lines, split_fields
from tarsim.errors import ConfigError, InputWarning

RUN_COLUMNS = "topic interaction pmid rank score run"

INTERACTIONS = frozenset({"AF", "NF", "NS", "AFN", "DFN", "DFS", "NFS", "NFN"})
"""The interaction codes the official script names: the task's AF, NF, NS and the codes its cost measure maps
(AFN, DFN, DFS to AF; NFS to NF; NFN to NS). Any other code is read as the script reads it (shown, no feedback),
with a warning."""

FEEDBACK = "AF"


class ClefRunLine(NamedTuple):
    """One line of a CLEF run, as the official script uses it: the topic, the interaction code and the document."""

    topic: str
    interaction: str
    docid: str
    line: int = 0  # the line number in its file (0: not from a file)


def read_clef_run(path: PathLike) -> list[ClefRunLine]:
    """The lines of a CLEF run in file order (the review order the script evaluates).

    A line without exactly six columns is refused with its number (the script stops there with a traceback);
    blank lines are skipped. Duplicate documents are kept: the evaluation skips them as the script does.
    """
    lines: list[ClefRunLine] = []
    for number, line in iter_lines(path):
        topic, interaction, docid, _rank, _score, _tag = split_fields(path, number, line, 6, RUN_COLUMNS)
        lines.append(ClefRunLine(topic, interaction, docid, number))
    unknown = Counter(line.interaction for line in lines if line.interaction not in INTERACTIONS)
    if unknown:
        codes = ", ".join(f"{code!r} ({count:,} lines)" for code, count in unknown.most_common(5))
        warnings.warn(
            f"{path}: interaction codes other than AF, NF, NS: {codes}; read as shown without feedback, as the "
            "official script does (is this a TREC run with Q0?)",
            InputWarning,
            stacklevel=2,
        )
    return lines


def clef_run_from_ledger(ledger: Ledger, priors: str = "include") -> list[ClefRunLine]:
    """The CLEF run of a simulated review: its documents in review order, every one `AF` (each judgment is fed
    back to the learner).

    A document appears once, at its first judgment (sentence-level and multi-reviewer reviews judge a document
    several times; the script would skip the repeats as duplicates anyway). `priors="exclude"` leaves out the
    prior judgments (the records a review starts from), as ASReview Insights does by default; `"include"`
    (default) keeps them: the reviewer read them too.
    """
    if priors not in ("include", "exclude"):
        raise ConfigError(f"priors must be 'include' or 'exclude', got {priors!r}")
    seen: set[str] = set()
    lines: list[ClefRunLine] = []
    prior = ledger.prior if ledger.prior is not None else [False] * len(ledger.docids)
    for docid, is_prior in zip(ledger.docids, prior, strict=True):
        if docid in seen or (priors == "exclude" and bool(is_prior)):
            continue
        seen.add(docid)
        lines.append(ClefRunLine(ledger.topic, FEEDBACK, docid))
    return lines


def write_clef_run(path: PathLike, lines: list[ClefRunLine], tag: str = "tarsim") -> None:
    """Write a CLEF run (atomic): ranks from 1 in the given order within each topic, score = lines left + 1 (higher
    first, as rank-based tools expect; the official script reads neither)."""
    per_topic = Counter(line.topic for line in lines)
    rank: Counter[str] = Counter()
    with atomic_write(path) as out:
        for line in lines:
            rank[line.topic] += 1
            score = per_topic[line.topic] - rank[line.topic] + 1
            out.write(f"{line.topic} {line.interaction} {line.docid} {rank[line.topic]} {score} {tag}\n")
