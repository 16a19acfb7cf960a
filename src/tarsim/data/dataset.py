"""A collection directory (docs + qrels + topics, as in ../shared/datasets) loaded with one call."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.collection import Collection, read_collection
from tarsim.data.lines import PathLike
from tarsim.data.qrels import Qrels, check_qrels_in_collection, read_qrels
from tarsim.data.regular_files import MISSING, path_problem
from tarsim.data.topics import Topics, read_topics
from tarsim.errors import ConfigError, InputError, InputWarning

DOCS_NAMES = ("docs.jsonl", "docs.jsonl.gz")


@dataclass(frozen=True)
class Dataset:
    """Documents, their relevance judgments and the topics' query texts."""

    collection: Collection
    qrels: Qrels
    topics: Topics
    name: str = ""
    unlabelled_rows: tuple[int, ...] = ()  # rows of a screening file left out by --unlabelled skip (sorted)


def find_docs_file(directory: PathLike) -> Path:
    """The docs file of a collection directory (docs.jsonl or docs.jsonl.gz); one that is a symlink to nothing (or a
    symlink loop) is named as such, also beside the other."""
    directory = Path(directory)
    if not directory.is_dir():  # a FIFO, a device, a symlink loop or to nothing is named, as for --docs
        problem = path_problem(directory, "folder")
        raise InputError(
            directory, None, problem if problem not in (None, MISSING) else "collection directory does not exist"
        )
    present = [directory / name for name in DOCS_NAMES if os.path.lexists(directory / name)]
    for path in present:  # a symlink to nothing was `no docs.jsonl ... in the collection directory`
        problem = path_problem(path)
        if problem is not None and not os.path.exists(path):
            raise InputError(path, None, problem)
    if len(present) > 1:
        raise InputError(directory, None, f"holds both {' and '.join(p.name for p in present)}: keep only one")
    if present:
        return present[0]
    raise InputError(directory, None, f"no {' or '.join(DOCS_NAMES)} in the collection directory")


def check_topics_cover_qrels(qrels: Qrels, topics: Topics, topics_path: PathLike) -> None:
    """Warn (not fail) about qrels topics that the topics file does not list."""
    missing = sorted(set(qrels) - set(topics))
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        warnings.warn(
            f"{topics_path}: {len(missing)} qrels topic(s) absent from the topics file: {shown}",
            InputWarning,
            stacklevel=2,
        )


def load_collection_directory(
    directory: PathLike | None = None,
    *,
    docs: PathLike | None = None,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
) -> Dataset:
    """Load a collection directory (docs.jsonl, qrels.txt, topics.tsv) or explicit docs/qrels/topics files;
    explicit files win over the directory. Screening files are tarsim.datasets.load_dataset's."""
    base = Path(directory) if directory is not None else None
    docs_path = Path(docs) if docs is not None else (find_docs_file(base) if base else None)
    qrels_path = Path(qrels) if qrels is not None else (base / "qrels.txt" if base else None)
    topics_path = Path(topics) if topics is not None else (base / "topics.tsv" if base else None)
    if docs_path is None or qrels_path is None or topics_path is None:
        missing = [
            name for name, path in (("docs", docs_path), ("qrels", qrels_path), ("topics", topics_path)) if path is None
        ]
        raise ConfigError(
            f"without a collection directory, give all of docs, qrels and topics (missing: {', '.join(missing)})"
        )
    collection = read_collection(docs_path)
    if len(collection) == 0:
        raise InputError(docs_path, None, "empty collection")
    judged = read_qrels(qrels_path)
    check_qrels_in_collection(judged, set(collection.docids), qrels_path)  # qrels of another collection: say so
    queries = read_topics(topics_path)
    check_topics_cover_qrels(judged, queries, topics_path)
    name = base.resolve().name if base is not None else docs_path.resolve().parent.name
    return Dataset(collection=collection, qrels=judged, topics=queries, name=name)
