"""A retrieval benchmark in memory (corpus, queries, qrels, splits, dates) and its directory form.

Directory form (what `tarsim data convert` writes and `tarsim retrieve` / `tarsim bench` read):
docs.jsonl, topics.tsv (query text on one line), qrels.txt, splits.tsv (`topic<TAB>split`),
optional doc_dates.tsv / query_dates.tsv (`id<TAB>number`: a year, or a story's position) and
benchmark.json (`{"name": ..., "preset": ..., "language": ...}`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from tarsim.data import (
    Collection,
    Qrels,
    Topics,
    atomic_write,
    read_collection,
    read_qrels,
    read_topics,
    write_collection,
    write_qrels,
    write_topics,
)
from tarsim.data.dataset import find_docs_file
from tarsim.data.lines import PathLike, iter_lines, parse_float
from tarsim.data.qrels import check_qrels_in_collection
from tarsim.errors import InputError

Dates = dict[str, float]
FILES = ("docs.jsonl", "topics.tsv", "qrels.txt", "splits.tsv", "benchmark.json")


@dataclass
class Benchmark:
    """One benchmark (one language for bBSARD): everything a BM25 baseline and its evaluation need."""

    name: str
    preset: str
    collection: Collection
    topics: Topics
    qrels: Qrels
    splits: dict[str, list[str]]
    doc_dates: Dates | None = None
    query_dates: Dates | None = None
    language: str = "en"
    extra: dict[str, str] = field(default_factory=dict)

    def split(self, name: str) -> Topics:
        """The query texts of one split, in split order."""
        if name not in self.splits:
            raise InputError(self.name, None, f"no split {name!r}; splits are {', '.join(self.splits)}")
        return {topic: self.topics[topic] for topic in self.splits[name]}


def one_line(text: str) -> str:
    """Collapse white space so a whole document fits on one topics.tsv line."""
    return re.sub(r"\s+", " ", text).strip()


def check_qrels_in_corpus(qrels: Qrels, collection: Collection, path: PathLike) -> None:
    """Every judged docid must exist in the corpus; name the first one that does not."""
    for topic in sorted(qrels):
        for docid in sorted(qrels[topic]):
            if docid not in collection:
                raise InputError(path, None, f"topic {topic!r}: docid {docid!r} is absent from the corpus")


def save_benchmark(benchmark: Benchmark, directory: PathLike) -> Path:
    """Write a benchmark in directory form (each file atomically)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    write_collection(out / "docs.jsonl", benchmark.collection)
    write_topics(out / "topics.tsv", {t: one_line(q) for t, q in benchmark.topics.items()})
    write_qrels(out / "qrels.txt", benchmark.qrels)
    with atomic_write(out / "splits.tsv") as handle:
        for split, topics in benchmark.splits.items():
            for topic in topics:
                handle.write(f"{topic}\t{split}\n")
    for name, dates in (("doc_dates.tsv", benchmark.doc_dates), ("query_dates.tsv", benchmark.query_dates)):
        if dates is not None:
            with atomic_write(out / name) as handle:
                for key, value in dates.items():
                    handle.write(f"{key}\t{value:g}\n")
    meta = {"name": benchmark.name, "preset": benchmark.preset, "language": benchmark.language, **benchmark.extra}
    with atomic_write(out / "benchmark.json") as handle:
        handle.write(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return out


def read_splits(path: PathLike) -> dict[str, list[str]]:
    """Read `topic<TAB>split` lines into split -> topics (file order)."""
    splits: dict[str, list[str]] = {}
    seen: set[str] = set()
    for number, line in iter_lines(path):
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise InputError(path, number, "expected 2 tab-separated columns (topic, split)")
        if fields[0] in seen:
            raise InputError(path, number, f"topic {fields[0]!r} listed twice")
        seen.add(fields[0])
        splits.setdefault(fields[1], []).append(fields[0])
    return splits


def read_dates(path: PathLike) -> Dates:
    """Read `id<TAB>number` dates (a year or an ordinal position)."""
    dates: Dates = {}
    for number, line in iter_lines(path):
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(path, number, "expected 2 tab-separated columns (id, date)")
        dates[fields[0]] = parse_float(path, number, fields[1], "date")
    return dates


def load_benchmark(directory: PathLike) -> Benchmark:
    """Read a benchmark directory; missing files, bad records and unknown qrels docids fail with one line."""
    base = Path(directory)
    if not base.is_dir():
        raise InputError(base, None, "benchmark directory does not exist")
    for name in FILES:
        if not (base / name).exists():
            raise InputError(base / name, None, "no such file (expected in a benchmark directory)")
    try:
        meta = json.loads((base / "benchmark.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(base / "benchmark.json", None, f"invalid JSON: {exc}") from None
    if not isinstance(meta, dict) or "preset" not in meta:
        raise InputError(base / "benchmark.json", None, "expected an object with 'name' and 'preset'")
    collection = read_collection(base / "docs.jsonl")
    qrels = read_qrels(base / "qrels.txt")
    check_qrels_in_corpus(qrels, collection, base / "qrels.txt")
    topics = read_topics(base / "topics.tsv")
    splits = read_splits(base / "splits.tsv")
    for split, members in splits.items():
        for topic in members:
            if topic not in topics:
                raise InputError(base / "splits.tsv", None, f"split {split!r}: topic {topic!r} absent from topics.tsv")
    doc_dates = read_dates(base / "doc_dates.tsv") if (base / "doc_dates.tsv").exists() else None
    query_dates = read_dates(base / "query_dates.tsv") if (base / "query_dates.tsv").exists() else None
    extra = {k: str(v) for k, v in meta.items() if k not in ("name", "preset", "language")}
    return Benchmark(
        name=str(meta.get("name", base.name)),
        preset=str(meta["preset"]),
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits=splits,
        doc_dates=doc_dates,
        query_dates=query_dates,
        language=str(meta.get("language", "en")),
        extra=extra,
    )


def load_directory(directory: PathLike) -> Benchmark:
    """A benchmark directory, or a plain collection directory (docs, topics.tsv, optional qrels.txt) seen as a
    one-split benchmark named after the directory, split `all`.

    A plain directory's qrels may name documents it lacks (a warning with counts), but not only such documents
    (an error): then the qrels belong to another collection and every topic would score 0.
    """
    base = Path(directory)
    if (base / "benchmark.json").exists():
        return load_benchmark(base)
    collection = read_collection(find_docs_file(base))
    topics = read_topics(base / "topics.tsv")
    qrels = {}
    if (base / "qrels.txt").exists():
        qrels = read_qrels(base / "qrels.txt")
        check_qrels_in_collection(qrels, collection, base / "qrels.txt")
    return Benchmark(
        name=base.name,
        preset="default",
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits={"all": list(topics)},
    )
