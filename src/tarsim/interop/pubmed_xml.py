"""PubMed/MEDLINE XML as PubMed exports it (`PubmedArticleSet`, also the annual baseline's .xml.gz): pmid, title,
abstract.

Each `PubmedArticle` gives `MedlineCitation/PMID`, `Article/ArticleTitle` and the `Article/Abstract/AbstractText`
sections; a structured abstract's sections keep their `Label` as PubMed's MEDLINE display does
(`BACKGROUND: ... METHODS: ...`, joined with a space). Inline markup (`<i>`, `<sup>`) keeps its text.
`PubmedBookArticle` (books and documents) reads `BookDocument` the same way; `DeleteCitation` (update files) is
not a record.

The file is parsed as a stream (xml.etree's XMLPullParser, the machinery of iterparse, fed a line at a time so
that an error names its line), each article dropped once read. Safety: a DOCTYPE naming PubMed's public DTD is
accepted and never fetched; a DTD internal subset (where entity declarations live: the billion-laughs and
external-entity attacks) is refused before any of it reaches the tree builder; an undeclared entity is an error.
"""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Iterator
from typing import NamedTuple
from xml.etree import ElementTree

from tarsim.data.lines import PathLike, open_binary
from tarsim.errors import InputError

ROOT = "PubmedArticleSet"
ARTICLES = {"PubmedArticle": "MedlineCitation", "PubmedBookArticle": "BookDocument"}


class PubmedRecord(NamedTuple):
    """One article: its PubMed id, title and abstract (empty when PubMed has none), and the line it starts on."""

    pmid: str
    title: str
    abstract: str
    line: int


class _PrologGuard:
    """Refuses a DTD internal subset, watching the prolog with expat's own handlers; done at the root element."""

    def __init__(self, path: PathLike) -> None:
        self.path = path
        self.done = False
        self.parser = xml.parsers.expat.ParserCreate()
        self.parser.StartDoctypeDeclHandler = self._doctype
        self.parser.EntityDeclHandler = self._entity
        self.parser.StartElementHandler = self._root

    def _doctype(self, name: str, system: str | None, public: str | None, has_internal_subset: int) -> None:
        if has_internal_subset:
            self._refuse("a DTD internal subset (entity declarations) is refused; PubMed's exports have none")

    def _entity(self, name: str, *_args: object) -> None:
        self._refuse(f"entity declaration {name!r} refused")

    def _root(self, name: str, _attributes: object) -> None:
        self.done = True

    def _refuse(self, problem: str) -> None:
        raise InputError(self.path, self.parser.CurrentLineNumber, problem)

    def feed(self, data: bytes) -> None:
        try:
            self.parser.Parse(data, False)
        except xml.parsers.expat.ExpatError as exc:
            problem = f"not well-formed XML: {xml.parsers.expat.ErrorString(exc.code)}"
            raise InputError(self.path, exc.lineno, problem) from None


def _text(element: ElementTree.Element | None) -> str:
    """The element's text with its inline markup's, spaces collapsed."""
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def _abstract(abstract: ElementTree.Element | None) -> str:
    """The sections of an Abstract, `LABEL: text` where labelled, joined with a space as PubMed displays them."""
    if abstract is None:
        return ""
    parts = []
    for section in abstract.findall("AbstractText"):
        text, label = _text(section), (section.get("Label") or "").strip()
        if text or label:
            parts.append(f"{label}: {text}".strip() if label else text)
    return " ".join(parts)


def _record(path: PathLike, element: ElementTree.Element, line: int) -> PubmedRecord:
    citation = element.find(ARTICLES[element.tag])
    if citation is None:
        raise InputError(path, line, f"{element.tag} without {ARTICLES[element.tag]}")
    pmid = (citation.findtext("PMID") or "").strip()
    if not pmid.isdigit() or not pmid.isascii():
        raise InputError(path, line, f"{element.tag} without a PMID (digits), found {pmid[:40]!r}")
    if element.tag == "PubmedArticle":
        article = citation.find("Article")
        title = _text(article.find("ArticleTitle")) if article is not None else ""
        abstract = _abstract(article.find("Abstract") if article is not None else None)
    else:
        title = _text(citation.find("ArticleTitle")) or _text(citation.find("Book/BookTitle"))
        abstract = _abstract(citation.find("Abstract"))
    return PubmedRecord(pmid=pmid, title=title, abstract=abstract, line=line)


def iter_pubmed_xml(path: PathLike) -> Iterator[PubmedRecord]:
    """Stream the records of a PubMed XML file (plain or .gz) in file order."""
    guard = _PrologGuard(path)
    parser = ElementTree.XMLPullParser(events=("start", "end"))
    depth, start_line, number = 0, 0, 0
    root: ElementTree.Element | None = None
    with open_binary(path) as handle:
        try:
            for number, raw in enumerate(handle, start=1):
                if not guard.done:
                    guard.feed(raw)
                parser.feed(raw)
                for event, element in parser.read_events():
                    if event == "start":
                        depth += 1
                        if depth == 1:
                            root = element
                            if element.tag != ROOT:
                                raise InputError(path, number, f"root element is {element.tag}, expected {ROOT}")
                        elif depth == 2:
                            start_line = number
                        continue
                    depth -= 1
                    if depth == 1 and element.tag in ARTICLES:
                        yield _record(path, element, start_line)
                    if depth == 1 and root is not None:
                        root.clear()  # the article is read: free it
            parser.close()
        except ElementTree.ParseError as exc:
            line = exc.position[0] if exc.position else number
            raise InputError(path, line, f"not well-formed XML: {exc.msg.split(':')[0]}") from None
        except OSError as exc:
            raise InputError(path, None, f"cannot read: {exc}") from None
    if root is None:
        raise InputError(path, None, "empty file (no PubmedArticleSet)")
