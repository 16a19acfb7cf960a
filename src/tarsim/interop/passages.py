"""Passage judgments (HARD 2004) to sentence qrels: a sentence is relevant when it overlaps a relevant passage.

HARD 2004 judged relevant passages as character spans of documents: a passage is a document, a character
offset and a length (the track's passage runs were submitted the same way, see docs/fidelity.md). The layout
read here is fixed by the constants below, in one place: whitespace-separated `topic docid offset length`,
the offset counted from OFFSET_BASE in the document's `text` as tarsim.interop.trec stores it (the TEXT
element's characters, markup blanked to spaces, so offsets into the published file's TEXT element hold).
Every listed passage is relevant.

Sentence spans: tarsim's segmentation (tarsim.text.segmentation) keeps every non-space character of the text in
order, so each sentence of the text is located by counting non-space characters; the title's sentence
(sentence 0 when the title is not blank) has no span in the text and is never marked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tarsim.data.collection import Collection, Document
from tarsim.data.lines import PathLike, iter_lines
from tarsim.data.qrels import SentenceQrels
from tarsim.errors import InputError
from tarsim.text.segmentation import collapse_space, segment_document

PASSAGE_COLUMNS = ("topic", "docid", "offset", "length")
"""The columns of a passage judgment line, in order (HARD 2004's passage qrels)."""
OFFSET_BASE = 0
"""The offset of a document text's first character."""

Span = tuple[int, int]
Passages = dict[str, dict[str, list[Span]]]
"""topic -> docid -> relevant character spans [start, end) of the document's text."""

_NON_SPACE = re.compile(r"\S")


def read_passages(path: PathLike) -> Passages:
    """Relevant passages by topic and document; a line not of PASSAGE_COLUMNS, or a negative span, is an error."""
    passages: Passages = {}
    for number, line in iter_lines(path):
        fields = line.split()
        if len(fields) != len(PASSAGE_COLUMNS):
            raise InputError(
                path,
                number,
                f"expected {len(PASSAGE_COLUMNS)} columns ({' '.join(PASSAGE_COLUMNS)}), found {len(fields)}",
            )
        topic, docid, offset, length = fields
        try:
            start, size = int(offset) - OFFSET_BASE, int(length)
        except ValueError:
            raise InputError(path, number, f"offset and length must be integers, got {offset!r} {length!r}") from None
        if start < 0 or size <= 0:
            raise InputError(path, number, f"offset must be >= {OFFSET_BASE} and length > 0, got {offset} {length}")
        passages.setdefault(topic, {}).setdefault(docid, []).append((start, start + size))
    return passages


def sentence_spans(document: Document) -> list[Span | None]:
    """The character span [start, end) in `document.text` of each of its sentences (None: the title's, or empty)."""
    sentences = segment_document(document)
    skip = 1 if document.sentences is None and collapse_space(document.title) else 0
    positions = [match.start() for match in _NON_SPACE.finditer(document.text)]
    characters = "".join(document.text[i] for i in positions)
    spans: list[Span | None] = [None] * skip
    at = 0
    for sentence in sentences[skip:]:
        letters = _NON_SPACE.findall(sentence)
        if not letters:
            spans.append(None)
            continue
        if characters[at : at + len(letters)] != "".join(letters):
            raise InputError(
                document.docid, None, f"sentence {len(spans)} is not found in the text where the previous one ended"
            )
        spans.append((positions[at], positions[at + len(letters) - 1] + 1))
        at += len(letters)
    return spans


def overlapping(spans: list[Span | None], passages: list[Span]) -> list[int]:
    """Indexes of the sentences whose span overlaps at least one passage."""
    return [
        index
        for index, span in enumerate(spans)
        if span is not None and any(span[0] < end and start < span[1] for start, end in passages)
    ]


def passage_sentence_qrels(passages: Mapping[str, Mapping[str, list[Span]]], collection: Collection) -> SentenceQrels:
    """Sentence qrels listing, with relevance 1, every sentence that overlaps a relevant passage.

    A passage of a document absent from the collection, or one that ends past the document's text, is an error.
    """
    qrels: SentenceQrels = {}
    for topic, documents in passages.items():
        for docid, spans in documents.items():
            if docid not in collection:
                raise InputError(collection.source, None, f"topic {topic}: docid {docid!r} is not in the collection")
            document = collection.get(docid)
            length = len(document.text)
            if any(end > length for _, end in spans):
                raise InputError(
                    collection.source,
                    None,
                    f"topic {topic}: a passage of {docid!r} ends past its text ({length} chars)",
                )
            marked = overlapping(sentence_spans(document), spans)
            if marked:
                qrels.setdefault(topic, {})[docid] = dict.fromkeys(marked, 1)
    return qrels
