"""bBSARD (Lotfi et al. 2024): bilingual Belgian statutory article retrieval, one benchmark per language.

Two releases of the same data, both read:
- GitHub (github:ELotfi/bbsard, `data/`): `french/fr_articles_new_filtered.csv`, `french/fr_{train,test}_filtered.csv`,
  `dutch/du_articles_new_filtered.csv`, `dutch/du_{train,test}_T0_filtered.csv`;
- Hugging Face (clips/bBSARD): `fr/` and `nl/`, each with `corpus.csv`, `train.csv`, `test.csv`.
Questions: `id,category,subcategory,question,extra_description,article_ids` (article ids comma-separated; only `id`,
`question` and `article_ids` are used). Articles: `id` and `article`, the columns the release code reads
(scripts/experiments/utils/data.py, `documents.set_index('id')['article']`). Ids are integers there (pandas reads
them so; `int(i)` for the article ids): they are compared as integers here too. An article file without an `id`
column numbers its articles by row position from 1, as the release code's lexical models do (`results[i+1]`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

from tarsim.data import Collection, Document, Qrels
from tarsim.data.lines import PathLike
from tarsim.errors import InputError, InputWarning
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.records import integer_id, iter_csv

LANGUAGES = ("fr", "nl")
SPLITS = ("train", "test")
CORPUS_COLUMNS = {"id": "id", "text": "article"}
QUESTION_COLUMNS = {"id": "id", "text": "question", "relevant": "article_ids"}
GITHUB = {
    "fr": ("french", "fr_articles_new_filtered.csv", "fr_{split}_filtered.csv"),
    "nl": ("dutch", "du_articles_new_filtered.csv", "du_{split}_T0_filtered.csv"),
}
"""The GitHub release's folder, article file and question files per language."""


@dataclass(frozen=True)
class ReleaseFiles:
    """Where one language's files are, and which release they follow ("github" or "huggingface")."""

    layout: str
    corpus: Path
    splits: dict[str, Path]


@dataclass(frozen=True)
class Questions:
    """One question file: each question's text and its relevant articles, in file order."""

    topics: dict[str, str]
    qrels: Qrels
    lines: dict[str, int]


def release_files(directory: PathLike, language: str) -> ReleaseFiles:
    """The files of `language` under `directory` in either layout (the GitHub one also under `data/`)."""
    if language not in LANGUAGES:
        raise InputError(directory, None, f"unknown bBSARD language {language!r}; choose fr or nl")
    base = Path(directory)
    folder, articles, questions = GITHUB[language]
    for root in (base, base / "data"):
        if (root / folder).is_dir():
            splits = {split: root / folder / questions.format(split=split) for split in SPLITS}
            return ReleaseFiles("github", root / folder / articles, splits)
    hf = base / language
    if hf.is_dir():
        return ReleaseFiles("huggingface", hf / "corpus.csv", {split: hf / f"{split}.csv" for split in SPLITS})
    raise InputError(
        base, None, f"no {folder}/ (GitHub release) or {language}/ (Hugging Face release) folder for bBSARD {language}"
    )


def read_questions(path: PathLike) -> Questions:
    """A question file: an empty question or article list, or a repeated id, is an error naming the line."""
    topics: dict[str, str] = {}
    qrels: Qrels = {}
    lines: dict[str, int] = {}
    for line, row in iter_csv(path, list(QUESTION_COLUMNS.values())):
        topic = integer_id(path, line, row[QUESTION_COLUMNS["id"]], "question id")
        if topic in topics:
            raise InputError(path, line, f"question {topic} appears twice (first on line {lines[topic]})")
        text = row[QUESTION_COLUMNS["text"]].strip()
        if not text:
            raise InputError(path, line, f"question {topic} has an empty text")
        parts = [part for part in row[QUESTION_COLUMNS["relevant"]].split(",") if part.strip()]
        if not parts:
            raise InputError(path, line, f"question {topic} has no article_ids")
        topics[topic], lines[topic] = text, line
        ids = [integer_id(path, line, part, "article id") for part in parts]
        qrels[topic] = dict.fromkeys(ids, 1)
        if len(qrels[topic]) < len(ids):
            repeated = next(docid for docid in ids if ids.count(docid) > 1)
            warnings.warn(
                f"{path}:{line}: question {topic} lists article {repeated} more than once; counted once (the release "
                f"code's evaluator divides recall and MAP by the list's length, {len(ids)})",
                InputWarning,
                stacklevel=2,
            )
    return Questions(topics, qrels, lines)


def read_articles(path: PathLike) -> Collection:
    """The article file (`id`, `article`; without `id`, articles numbered by row from 1). Ids other than 1..N in row
    order get a warning: the release code's BM25 and TF-IDF number articles by row position, not by `id`."""
    documents, positional = [], True
    for position, (line, row) in enumerate(iter_csv(path, [CORPUS_COLUMNS["text"]]), 1):
        if CORPUS_COLUMNS["id"] in row:
            docid = integer_id(path, line, row[CORPUS_COLUMNS["id"]], "article id")
        else:
            docid = str(position)
        positional = positional and docid == str(position)
        documents.append(Document(docid=docid, text=row[CORPUS_COLUMNS["text"]].strip()))
    if not positional:
        warnings.warn(
            f"{path}: article ids are not 1..N in row order; tarsim uses the id column, the release code's "
            "lexical models number articles by row position",
            InputWarning,
            stacklevel=2,
        )
    try:
        return Collection(documents, source=str(path))
    except InputError as exc:
        raise InputError(path, None, exc.problem) from None


def load_bbsard(directory: PathLike, language: str) -> Benchmark:
    """Load one language of bBSARD from either release's files under `directory`."""
    files = release_files(directory, language)
    collection = read_articles(files.corpus)
    topics: dict[str, str] = {}
    qrels: Qrels = {}
    splits: dict[str, list[str]] = {}
    for split, path in files.splits.items():
        questions = read_questions(path)
        for topic, judged in questions.qrels.items():
            if topic in topics:
                raise InputError(path, questions.lines[topic], f"question {topic} is also in another split")
            absent = [docid for docid in judged if docid not in collection]
            if absent:
                raise InputError(
                    path,
                    questions.lines[topic],
                    f"question {topic}: article {absent[0]} is absent from {files.corpus.name}",
                )
        topics.update(questions.topics)
        qrels.update(questions.qrels)
        splits[split] = list(questions.topics)
    return Benchmark(
        name=f"bbsard-{language}",
        preset=f"bbsard-{language}",
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits=splits,
        language=language,
    )
