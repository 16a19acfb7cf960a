"""CLEF TAR measures as tables: the official script's lines (`topic<TAB>measure<TAB>value`, each topic then `ALL`),
JSON or CSV, for runs (`tarsim evaluate -m clef`) and for ledgers (`tarsim metrics --measures clef`)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

from tarsim.data.ledger import Ledger
from tarsim.metrics.clef import MEASURES, ClefTopic, aggregate, evaluate_ledger, format_value

AGGREGATE = "ALL"


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
