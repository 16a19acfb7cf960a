"""CLEF eHealth TAR task files: topic files (`Topic:`, `Title:`, `Query:`, `Pids:`) and qrels at either level.

A topic file of the task (2017; 2018 and 2019 Task 2) is plain text in labelled sections, each label at the start
of a line, its text on the same line or the lines below:

    Topic: CD008760
    Title: Capsule endoscopy for the diagnosis of oesophageal varices ...
    Query:
    (esophag* varic* or ...).mp.
    Pids:
        23593613
        ...

`Pids:` lists the PubMed ids the review's Boolean query retrieved: the pool a reviewer screens. Two 2017 training
topics start their pid list with a `review_ID: 38` line, which the task's own extractor skips; so does this one.
Eleven 2017 training topics list some pids twice: they are kept once, at their first place, as that extractor
keeps them (ClefTopic.repeated counts them).
Task 1 topics of 2018 and 2019 have `Objective:` instead of `Query:` and `Pids:` (no pool: the task searched all
of PubMed) and are refused with that reason.

The qrels are TREC qrels (`topic 0 pmid grade`) at the abstract level (screening: titles and abstracts) or the
content level (the review's final inclusion): 2017 publishes every pid (0 or 1), 2018 also relevant-only files;
the task's combined files grade both levels at once (-1 unjudged, 0, 1 abstract, 2 content, 3 and 4 the same for
documents the query did not retrieve). level_grades reads any of them at the chosen level.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.lines import PathLike, iter_lines
from tarsim.data.qrels import Qrels
from tarsim.errors import ConfigError, InputError
from tarsim.interop.source_paths import missing_source

LEVELS = ("abstract", "content")
"""Relevance levels of the task's qrels: after title-abstract screening, after reading the full text."""

_LABEL = re.compile(r"(Topic|Title|Query|Pids|Objectives?):[ \t]*(.*)")
_REVIEW_ID = re.compile(r"review[ _]?id\s*:.*", re.IGNORECASE)
_PMID = re.compile(r"[0-9]+")
_NAME_TOKENS = re.compile(r"[._\-\s]+")
LEVEL_TOKENS = {"abstract": frozenset({"abs"}), "content": frozenset({"content", "doc", "docs"})}
"""Words of a qrels file's name that mark its level (`qrel_abs_test.txt`, `task1.train.doc.2019.qrels`)."""

COMBINED_GRADES = {"abstract": frozenset({1, 2, 3, 4}), "content": frozenset({2, 4})}
"""The relevant grades of a combined qrels file (scripts/create_combined_qrels.py of the task) at each level."""


@dataclass(frozen=True)
class ClefTopic:
    """One topic file: the review's id, title, Boolean query (as published) and the pids it retrieved."""

    topic: str
    title: str
    query: str
    pids: tuple[str, ...]
    path: str
    repeated: int = 0  # pid lines repeating an earlier pid (kept once)


def _sections(path: PathLike) -> dict[str, tuple[int, list[tuple[int, str]]]]:
    """label -> (line of the label, [(line, text)] of its content); the first line must be `Topic:`."""
    sections: dict[str, tuple[int, list[tuple[int, str]]]] = {}
    current: list[tuple[int, str]] | None = None
    for number, line in iter_lines(path, skip_blank=False):
        match = _LABEL.fullmatch(line.rstrip())
        if match is None and not sections:
            if not line.strip():
                continue
            raise InputError(path, number, f"expected `Topic: ID` first (a CLEF TAR topic file), found {line[:60]!r}")
        if match is None:
            assert current is not None
            current.append((number, line))
            continue
        label = "Objective" if match.group(1).startswith("Objective") else match.group(1)
        if not sections and label != "Topic":
            raise InputError(path, number, f"expected `Topic: ID` first (a CLEF TAR topic file), found `{label}:`")
        if label in sections:
            raise InputError(path, number, f"a second `{label}:` section (the first is on line {sections[label][0]})")
        current = [(number, match.group(2))] if match.group(2).strip() else []
        sections[label] = (number, current)
    return sections


def _text(lines: list[tuple[int, str]]) -> str:
    return "\n".join(text.rstrip() for _number, text in lines).strip()


def read_topic_file(path: PathLike) -> ClefTopic:
    """Parse one topic file; a missing or malformed section is an InputError naming the file and line."""
    sections = _sections(path)
    topic_line, topic_lines = sections["Topic"]
    topic = _text(topic_lines)
    if not topic or len(topic.split()) != 1:
        raise InputError(path, topic_line, f"`Topic:` needs one review id without spaces, found {topic!r}")
    if "Title" not in sections or not _text(sections["Title"][1]):
        raise InputError(path, sections.get("Title", (topic_line, []))[0], "no `Title:` text (the review's title)")
    title = " ".join(_text(sections["Title"][1]).split())
    if "Pids" not in sections:
        if "Objective" in sections:
            raise InputError(
                path,
                sections["Objective"][0],
                "a Task 1 topic (`Objective:`, no `Pids:`): it has no pool of pids; convert the Task 2 topic file",
            )
        raise InputError(path, None, "no `Pids:` section (the PubMed ids the Boolean query retrieved)")
    pids: list[str] = []
    seen: set[str] = set()
    for number, text in sections["Pids"][1]:
        value = text.strip()
        if not value or _REVIEW_ID.fullmatch(value):
            continue  # `review_ID: 38` heads two 2017 training topics' pids; the task's extractor skips it too
        if not _PMID.fullmatch(value):
            raise InputError(path, number, f"a pid is a PubMed id (digits only), found {value[:40]!r}")
        if value not in seen:
            seen.add(value)
            pids.append(value)
    if not pids:
        raise InputError(path, sections["Pids"][0], "`Pids:` lists no PubMed id")
    query = _text(sections["Query"][1]) if "Query" in sections else ""
    repeated = sum(1 for _number, text in sections["Pids"][1] if _PMID.fullmatch(text.strip())) - len(pids)
    return ClefTopic(topic=topic, title=title, query=query, pids=tuple(pids), path=str(path), repeated=repeated)


def _skipped(path: Path) -> bool:
    """Hidden files and macOS's `Icon\\r` folder-icon file (one sits in the 2017 training topics folder)."""
    return path.name.startswith(".") or path.name == "Icon\r"


def _natural(path: Path) -> tuple[int, int, str]:
    """2017's topic files are named 1 ... 57: numbers in numeric order, then other names."""
    return (0, int(path.name), "") if path.name.isdigit() else (1, 0, path.name)


def topics_folder(source: PathLike) -> Path:
    """The folder of topic files in `source`: its `topics/` (or `topics_train/`) subfolder, else itself."""
    source = Path(source)
    for name in ("topics", "topics_train"):
        if (source / name).is_dir():
            return source / name
    return source


def find_topic_files(source: PathLike) -> list[Path]:
    """One topic file, or every file of a topics folder (or of a release folder's `topics/`), in name order."""
    source = Path(source)
    if not source.exists():
        raise missing_source(source)
    if source.is_file():
        return [source]
    folder = topics_folder(source)
    files = sorted((p for p in folder.iterdir() if p.is_file() and not _skipped(p)), key=_natural)
    if not files:
        raise InputError(folder, None, "no topic files (give a topic file, a folder of them, or one holding topics/)")
    return files


def read_topics_folder(source: PathLike) -> list[ClefTopic]:
    """Every topic of `source` (find_topic_files); a topic id in two files is refused."""
    topics: dict[str, ClefTopic] = {}
    for path in find_topic_files(source):
        topic = read_topic_file(path)
        if topic.topic in topics:
            raise InputError(path, 1, f"topic {topic.topic} again (first in {topics[topic.topic].path})")
        topics[topic.topic] = topic
    return list(topics.values())


def qrels_level_of(name: str) -> str | None:
    """The level a qrels file's name marks (`abs` -> abstract; `content`, `doc` -> content), or None."""
    tokens = set(_NAME_TOKENS.split(name.lower()))
    found = [level for level, words in LEVEL_TOKENS.items() if tokens & words]
    return found[0] if len(found) == 1 else None


def find_qrels_file(source: PathLike, level: str) -> Path:
    """The one qrels file of the level in the release folder's `qrels/` (beside or inside `source`)."""
    source = Path(source)
    folders = [source / "qrels", source.parent / "qrels"] if source.is_dir() else []
    folder = next((f for f in folders if f.is_dir()), None)
    if folder is None:
        raise ConfigError(f"no qrels/ folder beside {source}: give the qrels file with --qrels FILE")
    found = sorted(p for p in folder.iterdir() if p.is_file() and not _skipped(p) and qrels_level_of(p.name) == level)
    if len(found) != 1:
        names = ", ".join(p.name for p in found) or "none named for it (abs, content or doc in the name)"
        raise ConfigError(f"{folder}: {len(found)} qrels files for the {level} level ({names}); name one with --qrels")
    return found[0]


def is_combined(qrels: Qrels) -> bool:
    """Whether the qrels grade both levels at once (any grade other than 0 and 1: the task's combined files)."""
    return any(grade not in (0, 1) for judged in qrels.values() for grade in judged.values())


def level_grades(qrels: Qrels, level: str, path: PathLike) -> Qrels:
    """0/1 relevance at `level`: binary qrels as they are (their level is the file's), combined ones graded."""
    if level not in LEVELS:
        raise ConfigError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if not is_combined(qrels):
        return {topic: dict(judged) for topic, judged in qrels.items()}
    grades = {-1, 0, 1, 2, 3, 4}
    bad = next(((t, d, g) for t, judged in qrels.items() for d, g in judged.items() if g not in grades), None)
    if bad is not None:
        topic, docid, grade = bad
        raise InputError(path, first_line(path, topic, docid), f"grade {grade} is not a CLEF TAR grade (-1 to 4)")
    relevant = COMBINED_GRADES[level]
    return {topic: {d: int(g in relevant) for d, g in judged.items()} for topic, judged in qrels.items()}


def first_line(path: PathLike, topic: str, docid: str | None = None) -> int | None:
    """The first line of a qrels file judging `topic` (and `docid`, when given): for messages."""
    for number, line in iter_lines(path):
        fields = line.split()
        if fields and fields[0] == topic and (docid is None or (len(fields) > 2 and fields[2] == docid)):
            return number
    return None


def check_qrels_topics(qrels: Qrels, topics: Sequence[ClefTopic], path: PathLike) -> None:
    """Every qrels topic has a topic file, else one line naming the qrels line. A topic without a qrels line is
    fine: relevant-only files leave out a topic with no relevant document (2018's content qrels, CD010680)."""
    known = {topic.topic for topic in topics}
    unknown = next((topic for topic in qrels if topic not in known), None)
    if unknown is not None:
        problem = f"topic {unknown} has no topic file among the topics given (for some topics: the folder, --topic-id)"
        raise InputError(path, first_line(path, unknown), problem)
