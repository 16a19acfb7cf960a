"""bBSARD (Lotfi et al. 2024): bilingual Belgian statutory article retrieval, one benchmark per language.

Layout (confirmed from the Hugging Face dataset card clips/bBSARD): `fr/` and `nl/`, each with corpus.csv,
train.csv and test.csv. Columns: questions have `id`, `question`, `article_ids` (comma-separated corpus ids;
`category`, `subcategory`, `extra_description` are also present and ignored); the corpus has `id` and
`article` (column names taken from BSARD, which bBSARD extends; not confirmed for the bBSARD corpus files:
change CORPUS_COLUMNS if they differ). Without an `id` column an article's id is its row position + 1 (the first
article is 1), as the official BSARD code numbers articles by position.
"""

from __future__ import annotations

from pathlib import Path

from tarsim.data import Collection, Document, Qrels
from tarsim.data.lines import PathLike
from tarsim.errors import InputError
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.records import check_id, iter_csv

LANGUAGES = ("fr", "nl")
SPLITS = ("train", "test")
CORPUS_COLUMNS = {"id": "id", "text": "article"}
QUESTION_COLUMNS = {"id": "id", "text": "question", "relevant": "article_ids"}


def load_bbsard(directory: PathLike, language: str) -> Benchmark:
    """Load one language of bBSARD from `directory/<language>/{corpus,train,test}.csv`."""
    if language not in LANGUAGES:
        raise InputError(directory, None, f"unknown bBSARD language {language!r}; choose fr or nl")
    base = Path(directory) / language
    corpus_path = base / "corpus.csv"
    documents = []
    for position, (line, row) in enumerate(iter_csv(corpus_path, [CORPUS_COLUMNS["text"]]), 1):
        if CORPUS_COLUMNS["id"] in row:
            docid = check_id(corpus_path, line, row[CORPUS_COLUMNS["id"]], "article id")
        else:  # no id column: the row's position + 1, as the official code indexes articles
            docid = str(position)
        documents.append(Document(docid=docid, text=row[CORPUS_COLUMNS["text"]].strip()))
    try:
        collection = Collection(documents, source=str(corpus_path))
    except InputError as exc:
        raise InputError(corpus_path, None, exc.problem) from None
    topics: dict[str, str] = {}
    qrels: Qrels = {}
    splits: dict[str, list[str]] = {}
    for split in SPLITS:
        path = base / f"{split}.csv"
        members = splits[split] = []
        for line, row in iter_csv(path, list(QUESTION_COLUMNS.values())):
            topic = check_id(path, line, row[QUESTION_COLUMNS["id"]], "question id")
            if topic in topics:
                raise InputError(path, line, f"question {topic!r} appears twice")
            relevant = [part.strip() for part in row[QUESTION_COLUMNS["relevant"]].split(",") if part.strip()]
            if not relevant:
                raise InputError(path, line, f"question {topic!r} has no article_ids")
            for docid in relevant:
                if docid not in collection:
                    raise InputError(path, line, f"question {topic!r}: article {docid!r} is absent from corpus.csv")
            topics[topic] = row[QUESTION_COLUMNS["text"]].strip()
            qrels[topic] = dict.fromkeys(relevant, 1)
            members.append(topic)
    return Benchmark(
        name=f"bbsard-{language}",
        preset=f"bbsard-{language}",
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits=splits,
        language=language,
    )
