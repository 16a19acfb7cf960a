"""Topics files: `topic_id<TAB>query text`, one a line."""

from __future__ import annotations

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines
from tarsim.errors import InputError

Topics = dict[str, str]
"""topic id -> query text (usable as a CAL seed query)."""


def read_topics(path: PathLike) -> Topics:
    """Read a topics file; reject lines without a tab, empty ids or queries, and duplicate ids."""
    topics: Topics = {}
    for number, line in iter_lines(path):
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(path, number, f"expected 2 tab-separated columns (topic_id, query), found {len(fields)}")
        topic, query = fields[0].strip(), fields[1].strip()
        if not topic or not query:
            raise InputError(path, number, "empty topic id or query text")
        if topic in topics:
            raise InputError(path, number, f"duplicate topic id {topic!r}")
        topics[topic] = query
    return topics


def write_topics(path: PathLike, topics: Topics) -> None:
    """Write a topics file in the given order (atomic)."""
    with atomic_write(path) as out:
        for topic, query in topics.items():
            if "\t" in topic or "\n" in query or "\t" in query:
                raise ValueError(f"topic {topic!r}: tabs and newlines cannot be written in topics.tsv")
            out.write(f"{topic}\t{query}\n")
