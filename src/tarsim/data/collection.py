"""Document collections: `docs.jsonl` (or `.jsonl.gz`) with `docid`, `text`, optional `title` and `sentences`."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_json_object
from tarsim.errors import InputError


@dataclass(frozen=True, slots=True)
class Document:
    """One reviewable document; `sentences` is None when tarsim should segment `title` + `text` itself."""

    docid: str
    text: str
    title: str = ""
    sentences: tuple[str, ...] | None = None


class Collection(Sequence[Document]):
    """An ordered, docid-unique set of documents; the only copy of the text held in memory."""

    def __init__(self, documents: Iterable[Document], source: str = "<memory>") -> None:
        self.source = source
        self._documents: list[Document] = []
        self._position: dict[str, int] = {}
        for document in documents:
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


def _document_from_json(path: PathLike, number: int, line: str) -> Document:
    record = parse_json_object(path, number, line)
    docid = record.get("docid")
    if not isinstance(docid, str) or not docid:
        raise InputError(path, number, "missing or non-string 'docid'")
    if any(ch.isspace() for ch in docid):
        raise InputError(path, number, f"docid {docid!r} contains white space (TREC files cannot hold it)")
    text = record.get("text", "")
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
