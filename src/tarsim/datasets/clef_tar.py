"""`tarsim data convert clef-tar`: CLEF TAR topics + qrels + texts -> one collection directory per topic.

Each topic's pool is its topic file's pids, in the file's order; each pid is a document (docid = pmid) with the
title and abstract a texts source gives (tarsim.interop.clef_texts). A pid no source has is kept with an empty
title and text, as ASReview screens a record without title and abstract: leaving it out would change the topic's
N (and R, when it is relevant). qrels.txt lists every pid, 1 when relevant at the chosen level, else 0 (pids a
qrels file does not list, or lists as unjudged, are non-relevant; so is every pid of a topic a relevant-only file
leaves out); judgments of pmids outside the pool (CLEF's
relevant studies the Boolean query missed) are left out and counted. topics.tsv holds the review's title as the
query, as ../shared/datasets/clef2017 does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset
from tarsim.data.export import write_dataset_directory
from tarsim.data.lines import PathLike
from tarsim.data.qrels import read_qrels
from tarsim.errors import ConfigError, InputError
from tarsim.interop.clef_tar import (
    LEVELS,
    ClefTopic,
    check_qrels_topics,
    find_qrels_file,
    level_grades,
    read_topics_folder,
)
from tarsim.interop.clef_texts import Texts, read_texts


@dataclass(frozen=True)
class TopicCounts:
    """What the convert reports for one topic."""

    topic: str
    listed: int  # pids in the topic file (each once)
    repeated: int  # pid lines repeating one (kept once)
    found: int  # pids with a text in the sources
    title_only: int  # of those, with a title and no abstract
    empty: int  # pids without title or abstract (not found, or found empty)
    relevant: int  # relevant pids at the level
    outside: int  # judgments of pmids not in the pool (left out)
    outside_relevant: int  # of those, relevant at the level

    def line(self, level: str, target: Path) -> str:
        outside = ""
        if self.outside:
            outside = f"; {self.outside} judged pmid(s) outside the pool left out ({self.outside_relevant} relevant)"
        twice = f" ({self.repeated} repeated lines kept once)" if self.repeated else ""
        return (
            f"{self.topic}: {self.listed} pmids listed{twice}, "
            f"{self.found} texts found ({self.title_only} title only), "
            f"{self.empty} without text (kept empty), {self.relevant} relevant at the {level} level{outside} "
            f"-> {target}"
        )


def topic_dataset(topic: ClefTopic, judged: dict[str, int], texts: Texts) -> tuple[Dataset, TopicCounts]:
    """The collection of one topic and its counts."""
    documents = []
    found = title_only = empty = 0
    for pid in topic.pids:
        title, text = texts.by_pmid.get(pid, ("", ""))
        found += pid in texts.by_pmid
        title_only += bool(title) and not text
        empty += not title and not text
        documents.append(Document(docid=pid, text=text, title=title))
    pool = set(topic.pids)
    grades = {pid: 1 if judged.get(pid, 0) > 0 else 0 for pid in topic.pids}
    outside = [docid for docid in judged if docid not in pool]
    counts = TopicCounts(
        topic=topic.topic,
        listed=len(topic.pids),
        repeated=topic.repeated,
        found=found,
        title_only=title_only,
        empty=empty,
        relevant=sum(grades.values()),
        outside=len(outside),
        outside_relevant=sum(1 for docid in outside if judged[docid] > 0),
    )
    dataset = Dataset(
        collection=Collection(documents, source=topic.path),
        qrels={topic.topic: grades},
        topics={topic.topic: topic.title},
        name=topic.topic,
    )
    return dataset, counts


def select_topics(topics: list[ClefTopic], wanted: Sequence[str]) -> list[ClefTopic]:
    """The topics named in `wanted` (all when empty), in the folder's order."""
    if not wanted:
        return topics
    known = {topic.topic for topic in topics}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ConfigError(f"--topic-id {', '.join(unknown)}: no such topic among the topic files")
    return [topic for topic in topics if topic.topic in set(wanted)]


def convert_clef_tar(
    source: PathLike,
    destination: PathLike,
    *,
    texts: Sequence[PathLike],
    qrels: PathLike | None = None,
    level: str = "abstract",
    topic_ids: Sequence[str] = (),
    report: Callable[[str], None] | None = None,
) -> list[Path]:
    """Write DESTINATION/<topic> for each topic of SOURCE (a topic file, a topics folder or a release folder).

    `qrels` defaults to the release folder's qrels file of the level (tarsim.interop.clef_tar.find_qrels_file).
    Everything is read and checked before the first folder is written, and no existing folder is overwritten.
    """
    if level not in LEVELS:
        raise ConfigError(f"--level must be one of {', '.join(LEVELS)}, not {level!r}")
    if not texts:
        raise ConfigError("convert clef-tar needs --texts FILE (PubMed XML or JSON lines; a folder of them)")
    destination = Path(destination)
    topics = read_topics_folder(source)
    qrels_path = Path(qrels) if qrels is not None else find_qrels_file(source, level)
    judged = level_grades(read_qrels(qrels_path), level, qrels_path)
    check_qrels_topics(judged, topics, qrels_path)
    chosen = select_topics(topics, topic_ids)
    targets = [destination / topic.topic for topic in chosen]
    for target in targets:
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise InputError(target, None, "already exists and is not an empty folder; choose a new destination")
    found = read_texts(texts, {pid for topic in chosen for pid in topic.pids})
    if report:
        report(f"texts: {found.records} records read, {len(found.by_pmid)} of the topics' pmids found")
        if found.replaced:
            report(f"texts: {found.replaced} pmid(s) found again with another text; the last one kept")
    built = [topic_dataset(topic, judged.get(topic.topic, {}), found) for topic in chosen]
    written = []
    for (dataset, counts), target in zip(built, targets, strict=True):
        written.append(write_dataset_directory(dataset, target))
        if report:
            report(counts.line(level, target))
    return written
