"""Sentence segmentation: the documented rules, invariants on generated text, and F1 on the hand-made gold."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarsim.data.collection import Document
from tarsim.text.segmentation import (
    _may_split,
    paragraphs,
    segment,
    segment_document,
    segment_text,
    split_paragraph,
    syntok_split,
)

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ROOT.parent / "shared" / "datasets"
GOLD = ROOT / "benchmarks" / "data" / "segmentation_gold.json"

# F1 that syntok + tarsim's paragraph rule reached on the gold set (benchmarks/segmenter_choice.py printed
# 0.990 on srd and 0.996 on Reuters); a little below, so one extra error passes and a regression fails.
MIN_F1 = {"srd/": 0.985, "reuters21578:": 0.99}


def _non_space(text: str) -> str:
    return "".join(text.split())


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


# --- the documented rules, on examples written by hand -------------------------------------------------


def test_title_is_sentence_zero_and_wraps_are_joined() -> None:
    text = (
        "Lotus Development Corp. said it will extend its\n"
        "upgrade by 5.93 mln dlrs, the U.S. unit of\n"
        "Smith Inc. said. It was e.g. late vs. last year.\n"
        "    Smith et al. found no change in the U.S.\n"
        " Reuter"
    )
    assert segment("LOTUS <LOTS>  EXTENDS\nUPGRADE", text) == [
        "LOTUS <LOTS> EXTENDS UPGRADE",
        "Lotus Development Corp. said it will extend its upgrade by 5.93 mln dlrs, the U.S. unit of Smith Inc. said.",
        "It was e.g. late vs. last year.",
        "Smith et al. found no change in the U.S.",
        "Reuter",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "The U.S. Agriculture Department said wheat rose 2.55 dlrs.",
        "Shares of Acme Inc. rose 5.93 mln dlrs vs. 5.81 mln a year ago.",
        "Doses (e.g. 4 mg) were used by Smith et al. in the U.K. trial.",
        "Either 4 micrograms.kg-1 clonidine po or fentanyl i.v. was given 60-90 min before surgery.",
        "The U.S. Federal Reserve said the U.S. economy grew.",
    ],
)
def test_abbreviations_and_figures_do_not_end_a_sentence(sentence: str) -> None:
    assert segment("", sentence) == [sentence]
    assert segment("", f"First one here. {sentence} Last one here.") == [
        "First one here.",
        sentence,
        "Last one here.",
    ]


def test_structured_abstract_sections_and_paragraphs_split() -> None:
    text = "To compare analgesics.; This randomized study was done.\n\nResults were similar; none differed."
    assert segment("", text) == [
        "To compare analgesics.;",
        "This randomized study was done.",
        "Results were similar; none differed.",
    ]


def test_table_rows_are_their_own_sentences() -> None:
    text = "Shr 23 cts vs 18 cts\n    Net 509,144 vs 277,834\n    Revs 2,258,341 vs 1,328,634\n Reuter"
    assert segment("MAIL BOXES 3RD QTR NET", text) == [
        "MAIL BOXES 3RD QTR NET",
        "Shr 23 cts vs 18 cts",
        "Net 509,144 vs 277,834",
        "Revs 2,258,341 vs 1,328,634",
        "Reuter",
    ]


def test_empty_documents_have_exactly_one_sentence() -> None:
    assert segment("", "") == [""]
    assert segment(" \n\t", "\n\n   \n") == [""]
    assert segment("Title only", "  \n") == ["Title only"]
    assert segment("", "Body only") == ["Body only"]
    assert segment_text("  \n") == []


def test_crlf_line_endings_are_wraps() -> None:
    assert paragraphs("Abstract:\r\nWe provide an\r\noverview.\r\n\r\nSecond part.") == [
        "Abstract: We provide an overview.",
        "Second part.",
    ]


def test_segment_document_prefers_given_sentences() -> None:
    given_sentences = Document("d1", text="One. Two.", title="T", sentences=("whole thing",))
    assert segment_document(given_sentences) == ["whole thing"]
    plain = Document("d2", text="One is here. Two is here.", title="T")
    assert segment_document(plain) == ["T", "One is here.", "Two is here."]


# --- the one-sentence shortcut gives syntok's output ------------------------------------------------------


@pytest.mark.parametrize(
    "paragraph",
    [
        "No terminal here at all",
        "Ends with one terminal.",
        "Ends with a question?",
        "Ends with an ellipsis...",
        "Two sentences. Here",
        "Opens a bracket (",
        "(Bracketed opening) then text",
        "Text then (bracket) and more",
        "Shr 1.29 dlrs vs 1.05",
        "U.S. rates",
        "Semi; colon",
        "  spaced   out  ",
        "   ",
        "",
        "\u3002 full-width stop",
        "Reuter",
    ],
)
def test_shortcut_matches_syntok_on_hand_cases(paragraph: str) -> None:
    assert split_paragraph(paragraph) == syntok_split(paragraph)


_PARAGRAPH_PIECES = st.sampled_from([*"abcXYZ019 .!?;:,()[]{}\"'-\u00a0\u200b\u3002", "U.S.", "...", "\n", "\n\n"])
# Mostly words, spaces and punctuation syntok never splits at, with at most one candidate: the shortcut's cases.
_QUIET_PIECES = st.sampled_from([*"abcXYZ019 ,:'\"-)]}", " Inc", "word", "\u00a0"])


@settings(max_examples=300, deadline=None)
@given(paragraph=st.lists(_PARAGRAPH_PIECES, max_size=40).map("".join))
def test_shortcut_matches_syntok_on_generated_paragraphs(paragraph: str) -> None:
    assert split_paragraph(paragraph) == syntok_split(paragraph)


@settings(max_examples=300, deadline=None)
@given(
    body=st.lists(_QUIET_PIECES, max_size=60).map("".join),
    end=st.sampled_from(["", ".", "?", "!", "...", "(", " (", "\u3002"]),
)
def test_shortcut_matches_syntok_on_long_quiet_paragraphs(body: str, end: str) -> None:
    paragraph = body + end
    assert split_paragraph(paragraph) == syntok_split(paragraph)


# --- invariants on generated text -----------------------------------------------------------------------

_ALPHABET = st.sampled_from([*"abcXYZ019 .!?;:,()\"'-\n\t", "U.S.", "Inc.", " e.g. ", "\n    ", ".; "])
_TEXT = st.lists(_ALPHABET, max_size=60).map("".join)


def _check_invariants(title: str, text: str) -> None:
    sentences = segment(title, text)
    assert sentences, "every document has at least one sentence"
    if not (title.strip() or text.strip()):
        assert sentences == [""]
        return
    for sentence in sentences:
        assert sentence, "no empty sentence in a non-empty document"
        assert sentence == sentence.strip() and "\n" not in sentence and "  " not in sentence
    joined = " ".join(sentences)
    assert _non_space(joined) == _non_space(title) + _non_space(text)
    assert _words(joined) == _words(title) + _words(text), "no boundary falls inside a word"
    assert segment(title, text) == sentences, "deterministic"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(title=_TEXT, text=_TEXT)
def test_invariants_on_generated_text(title: str, text: str) -> None:
    _check_invariants(title, text)


@settings(max_examples=100, deadline=None)
@given(title=st.text(max_size=30), text=st.text(max_size=200))
def test_invariants_on_arbitrary_unicode(title: str, text: str) -> None:
    _check_invariants(title, text)


# --- real data ------------------------------------------------------------------------------------------


def _records() -> dict[str, dict]:
    if not DATASETS.is_dir():
        pytest.skip(f"shared datasets not found at {DATASETS} (a fresh clone has no ../shared)")
    records: dict[str, dict] = {}
    for path in sorted(DATASETS.glob("srd/*/docs.jsonl")):
        with path.open(encoding="utf-8") as handle:
            records.update((f"srd/{path.parent.name}:{r['docid']}", r) for r in map(json.loads, handle))
    with (DATASETS / "reuters21578" / "docs.jsonl").open(encoding="utf-8") as handle:
        records.update((f"reuters21578:{r['docid']}", r) for r in map(json.loads, handle))
    return records


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return _records()


def _alnum_starts(sentences: list[str]) -> set[int]:
    """Starts of sentences after the first, as counts of alphanumeric characters before them."""
    starts, before = set(), 0
    for sentence in sentences:
        starts.add(before)
        before += sum(ch.isalnum() for ch in sentence)
    return starts - {0, before}


@pytest.mark.parametrize("prefix", sorted(MIN_F1))
def test_f1_against_hand_annotated_gold(records: dict[str, dict], prefix: str) -> None:
    gold = json.loads(GOLD.read_text(encoding="utf-8"))["documents"]
    entries = {key: entry for key, entry in gold.items() if key.startswith(prefix)}
    assert len(entries) == 30
    tp = fp = fn = 0
    for key, entry in entries.items():
        text = records[key]["text"]
        assert hashlib.sha256(text.encode()).hexdigest() == entry["text_sha256"], f"{key} changed"
        predicted, truth = _alnum_starts(segment_text(text)), set(entry["boundaries"])
        tp, fp, fn = tp + len(predicted & truth), fp + len(predicted - truth), fn + len(truth - predicted)
    f1 = 2 * tp / (2 * tp + fp + fn)
    assert f1 >= MIN_F1[prefix], f"{prefix} boundary F1 {f1:.4f} (tp={tp} fp={fp} fn={fn})"


@pytest.mark.slow
def test_invariants_on_a_sample_of_real_documents(records: dict[str, dict]) -> None:
    keys = random.Random(7).sample(sorted(records), 400)
    for key in keys:
        _check_invariants(records[key]["title"], records[key]["text"])


@pytest.mark.slow
def test_shortcut_matches_syntok_on_real_paragraphs(records: dict[str, dict]) -> None:
    """Every paragraph of 3,000 real documents (most Reuters paragraphs take the shortcut) splits as syntok does."""
    keys = random.Random(11).sample(sorted(records), 3000)
    shortcut = 0
    for key in keys:
        for paragraph in paragraphs(records[key]["text"]):
            assert split_paragraph(paragraph) == syntok_split(paragraph), key
            shortcut += not _may_split(paragraph)
    assert shortcut > 1000, "the sample should exercise the shortcut"
