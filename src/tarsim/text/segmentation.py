"""Sentence segmentation of `title` + `text` for documents that carry no `sentences` of their own.

The segmenter is syntok (chosen in docs/segmentation.md by benchmarks/segmenter_choice.py). The output is
stable by contract: sentence qrels and ledgers refer to sentences by their index in this list, counted
from 0, so any change to the rules below changes what those indexes mean and must be treated as a format
change.

Rules, in order:
1. The title, with its white space collapsed, is sentence 0 when it is not blank (never split further).
2. The text is cut into paragraphs at blank lines, at line breaks followed by indentation (Reuters
   starts each paragraph and each table row on an indented line) and after ".;", "?;" or "!;" (structured
   abstracts in the srd collections join their sections that way); every other line break is a hard
   wrap and is joined with a single space. A paragraph break is always a sentence break.
3. Each paragraph is split into sentences by syntok; each sentence is a slice of the paragraph with its
   white space collapsed, so concatenating the sentences gives back every non-space character of
   title + text, in order (nothing is dropped, reordered or rewritten).
4. A document whose title and text are both blank gives one empty sentence [""], so that every document
   has at least one sentence (sentence 0) and no other sentence is ever empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from syntok import segmenter
from syntok._segmentation_states import State

from tarsim.data.collection import Collection, Document
from tarsim.runtime.chunks import chunks, importing, map_chunks

_LINE_ENDING = re.compile(r"\r\n?")
# A blank line, or a line break followed by indentation, starts a new paragraph.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*\n\s*|\n[ \t\f\v]+")
# Structured abstracts (the srd collections) join their sections with "; " after the final period: ".; ".
_SECTION_JOIN = re.compile(r"(?<=[.!?];)\s+")
_SPACE = re.compile(r"\s+")
# Characters at which syntok can start a new sentence (its terminal tokens are made of these; "..." of ".").
_TERMINALS = "".join(sorted({character for terminal in State.terminals for character in terminal}))
_OPENING = frozenset(State.opening_brackets)
_SPLIT_CANDIDATE = re.compile("[" + re.escape(_TERMINALS + "".join(sorted(_OPENING))) + "]")


def collapse_space(text: str) -> str:
    """Text with every run of white space replaced by one space and no leading or trailing space."""
    return _SPACE.sub(" ", text).strip()


def paragraphs(text: str) -> list[str]:
    """Paragraphs of `text` with hard line wraps joined; ".; " section joins also end one; blanks dropped."""
    text = _LINE_ENDING.sub("\n", text)
    pieces = (
        collapse_space(section) for piece in _PARAGRAPH_BREAK.split(text) for section in _SECTION_JOIN.split(piece)
    )
    return [piece for piece in pieces if piece]


def _may_split(paragraph: str) -> bool:
    """Whether syntok could find a boundary: it only splits at a terminal (".", "?", "...", ...) or an opening
    bracket, so a paragraph with neither (other than a terminal as its last character) is one sentence.

    Checked character by character, a superset of syntok's token test; most Reuters table rows and short
    paragraphs skip syntok's tokeniser this way, with output identical to syntok's (tests/text/test_segmentation.py).
    """
    if "\n" in paragraph:  # not a paragraph of paragraphs(): syntok also splits at blank lines
        return True
    return bool(_SPLIT_CANDIDATE.search(paragraph, 0, len(paragraph) - 1)) or paragraph[-1:] in _OPENING


def split_paragraph(paragraph: str) -> list[str]:
    """Sentences of one paragraph (no line breaks in it) as white-space-collapsed slices, by syntok."""
    if not _may_split(paragraph):
        sentence = collapse_space(paragraph)
        return [sentence] if sentence else []
    return syntok_split(paragraph)


def syntok_split(paragraph: str) -> list[str]:
    """split_paragraph without the one-sentence shortcut: every paragraph through syntok."""
    starts: list[int] = []
    for sentences in segmenter.analyze(paragraph):
        for sentence in sentences:
            if sentence:
                starts.append(sentence[0].offset)
    if not starts:
        sentence = collapse_space(paragraph)
        return [sentence] if sentence else []
    starts[0] = 0  # text before the first token (there is none after collapsing) stays in sentence 0
    ends = [*starts[1:], len(paragraph)]
    pieces = (collapse_space(paragraph[start:end]) for start, end in zip(starts, ends, strict=True))
    return [piece for piece in pieces if piece]


def segment_text(text: str) -> list[str]:
    """Sentences of a body text (no title rule); [] for blank text."""
    return [sentence for paragraph in paragraphs(text) for sentence in split_paragraph(paragraph)]


def segment(title: str, text: str) -> list[str]:
    """Sentences of a document: its title first (when not blank), then the text's sentences; never []."""
    sentences = segment_text(text)
    title = collapse_space(title)
    if title:
        sentences.insert(0, title)
    return sentences or [""]


def segment_document(document: Document) -> list[str]:
    """The document's own `sentences` when it has them, otherwise `segment(title, text)`."""
    if document.sentences is not None:
        return list(document.sentences)
    return segment(document.title, document.text)


def segment_documents(documents: Sequence[Document]) -> list[list[str]]:
    """Each document's sentences (one chunk of segment_collection's work)."""
    return [segment_document(document) for document in documents]


def segment_collection(collection: Collection, n_jobs: int | None = None) -> list[Sequence[str]]:
    """Every document's sentences, in collection order; large collections are segmented on all cores.

    Each document is segmented on its own, so contiguous chunks give the same result in any number of processes.
    """
    # This process imports scikit-learn (for what follows) while the workers segment, as the feature build does.
    importing_sklearn = importing("sklearn.preprocessing")
    parts = map_chunks(segment_documents, chunks(collection, n_jobs), n_jobs=n_jobs, while_waiting=importing_sklearn)
    return [sentences for part in parts for sentences in part]
