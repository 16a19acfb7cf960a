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

import re
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset, check_topics_cover_qrels
from tarsim.data.limits import decompress_gzip, open_regular, read_regular
from tarsim.data.lines import PathLike, check_not_wide
from tarsim.data.qrels import check_qrels_in_collection, read_qrels
from tarsim.data.topics import Topics
from tarsim.errors import InputError, InputWarning
from tarsim.interop.archives import DAMAGED_ZIP, is_tar, open_zip, read_zip_member, tar_members
from tarsim.interop.source_paths import missing_source

TITLE_TAGS = ("HEADLINE", "TITLE", "HEAD")
"""Elements read as a document's title, the first present wins."""
TEXT_TAG = "TEXT"
_DOC_TAG = re.compile(r"<(/?)DOC>", re.I)
_TOP_TAG = re.compile(r"<(/?)top>", re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_MARKUP = re.compile(r"<[^<>]*>")
_NUM = re.compile(r"<num>([^<]*)", re.I)
_NUMBER_LABEL = re.compile(r"^\s*Number:", re.I)
_TITLE_FIELD = re.compile(r"<title>(.*?)(?=<[a-z/]|\Z)", re.S | re.I)
_SPACE = re.compile(r"\s+")
_LONE_CR = re.compile(r"\r(?!\n)")
_GZIP_MAGIC = b"\x1f\x8b"


def _element(tag: str) -> re.Pattern[str]:
    return re.compile(rf"<{tag}\b[^>]*>(.*?)</{tag}>", re.S | re.I)


_TEXTS = _element(TEXT_TAG)
_TITLES = [_element(tag) for tag in TITLE_TAGS]


def _blank_markup(text: str) -> str:
    """Tags replaced by as many spaces, so character offsets stay those of the published file."""
    return _MARKUP.sub(lambda match: " " * len(match.group(0)), text)


_ARCHIVE_MAGIC = {b"PK\x03\x04": "a zip archive", b"PK\x05\x06": "a zip archive", b"BZh": "a bzip2 file",
                  b"\xfd7zXZ": "an xz file", b"7z\xbc\xaf": "a 7-Zip archive"}  # fmt: skip


def _decode(name: str, data: bytes, *, inside: bool = True) -> str:
    """A file's text (gunzipped when gzip'd); an archive or other binary file is refused in one line, where reading it
    as one document of raw bytes would invent a record. `inside=False`: the file is the source itself, which
    source_files reads as a zip or tar archive when it is one, so one that looks like an archive here is damaged or
    of a kind tarsim does not open."""
    if data[:2] == _GZIP_MAGIC:
        data = decompress_gzip(name, data)
    kind = next((what for magic, what in _ARCHIVE_MAGIC.items() if data.startswith(magic)), None)
    if kind is None and data[257:262] == b"ustar":
        kind = "a tar archive"
    if kind == "a zip archive" and not inside:
        raise InputError(name, None, DAMAGED_ZIP)
    if kind == "a tar archive" and not inside:
        raise InputError(name, None, "damaged or truncated tar archive (tarfile cannot open it)")
    if kind is not None and not inside:
        raise InputError(name, None, f"{kind}: tarsim reads plain or gzip text, tar archives and zip archives")
    if kind is not None:
        raise InputError(name, None, f"{kind}, not a text file of documents: extract it (or give it as the source)")
    check_not_wide(name, data[:64])  # UTF-16/32 text is named, not called binary data
    if b"\x00" in data[:8192]:
        raise InputError(name, None, "binary data (NUL bytes), not a text file of documents")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older TREC disks are 8-bit text


def source_files(source: PathLike) -> Iterator[tuple[str, str]]:
    """(name, text) of every file of a folder (recursively), a tar or zip archive, or one file; in name order. Only
    regular files are read (a FIFO or a device in the folder is refused, not skipped), archives within the
    decompression cap, and a damaged or truncated archive is one line naming it."""
    source = Path(source)
    if not source.exists():
        raise missing_source(source)
    if source.is_dir():
        for path in sorted(p for p in source.rglob("*") if not p.is_dir() and not p.name.startswith(".")):
            yield str(path), _decode(str(path), read_regular(path))
        return
    with open_regular(source) as handle:
        if zipfile.is_zipfile(handle):
            handle.seek(0)
            with open_zip(source, handle) as archive:
                for name in sorted(n for n in archive.namelist() if not n.endswith("/")):
                    member = f"{source}:{name}"
                    yield member, _decode(member, read_zip_member(source, archive, name))
        elif is_tar(handle):
            for name, data in tar_members(source, handle):
                yield f"{source}:{name}", _decode(f"{source}:{name}", data)
        else:
            yield str(source), _decode(str(source), handle.read(), inside=False)


def doc_bodies(name: str, text: str) -> Iterator[tuple[int, str]]:
    """(line, body) of every <DOC>...</DOC> of an SGML text, by the balance of the two tags: a <DOC> opened inside
    another (its </DOC> missing), a <DOC> never closed and a </DOC> without its <DOC> are refused naming the line,
    where a search for <DOC>.*?</DOC> would merge two documents into one."""
    return balanced(name, text, _DOC_TAG, "DOC")


def balanced(name: str, text: str, tags: re.Pattern[str], tag: str) -> Iterator[tuple[int, str]]:
    """(line, body) of every <tag>...</tag> of a text, `tags` matching both (group 1 is the `/`), refused at the line
    when one opens inside another, is never closed, or closes without opening."""
    opened: re.Match[str] | None = None
    opened_line = 0
    line, position = 1, 0
    for found in tags.finditer(text):
        line += text.count("\n", position, found.start())
        position = found.start()
        if not found.group(1):
            if opened is not None:
                raise InputError(
                    name, line, f"<{tag}> inside the <{tag}> of line {opened_line} (its </{tag}> is missing)"
                )
            opened, opened_line = found, line
        elif opened is None:
            raise InputError(name, line, f"</{tag}> without a <{tag}> before it")
        else:
            yield opened_line, text[opened.end() : found.start()]
            opened = None
    if opened is not None:
        raise InputError(name, opened_line, f"<{tag}> without a </{tag}> before the end of the file")


def parse_sgml(name: str, text: str) -> Iterator[tuple[int, Document]]:
    """(line, document) of the <DOC>s of one SGML file, counted by the balance of <DOC> and </DOC>; a DOC without a
    DOCNO, or with two, is an error at its line."""
    for line, body in doc_bodies(name, text):
        docno = _DOCNO.search(body)
        if docno is None or not docno.group(1):
            raise InputError(name, line, "<DOC> without a <DOCNO>")
        second = _DOCNO.search(body, docno.end())
        if second is not None:  # the first was kept without a word: one of the two documents was lost
            raise InputError(
                name,
                line + body.count("\n", 0, second.start()),
                f"a second <DOCNO> ({second.group(1)!r}) in the <DOC> of {docno.group(1)!r} (line {line})",
            )
        title = next((m.group(1) for pattern in _TITLES if (m := pattern.search(body))), "")
        texts = [m.group(1) for m in _TEXTS.finditer(body)]
        if not texts:  # no TEXT element: everything but the DOCNO and the title
            rest = _DOCNO.sub("", body)
            for pattern in _TITLES:
                rest = pattern.sub("", rest, count=1)
            texts = [rest]
        yield (
            line,
            Document(
                docid=docno.group(1),
                title=_SPACE.sub(" ", _MARKUP.sub(" ", title)).strip(),
                text="\n\n".join(_blank_markup(part) for part in texts),
            ),
        )


def read_trec_documents(source: PathLike) -> Collection:
    """Every document of an SGML file, folder or archive; files without <DOC> are one document each, unless other
    files hold <DOC>s: then they are a disk's README and the like, left out with one warning naming them (read as
    documents, they were records that the collection does not hold)."""
    found: list[tuple[str, int | None, Document]] = []
    plain: list[tuple[str, int | None, Document]] = []
    for name, text in source_files(source):
        if _DOC_TAG.search(text):
            found.extend((name, line, document) for line, document in parse_sgml(name, text))
        else:
            plain.append((name, None, Document(docid=Path(name.rsplit(":", 1)[-1]).name, text=text)))
    if found and plain:
        names = ", ".join(name for name, _, _ in plain[:3]) + (" ..." if len(plain) > 3 else "")
        warnings.warn(
            f"{source}: {len(plain)} file(s) without <DOC> left out, the other files being SGML: {names}",
            InputWarning,
            stacklevel=2,
        )
    documents: list[Document] = []
    first: dict[str, str] = {}  # docid -> where it was read first
    for name, line, document in found or plain:
        if document.docid in first:
            what = "DOCNO" if line is not None else "file name (its docid)"
            raise InputError(name, line, f"duplicate {what} {document.docid!r}, first read at {first[document.docid]}")
        first[document.docid] = name if line is None else f"{name}:{line}"
        documents.append(document)
    if not documents:
        raise InputError(source, None, "no document found (no file, or no <DOC> in any file)")
    return Collection(documents, source=str(source))


def read_trec_topics(path: PathLike) -> Topics:
    """Topic number -> title of a TREC topic file (<top> ... </top>); a topic without number or title is an error."""
    text = _decode(str(path), read_regular(path))
    lone_cr = _LONE_CR.search(text)
    if lone_cr is not None:  # as the other line readers (tarsim.data.lines.iter_lines): trec_eval reads no CR-only ends
        raise InputError(
            path,
            text.count("\n", 0, lone_cr.start()) + 1,
            "CR-only (old Mac) line ends: a carriage return (\\r) inside the line; save the file with \\n "
            "(or \\r\\n) line ends",
        )
    topics: Topics = {}
    lines: dict[str, int] = {}
    for line, body in balanced(str(path), text, _TOP_TAG, "top"):
        num, title = _NUM.search(body), _TITLE_FIELD.search(body)
        if num is None:
            raise InputError(path, line, "<top> without a <num>")
        fields = _NUMBER_LABEL.sub("", num.group(1)).split()  # `<num> Number: 301`: the id is 301
        if not fields:
            raise InputError(path, line, f"<num> without a topic number: {' '.join(num.group(0).split())!r}")
        number = fields[0]
        query = _SPACE.sub(" ", title.group(1)).strip() if title else ""
        query = re.sub(r"^Topic:\s*", "", query, flags=re.I)
        if not query:
            raise InputError(path, line, f"topic {number} has no <title> text")
        if number in topics:
            raise InputError(path, line, f"duplicate topic {number!r} (first at line {lines[number]})")
        topics[number], lines[number] = query, line
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
