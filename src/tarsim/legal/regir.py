"""EU2UK and UK2EU (Chalkidis et al., EACL 2021): the JSON-lines release of the RegIR datasets.

Schema (confirmed from the dataset's Hugging Face loading script and card, see docs/legal.md): each of
train.jsonl, dev.jsonl, test.jsonl (queries) and corpus.jsonl (documents) holds one JSON object a line with
`document_id`, `publication_year` (a string such as "1977") and `text`; query lines also hold
`relevant_documents`, a list of corpus `document_id`s.
"""

from __future__ import annotations

from pathlib import Path

from tarsim.data import Collection, Document, Qrels
from tarsim.data.lines import PathLike
from tarsim.errors import InputError
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.records import check_id, iter_jsonl

QUERY_FILES = {"train": "train.jsonl", "dev": "dev.jsonl", "test": "test.jsonl"}
CORPUS_FILE = "corpus.jsonl"
ID_KEY, YEAR_KEY, TEXT_KEY, RELEVANT_KEY = "document_id", "publication_year", "text", "relevant_documents"
NAMES = ("eu2uk", "uk2eu")


def parse_year(path: PathLike, line: int, value: object) -> float:
    """A publication year as a number; anything else is a one-line error naming file and record."""
    text = str(value).strip()
    if not (text.isdigit() and len(text) == 4):
        raise InputError(path, line, f"publication_year does not parse as a year: {value!r}")
    return float(text)


def load_regir(directory: PathLike, name: str) -> Benchmark:
    """Load an extracted eu2uk.zip or uk2eu.zip (the four JSON-lines files) as a benchmark."""
    if name not in NAMES:
        raise InputError(directory, None, f"unknown RegIR dataset {name!r}; choose eu2uk or uk2eu")
    base = Path(directory)
    corpus_path = base / CORPUS_FILE
    documents: list[Document] = []
    doc_dates: dict[str, float] = {}
    for line, record in iter_jsonl(corpus_path, (ID_KEY, YEAR_KEY, TEXT_KEY)):
        docid = check_id(corpus_path, line, record[ID_KEY], ID_KEY)
        if docid in doc_dates:
            raise InputError(corpus_path, line, f"duplicate document_id {docid!r}")
        doc_dates[docid] = parse_year(corpus_path, line, record[YEAR_KEY])
        documents.append(Document(docid=docid, text=str(record[TEXT_KEY] or "")))
    collection = Collection(documents, source=str(corpus_path))
    topics: dict[str, str] = {}
    qrels: Qrels = {}
    query_dates: dict[str, float] = {}
    splits: dict[str, list[str]] = {}
    for split, filename in QUERY_FILES.items():
        path = base / filename
        members = splits[split] = []
        for line, record in iter_jsonl(path, (ID_KEY, YEAR_KEY, TEXT_KEY, RELEVANT_KEY)):
            topic = check_id(path, line, record[ID_KEY], ID_KEY)
            if topic in topics:
                raise InputError(path, line, f"query {topic!r} appears twice")
            relevant = record[RELEVANT_KEY]
            if not isinstance(relevant, list):
                raise InputError(path, line, "relevant_documents must be a list of document ids")
            for docid in relevant:
                if str(docid) not in collection:
                    raise InputError(
                        path, line, f"query {topic!r}: relevant document {docid!r} is absent from {CORPUS_FILE}"
                    )
            query_dates[topic] = parse_year(path, line, record[YEAR_KEY])
            topics[topic] = str(record[TEXT_KEY] or "")
            qrels[topic] = {str(docid): 1 for docid in relevant}
            members.append(topic)
    return Benchmark(
        name=name,
        preset=name,
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits=splits,
        doc_dates=doc_dates,
        query_dates=query_dates,
        language="en",
    )
