"""The public-defender (PD) retrieval set (Stammbach et al., "Legal Retrieval for Public Defenders", 2026).

UNCONFIRMED SCHEMA: the paper (arXiv 2601.14348) says the queries and the annotated paragraphs are
released, but the release's file layout could not be found from this machine. This loader expects three
CSV files, with the column names kept in one place below so that they are easy to fix:
queries.csv (`query_id`, `query`), paragraphs.csv (`paragraph_id`, `text`) and judgments.csv
(`query_id`, `paragraph_id`, `label`, label 0 or 1). All queries form the `test` split.
"""

from __future__ import annotations

from pathlib import Path

from tarsim.data import Collection, Document, Qrels
from tarsim.data.lines import PathLike
from tarsim.errors import InputError
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.records import check_id, iter_csv

FILES = {"queries": "queries.csv", "corpus": "paragraphs.csv", "judgments": "judgments.csv"}
QUERY_COLUMNS = {"id": "query_id", "text": "query"}
CORPUS_COLUMNS = {"id": "paragraph_id", "text": "text"}
JUDGMENT_COLUMNS = {"query": "query_id", "doc": "paragraph_id", "label": "label"}


def load_pd(directory: PathLike) -> Benchmark:
    """Load the PD set from `directory` (layout above)."""
    base = Path(directory)
    corpus_path = base / FILES["corpus"]
    documents = [
        Document(
            docid=check_id(corpus_path, line, row[CORPUS_COLUMNS["id"]], "paragraph id"),
            text=row[CORPUS_COLUMNS["text"]].strip(),
        )
        for line, row in iter_csv(corpus_path, list(CORPUS_COLUMNS.values()))
    ]
    try:
        collection = Collection(documents, source=str(corpus_path))
    except InputError as exc:
        raise InputError(corpus_path, None, exc.problem) from None
    queries_path = base / FILES["queries"]
    topics: dict[str, str] = {}
    for line, row in iter_csv(queries_path, list(QUERY_COLUMNS.values())):
        topic = check_id(queries_path, line, row[QUERY_COLUMNS["id"]], "query id")
        if topic in topics:
            raise InputError(queries_path, line, f"query {topic!r} appears twice")
        topics[topic] = row[QUERY_COLUMNS["text"]].strip()
    judgments_path = base / FILES["judgments"]
    qrels: Qrels = {}
    for line, row in iter_csv(judgments_path, list(JUDGMENT_COLUMNS.values())):
        topic = row[JUDGMENT_COLUMNS["query"]].strip()
        docid = row[JUDGMENT_COLUMNS["doc"]].strip()
        if topic not in topics:
            raise InputError(judgments_path, line, f"query {topic!r} is absent from {FILES['queries']}")
        if docid not in collection:
            raise InputError(judgments_path, line, f"paragraph {docid!r} is absent from {FILES['corpus']}")
        label = row[JUDGMENT_COLUMNS["label"]].strip()
        if label not in ("0", "1"):
            raise InputError(judgments_path, line, f"label must be 0 or 1, got {label!r}")
        judged = qrels.setdefault(topic, {})
        if docid in judged:
            raise InputError(judgments_path, line, f"duplicate judgment for query {topic!r}, paragraph {docid!r}")
        judged[docid] = int(label)
    return Benchmark(
        name="pd",
        preset="pd",
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits={"test": list(topics)},
        language="en",
    )
