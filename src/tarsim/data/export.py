"""Write a Dataset as a tarsim collection directory (docs.jsonl.gz, qrels.txt, topics.tsv), all or nothing."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tarsim.data.collection import write_collection
from tarsim.data.dataset import Dataset
from tarsim.data.lines import PathLike
from tarsim.data.qrels import write_qrels
from tarsim.data.topics import Topics, write_topics
from tarsim.errors import InputError


def default_query(topic: str) -> str:
    """The query text written for a topic without one: its name, `_` and `-` read as spaces."""
    return " ".join(topic.replace("_", " ").replace("-", " ").split()) or topic


def filled_topics(dataset: Dataset, query: str | None = None) -> Topics:
    """Every qrels topic with a query text: the dataset's, else `query`, else the topic's name."""
    topics = {topic: text for topic, text in dataset.topics.items() if text.strip()}
    for topic in [*dataset.topics, *dataset.qrels]:
        if topic not in topics:
            topics[topic] = query if query else default_query(topic)
    return topics


MANIFEST = "manifest.json"
"""Where a collection directory says where it came from and how many records were read and kept."""


def write_dataset_directory(
    dataset: Dataset, destination: PathLike, *, query: str | None = None, manifest: Mapping[str, object] | None = None
) -> Path:
    """Write `dataset` to a new folder `destination` (a temporary folder beside it renamed into place).

    An existing non-empty destination is refused (nothing is overwritten); topics without query text get
    `query`, or their name (see default_query), since topics.tsv needs a query on every line. `manifest`, when
    given, is written as manifest.json in the same folder (so it comes with the collection or not at all).
    """
    target = Path(destination)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(target, None, "already exists and is not an empty folder; choose a new destination")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        write_collection(temporary / "docs.jsonl.gz", dataset.collection)
        write_qrels(temporary / "qrels.txt", dataset.qrels)
        write_topics(temporary / "topics.tsv", filled_topics(dataset, query))
        if manifest is not None:
            text = json.dumps(dict(manifest), indent=2, ensure_ascii=False) + "\n"
            (temporary / MANIFEST).write_text(text, encoding="utf-8")
        os.chmod(temporary, 0o777 & ~_umask())  # mkdtemp makes 0700; give the folder mkdir's permissions
        os.replace(temporary, target)  # an empty target folder is replaced; POSIX rename is atomic
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
