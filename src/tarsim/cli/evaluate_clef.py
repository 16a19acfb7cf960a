"""`tarsim evaluate QRELS RUN -m clef`: CLEF TAR's measures of a run in the task's format, printed as the official
script prints them (`topic<TAB>measure<TAB>value`, each topic then `ALL`), or as JSON or CSV."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import replace
from pathlib import Path

from tarsim.data import read_qrels
from tarsim.data.ledger import Ledger
from tarsim.errors import InputError
from tarsim.interop.clef_runs import read_clef_run
from tarsim.metrics.clef import (
    MEASURES,
    ClefEvaluation,
    ClefTopic,
    aggregate,
    evaluate_clef,
    evaluate_ledger,
    format_value,
)

AGGREGATE = "ALL"


def evaluate_clef_run(args: argparse.Namespace, names: list[str]) -> int:
    """Evaluate args.run against args.qrels with the CLEF measures `names`; print to stdout, notes to stderr."""
    if args.compare is not None or args.run is None:
        raise InputError("tarsim evaluate", None, "CLEF measures evaluate one RUN (no --compare)")
    ranked_only = [
        option
        for option, value, default in (
            ("--missing", args.missing, "zero"),
            ("--average", args.average, "judged"),
            ("--scores", args.scores, "float32"),
        )
        if value != default
    ]
    if ranked_only:
        raise InputError(
            "tarsim evaluate", None, f"{', '.join(ranked_only)} apply to ranked-list measures, not to CLEF's"
        )
    qrels = read_qrels(args.qrels)
    evaluation = evaluate_clef(qrels, read_clef_run(args.run), source=args.qrels)
    _notes(evaluation)
    extra = {"skipped_topics": evaluation.skipped, "duplicates": len(evaluation.duplicates)}
    sys.stdout.write(render(evaluation.topics, evaluation.aggregate, names, args.format, extra))
    return 0


def ledger_measures(ledgers: list[Ledger], names: list[str], fmt: str, priors: str) -> str:
    """`tarsim metrics --measures clef`: the CLEF measures of each review (tarsim.metrics.clef.evaluate_ledger),
    one block per ledger named by its topic (by its file where topics repeat), then `ALL`."""
    topics = [evaluate_ledger(ledger, priors) for ledger in ledgers]
    if len({t.topic for t in topics}) < len(topics):
        topics = [replace(t, topic=Path(ledger.source).name) for t, ledger in zip(topics, ledgers, strict=True)]
    return render(topics, aggregate(topics), names, fmt, {"priors": priors})


def render(topics: list[ClefTopic], total: dict, names: list[str], fmt: str, extra: dict) -> str:
    """The measures `names` of every topic and of `ALL`: the script's lines (table), JSON or CSV."""
    if fmt == "json":
        document = {
            "aggregate": {n: total[n] for n in names},
            "per_query": {t.topic: {n: t.values[n] for n in names} for t in topics},
            **extra,
        }
        return json.dumps(document, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["topic", "measure", "value"])
        for topic in topics:
            writer.writerows([topic.topic, n, repr(topic.values[n])] for n in names)
        writer.writerows([AGGREGATE, n, repr(total[n])] for n in names)
        return out.getvalue()
    return "".join(f"{line}\n" for line in script_lines(topics, total, names))


def script_lines(topics: list[ClefTopic], total: dict, names: list[str]) -> list[str]:
    """The script's output lines for `names` (with its `topic_id` line when every measure is asked for)."""
    heading = list(names) == list(MEASURES)
    lines = []
    for topic, values in [*((t.topic, t.values) for t in topics), (AGGREGATE, total)]:
        if heading:
            lines.append(f"{topic}\ttopic_id\t{topic}")
        lines.extend(f"{topic}\t{name}\t{format_value(values[name])}" for name in names)
    return lines


def _notes(evaluation: ClefEvaluation) -> None:
    """What the script prints beside the measures, on stderr: skipped topics and duplicate documents."""
    for topic in evaluation.skipped:
        print(f"tarsim: note: skipping topic {topic}: no relevant document in the qrels", file=sys.stderr)
    if evaluation.duplicates:
        topic, docid, line = evaluation.duplicates[0]
        print(
            f"tarsim: note: {len(evaluation.duplicates):,} repeated document(s) skipped, as the official script "
            f"does (first: topic {topic}, docid {docid}, run line {line})",
            file=sys.stderr,
        )
