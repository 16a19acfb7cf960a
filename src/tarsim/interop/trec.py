"""TREC collection formats: SGML files of <DOC>s, folders or archives of one document per file, topic files.

- SGML: `<DOC><DOCNO>id</DOCNO> ... <TEXT>...</TEXT></DOC>`, many documents per file, plain or gzip. The docid is
  the DOCNO; the title the first HEADLINE, TITLE or HEAD element; the text the TEXT elements joined by a blank
  line (without TEXT: the rest of the DOC). Markup inside is blanked to spaces of the same length and entities
  are kept as written, so a character offset into a TEXT element of the published file is an offset into the
  document's `text` (what HARD 2004's passage judgments need, tarsim.interop.passages).
- One document per file (the Total Recall collections, HiCAL's corpus archives): a file without <DOC> is one
  document, its docid the file's base name (as HiCAL's corpus_parser names entries), its text the whole file.
- Sources: a file (plain, .gz, or a tar/zip archive) or a folder searched recursively; files in name order.
- Topics: `<top><num> Number: 301 <title> ... <desc> Description: ... <narr> Narrative: ... </top>`; the topic
  id is the number as written, the query the title (a leading "Topic:" dropped, white space collapsed).
"""

from __future__ import annotations

import gzip
import re
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset, check_topics_cover_qrels
from tarsim.data.lines import PathLike
from tarsim.data.qrels import check_qrels_in_collection, read_qrels
from tarsim.data.topics import Topics
from tarsim.errors import InputError

TITLE_TAGS = ("HEADLINE", "TITLE", "HEAD")
"""Elements read as a document's title, the first present wins."""
TEXT_TAG = "TEXT"
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_MARKUP = re.compile(r"<[^<>]*>")
_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^\s<]+)", re.I)
_TITLE_FIELD = re.compile(r"<title>(.*?)(?=<[a-z/]|\Z)", re.S | re.I)
_SPACE = re.compile(r"\s+")
_GZIP_MAGIC = b"\x1f\x8b"


def _element(tag: str) -> re.Pattern[str]:
    return re.compile(rf"<{tag}\b[^>]*>(.*?)</{tag}>", re.S | re.I)


_TEXTS = _element(TEXT_TAG)
_TITLES = [_element(tag) for tag in TITLE_TAGS]


def _blank_markup(text: str) -> str:
    """Tags replaced by as many spaces, so character offsets stay those of the published file."""
    return _MARKUP.sub(lambda match: " " * len(match.group(0)), text)


def _decode(data: bytes) -> str:
    if data[:2] == _GZIP_MAGIC:
        data = gzip.decompress(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older TREC disks are 8-bit text


def source_files(source: PathLike) -> Iterator[tuple[str, str]]:
    """(name, text) of every file of a folder (recursively), a tar or zip archive, or one file; in name order."""
    source = Path(source)
    if not source.exists():
        raise InputError(source, None, "no such file or directory")
    if source.is_dir():
        for path in sorted(p for p in source.rglob("*") if p.is_file() and not p.name.startswith(".")):
            yield str(path), _decode(path.read_bytes())
    elif zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as archive:
            for name in sorted(n for n in archive.namelist() if not n.endswith("/")):
                yield f"{source}:{name}", _decode(archive.read(name))
    elif tarfile.is_tarfile(source):
        with tarfile.open(source) as archive:
            for member in sorted((m for m in archive.getmembers() if m.isfile()), key=lambda m: m.name):
                handle = archive.extractfile(member)
                if handle is not None:
                    yield f"{source}:{member.name}", _decode(handle.read())
    else:
        yield str(source), _decode(source.read_bytes())


def parse_sgml(name: str, text: str) -> Iterator[Document]:
    """The <DOC>s of one SGML file; a DOC without a DOCNO is an error at its line."""
    for match in _DOC.finditer(text):
        body = match.group(1)
        docno = _DOCNO.search(body)
        if docno is None or not docno.group(1):
            raise InputError(name, text.count("\n", 0, match.start()) + 1, "<DOC> without a <DOCNO>")
        title = next((m.group(1) for pattern in _TITLES if (m := pattern.search(body))), "")
        texts = [m.group(1) for m in _TEXTS.finditer(body)]
        if not texts:  # no TEXT element: everything but the DOCNO and the title
            rest = _DOCNO.sub("", body)
            for pattern in _TITLES:
                rest = pattern.sub("", rest, count=1)
            texts = [rest]
        yield Document(
            docid=docno.group(1),
            title=_SPACE.sub(" ", _MARKUP.sub(" ", title)).strip(),
            text="\n\n".join(_blank_markup(part) for part in texts),
        )


def read_trec_documents(source: PathLike) -> Collection:
    """Every document of an SGML file, folder or archive; files without <DOC> are one document each."""
    documents: list[Document] = []
    for name, text in source_files(source):
        if _DOC.search(text):
            documents.extend(parse_sgml(name, text))
        else:
            documents.append(Document(docid=Path(name.rsplit(":", 1)[-1]).name, text=text))
    if not documents:
        raise InputError(source, None, "no document found (no file, or no <DOC> in any file)")
    return Collection(documents, source=str(source))


def read_trec_topics(path: PathLike) -> Topics:
    """Topic number -> title of a TREC topic file (<top> ... </top>); a topic without number or title is an error."""
    text = _decode(Path(path).read_bytes())
    topics: Topics = {}
    for match in _TOP.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        number, title = _NUM.search(match.group(1)), _TITLE_FIELD.search(match.group(1))
        if number is None:
            raise InputError(path, line, "<top> without a <num>")
        query = _SPACE.sub(" ", title.group(1)).strip() if title else ""
        query = re.sub(r"^Topic:\s*", "", query, flags=re.I)
        if not query:
            raise InputError(path, line, f"topic {number.group(1)} has no <title> text")
        if number.group(1) in topics:
            raise InputError(path, line, f"duplicate topic {number.group(1)!r}")
        topics[number.group(1)] = query
    if not topics:
        raise InputError(path, None, "no <top> topic found")
    return topics


def read_trec_dataset(source: PathLike, qrels: PathLike, topics: PathLike, name: str = "trec") -> Dataset:
    """A collection from TREC files: documents (SGML or one per file), TREC qrels and a TREC topic file."""
    collection = read_trec_documents(source)
    judged = read_qrels(qrels)
    check_qrels_in_collection(judged, collection, qrels)
    queries = read_trec_topics(topics)
    check_topics_cover_qrels(judged, queries, topics)
    return Dataset(collection=collection, qrels=judged, topics=queries, name=name)
