"""The public-defender (PD) retrieval set as released (Stammbach et al., "Legal Retrieval for Public Defenders", 2026).

Layout of the release (github:conference-on-datascience-and-law/anonymized-public-defender-retrieval, `data/`):
- `queries_and_targets.csv`: one row per (query, gold paragraph), columns `query_idx,query,gold_idx,gold_paragraph`
  (170 queries, 543 rows, 390 distinct gold paragraphs). A query with several gold paragraphs has several rows.
- the corpus: `corpus_1.zip` and `corpus_2.zip`, each holding one JSON-lines file (`corpus_1.jsonl`,
  `corpus_2.jsonl`); the README unzips them and concatenates the two into `corpus.jsonl`, one
  `{"id": ..., "contents": ...}` a line (about 96k paragraphs). Either form is read here: `corpus.jsonl` when it
  exists, else the two zips directly (nothing is extracted to disk).

Ids are compared as the release code compares them: `int(id)` for the corpus, integers for `query_idx` and `gold_idx`
(pandas reads them so), so "007" and "7" are the same paragraph. The gold paragraph's text in the CSV is not used for
retrieval (the corpus holds it); it is compared with the corpus text of the same id, a warning saying how many
differ (the only check that the ids of the two files line up). All queries form the `test` split; every judgment is
relevant (grade 1).
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tarsim.data import Collection, Document, Qrels
from tarsim.data.lines import PathLike
from tarsim.errors import InputError, InputWarning
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.records import integer_id, iter_csv, require_file

QUERIES_FILE = "queries_and_targets.csv"
CORPUS_FILE = "corpus.jsonl"
CORPUS_ZIPS = ("corpus_1.zip", "corpus_2.zip")
QUERY_COLUMNS = ("query_idx", "query", "gold_idx", "gold_paragraph")
CORPUS_KEYS = ("id", "contents")


@dataclass(frozen=True)
class PdQueries:
    """What `queries_and_targets.csv` holds: each query's text, its gold paragraphs, the number of rows, and, per
    gold paragraph, the line where it is first named (for errors about it) and its text there (to cross-check)."""

    topics: dict[str, str]
    qrels: Qrels
    rows: int
    gold_lines: dict[str, int]
    gold_texts: dict[str, str]


def read_pd_queries(path: PathLike) -> PdQueries:
    """Read `queries_and_targets.csv`: a query with an empty text, or one `query_idx` with two different texts,
    is an error naming the line; a repeated (query, gold paragraph) row counts once (the release code collects the
    gold ids of a query in a set)."""
    topics: dict[str, str] = {}
    qrels: Qrels = {}
    gold_lines: dict[str, int] = {}
    gold_texts: dict[str, str] = {}
    rows = 0
    for line, row in iter_csv(path, QUERY_COLUMNS):
        rows += 1
        topic = integer_id(path, line, row["query_idx"], "query_idx")
        query = row["query"].strip()
        if not query:
            raise InputError(path, line, f"query {topic} has an empty query text")
        if topics.setdefault(topic, query) != query:
            raise InputError(path, line, f"query {topic} has a different text than on an earlier row")
        gold = integer_id(path, line, row["gold_idx"], "gold_idx")
        qrels.setdefault(topic, {})[gold] = 1
        gold_lines.setdefault(gold, line)
        gold_texts.setdefault(gold, row["gold_paragraph"])
    if not rows:
        raise InputError(path, None, "no queries (header only)")
    return PdQueries(topics=topics, qrels=qrels, rows=rows, gold_lines=gold_lines, gold_texts=gold_texts)


def _records(name: str, handle: io.TextIOBase) -> Iterator[tuple[int, dict]]:
    """(line, object) of a corpus JSON-lines stream; `name` is how errors name it (file, or zip:member)."""
    for number, line in enumerate(handle, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(name, number, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(record, dict):
            raise InputError(name, number, "expected a JSON object")
        missing = [key for key in CORPUS_KEYS if key not in record]
        if missing:
            raise InputError(name, number, f"missing key(s) {', '.join(missing)}")
        yield number, record


def is_corpus_member(name: str) -> bool:
    """A `.jsonl` member of a corpus zip, not macOS's resource-fork copies (`__MACOSX/`, `._name`)."""
    base = name.rsplit("/", 1)[-1]
    return name.endswith(".jsonl") and not name.startswith("__MACOSX/") and not base.startswith("._")


def iter_corpus_records(sources: list[Path]) -> Iterator[tuple[str, int, dict]]:
    """(where, line, record) of every corpus line, in order: a `.jsonl` file, or every `.jsonl` member of a zip
    (named `archive.zip:member.jsonl` in errors)."""
    for source in sources:
        if source.suffix != ".zip":
            with require_file(source).open(encoding="utf-8") as handle:
                for number, record in _records(str(source), handle):
                    yield str(source), number, record
            continue
        try:
            archive = zipfile.ZipFile(require_file(source))
        except zipfile.BadZipFile:
            raise InputError(source, None, "not a zip archive") from None
        with archive:
            members = sorted(name for name in archive.namelist() if is_corpus_member(name))
            if not members:
                raise InputError(source, None, "holds no .jsonl file")
            for member in members:
                where = f"{source}:{member}"
                with archive.open(member) as raw, io.TextIOWrapper(raw, encoding="utf-8") as handle:
                    for number, record in _records(where, handle):
                        yield where, number, record


def corpus_sources(directory: PathLike) -> list[Path]:
    """`corpus.jsonl` if the folder has it, else the release's two zips (an error names what is missing)."""
    base = Path(directory)
    if (base / CORPUS_FILE).is_file():
        return [base / CORPUS_FILE]
    zips = [base / name for name in CORPUS_ZIPS]
    absent = [path.name for path in zips if not path.is_file()]
    if absent:
        raise InputError(base, None, f"no {CORPUS_FILE} and no {' + '.join(absent)} (the PD release's corpus)")
    return zips


def read_pd_corpus(sources: list[Path]) -> Collection:
    """The paragraphs of `corpus.jsonl` or of the two zips: one Document per record, `id` as an integer string."""
    documents, seen = [], {}
    for where, number, record in iter_corpus_records(sources):
        docid = integer_id(where, number, record["id"], "id")
        if docid in seen:
            raise InputError(where, number, f"paragraph id {docid} appears twice (first at {seen[docid]})")
        seen[docid] = f"{where}:{number}"
        contents = record["contents"]
        if not isinstance(contents, str):
            raise InputError(where, number, f"contents must be a string, got {type(contents).__name__}")
        documents.append(Document(docid=docid, text=contents.strip()))
    if not documents:
        raise InputError(sources[0], None, "the corpus is empty")
    return Collection(documents, source=", ".join(map(str, sources)))


def release_folder(directory: PathLike) -> Path:
    """The folder holding `queries_and_targets.csv`: `directory` itself or its `data/` (the release's root)."""
    base = Path(directory)
    if not (base / QUERIES_FILE).exists() and (base / "data" / QUERIES_FILE).exists():
        return base / "data"
    return base


def check_gold_texts(path: Path, queries: PdQueries, collection: Collection) -> None:
    """Warn when gold paragraphs' texts in the queries file differ from the corpus paragraphs of the same id (white
    space aside): the only check that the two files' ids line up. The first such line is named."""
    differing = [
        gold
        for gold, text in queries.gold_texts.items()
        if " ".join(text.split()) != " ".join(collection.get(gold).text.split())
    ]
    if differing:
        warnings.warn(
            f"{path}:{queries.gold_lines[differing[0]]}: {len(differing):,} of {len(queries.gold_texts):,} gold "
            f"paragraphs differ from the corpus text of the same id (first: {differing[0]}); check that the "
            "queries file and the corpus come from the same release",
            InputWarning,
            stacklevel=3,
        )


def load_pd(directory: PathLike) -> Benchmark:
    """Load the PD release from `directory` (or its `data/`): the queries file and the corpus (jsonl or zips).
    A gold paragraph absent from the corpus is an error naming the queries file's line."""
    base = release_folder(directory)
    queries_path = base / QUERIES_FILE
    queries = read_pd_queries(queries_path)
    collection = read_pd_corpus(corpus_sources(base))
    for gold, line in queries.gold_lines.items():
        if gold not in collection:
            raise InputError(queries_path, line, f"gold paragraph {gold} is absent from the corpus")
    check_gold_texts(queries_path, queries, collection)
    return Benchmark(
        name="pd",
        preset="pd",
        collection=collection,
        topics=queries.topics,
        qrels=queries.qrels,
        splits={"test": list(queries.topics)},
        language="en",
    )
