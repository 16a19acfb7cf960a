"""Texts for CLEF TAR pids: PubMed XML files or JSON lines, read for the pids wanted only.

JSON lines hold one record a line, `{"id": pmid, "title": ..., "content": ...}`, the layout of the CLEF 2017
texts published with Li & Kanoulas (2020) (github:dli1/auto-stop-tar, `data/clef2017/doctexts/<topic>`), where
`content` is the title, a space and the abstract: the title is taken off its start, so that `text` is the
abstract alone (as in ../shared/datasets/clef2017). tarsim's own `docs.jsonl` (`docid`, `title`, `text`) is read
too. PubMed XML: tarsim.interop.pubmed_xml. A file's format is told by its first character (`<` or `{`), so the
extensionless per-topic files of auto-stop-tar and .gz files read as they are.

A pmid found twice keeps its last text (PubMed's update files revise earlier records); how many texts changed so
is counted.
"""

from __future__ import annotations

from collections.abc import Collection as Container
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tarsim.data.lines import PathLike, iter_lines, open_binary, parse_json_object
from tarsim.errors import InputError
from tarsim.interop.pubmed_xml import iter_pubmed_xml


@dataclass
class Texts:
    """pmid -> (title, text) for the pids wanted, and the counts a report needs."""

    by_pmid: dict[str, tuple[str, str]] = field(default_factory=dict)
    records: int = 0  # records read, wanted or not
    replaced: int = 0  # wanted pmids found again with another text (the last kept)


def text_format(path: PathLike) -> str:
    """`xml` or `jsonl`, from the first character that is not white space (or a byte-order mark)."""
    with open_binary(path) as handle:
        try:
            head = handle.read(4096)
        except (OSError, EOFError) as exc:
            raise InputError(path, None, f"cannot read: {exc}") from None
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]
    if not first:
        raise InputError(path, None, "empty file (no texts)")
    if first == b"<":
        return "xml"
    if first == b"{":
        return "jsonl"
    raise InputError(path, 1, "neither PubMed XML (`<`) nor JSON lines (`{`): cannot read texts from it")


def _string(path: PathLike, number: int, record: dict, names: tuple[str, ...]) -> str:
    for name in names:
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InputError(path, number, f"{name!r} must be a string, found {type(value).__name__}")
        return value.strip()
    return ""


def iter_jsonl_texts(path: PathLike) -> Iterator[tuple[str, str, str]]:
    """(pmid, title, text) of each JSON-lines record; `content` loses its leading title."""
    for number, line in iter_lines(path):
        record = parse_json_object(path, number, line)
        pmid = record.get("id", record.get("docid"))
        if isinstance(pmid, int) and not isinstance(pmid, bool):
            pmid = str(pmid)
        if not isinstance(pmid, str) or not pmid.strip():
            raise InputError(path, number, 'no "id" (the PubMed id) in the record')
        title = _string(path, number, record, ("title",))
        if "content" in record:
            text = _string(path, number, record, ("content",))
            if title and text.startswith(title):
                text = text[len(title) :].strip()
        else:
            text = _string(path, number, record, ("text",))
        yield pmid.strip(), title, text


def text_files(sources: Iterable[PathLike]) -> list[Path]:
    """The files given, a folder standing for its files (not hidden ones), in name order."""
    files: list[Path] = []
    for source in map(Path, sources):
        if source.is_dir():
            files.extend(sorted(p for p in source.iterdir() if p.is_file() and not p.name.startswith(".")))
        elif source.exists():
            files.append(source)
        else:
            raise InputError(source, None, "no such file or directory")
    return files


def read_texts(sources: Iterable[PathLike], wanted: Container[str]) -> Texts:
    """The texts of the `wanted` pmids from every file of `sources` (PubMed XML or JSON lines)."""
    texts = Texts()
    for path in text_files(sources):
        if text_format(path) == "xml":
            records: Iterator[tuple[str, str, str]] = ((r.pmid, r.title, r.abstract) for r in iter_pubmed_xml(path))
        else:
            records = iter_jsonl_texts(path)
        for pmid, title, text in records:
            texts.records += 1
            if pmid not in wanted:
                continue
            previous = texts.by_pmid.get(pmid)
            if previous is not None and previous != (title, text):
                texts.replaced += 1
            texts.by_pmid[pmid] = (title, text)
    return texts
