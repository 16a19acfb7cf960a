"""Document collections: `docs.jsonl` (or `.jsonl.gz`) with `docid`, `text`, optional `title` and `sentences`."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_json_object
from tarsim.errors import InputError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SPACE = re.compile(r"\s")


def docid_problem(docid: object) -> str | None:
    """What makes `docid` unusable (not a string, empty, control characters, white space), or None when fine.

    Docids go into TREC files and one-line messages, where a NUL, a line break or a space would split them.
    """
    if not isinstance(docid, str):
        return f"docid must be a string, got {docid!r}"
    if not docid:
        return "empty docid"
    if _CONTROL.search(docid):
        return f"docid {docid!r} contains a NUL or other control character"
    if _SPACE.search(docid):
        return f"docid {docid!r} contains white space (TREC files cannot hold it)"
    return None


@dataclass(frozen=True, slots=True)
class Document:
    """One reviewable document; `sentences` is None when tarsim should segment `title` + `text` itself."""

    docid: str
    text: str
    title: str = ""
    sentences: tuple[str, ...] | None = None


class Collection(Sequence[Document]):
    """An ordered, docid-unique set of documents; the only copy of the text held in memory. It does not change once
    built (tarsim.features remembers each Collection's digest)."""

    def __init__(self, documents: Iterable[Document], source: str = "<memory>") -> None:
        self.source = source
        self._documents: list[Document] = []
        self._position: dict[str, int] = {}
        for document in documents:
            problem = docid_problem(document.docid)
            if problem:
                raise InputError(source, None, problem)
            if document.docid in self._position:
                raise InputError(source, None, f"duplicate docid {document.docid!r}")
            self._position[document.docid] = len(self._documents)
            self._documents.append(document)

    def __len__(self) -> int:
        return len(self._documents)

    def __getitem__(self, index):  # type: ignore[override]
        return self._documents[index]

    def __iter__(self) -> Iterator[Document]:
        return iter(self._documents)

    def __contains__(self, docid: object) -> bool:
        return docid in self._position

    @property
    def docids(self) -> list[str]:
        """Docids in collection order."""
        return [document.docid for document in self._documents]

    def position(self, docid: str) -> int:
        """Row index of `docid` (its row in feature matrices)."""
        return self._position[docid]

    def get(self, docid: str) -> Document:
        """The document with this docid (KeyError when absent)."""
        return self._documents[self._position[docid]]


def _field_names(record: dict) -> str:
    """The record's field names for a message (JSON-escaped where needed, at most 10)."""
    names = [json.dumps(name) if _CONTROL.search(name) or not name else name for name in list(record)[:10]]
    return ", ".join(names) + (", ..." if len(record) > 10 else "") if names else "none"


def _document_from_json(path: PathLike, number: int, line: str) -> Document:
    record = parse_json_object(path, number, line)
    if "docid" not in record:
        raise InputError(path, number, f'no "docid" field; fields are {_field_names(record)}')
    docid = record["docid"]
    problem = docid_problem(docid)
    if problem:
        raise InputError(path, number, problem)
    if "text" not in record:
        raise InputError(path, number, f'no "text" field; fields are {_field_names(record)}')
    text = record["text"]
    title = record.get("title", "") or ""
    if not isinstance(text, str) or not isinstance(title, str):
        raise InputError(path, number, "'text' and 'title' must be strings")
    sentences = record.get("sentences")
    if sentences is not None:
        if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
            raise InputError(path, number, "'sentences' must be a list of strings")
        if not sentences:
            raise InputError(path, number, "'sentences' is an empty list")
        sentences = tuple(sentences)
    return Document(docid=docid, text=text, title=title, sentences=sentences)


def iter_documents(path: PathLike) -> Iterator[Document]:
    """Stream documents from a `docs.jsonl` or `docs.jsonl.gz` file, one line at a time."""
    for number, line in iter_lines(path):
        yield _document_from_json(path, number, line)


def read_collection(path: PathLike) -> Collection:
    """Read a whole collection file; duplicate docids are reported with their line number."""
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    for number, line in iter_lines(path):
        document = _document_from_json(path, number, line)
        if document.docid in first_line:
            raise InputError(
                path, number, f"duplicate docid {document.docid!r} (first on line {first_line[document.docid]})"
            )
        first_line[document.docid] = number
        documents.append(document)
    return Collection(documents, source=str(path))


def write_collection(path: PathLike, documents: Iterable[Document]) -> None:
    """Write documents as JSON lines (gzip when the name ends in .gz), atomically."""
    path = Path(path)
    with atomic_write(path, "wb") as raw:
        handle = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if path.suffix == ".gz" else raw
        for document in documents:
            record: dict[str, object] = {"docid": document.docid, "title": document.title, "text": document.text}
            if document.sentences is not None:
                record["sentences"] = list(document.sentences)
            handle.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        if handle is not raw:
            handle.close()
