"""Compare sentence segmenters on the srd abstracts and Reuters-21578 stories: speed, gold F1, proxy errors.

Usage: python benchmarks/segmenter_choice.py [--datasets DIR] [--sample N] [--only NAME ...] [--json OUT]

Every candidate except `syntok-raw` gets the same input: tarsim's paragraph rule (blank lines and indented
line starts begin a paragraph, other line breaks are hard wraps joined by a space), then splits each
paragraph. Quality is boundary precision/recall/F1 against benchmarks/data/segmentation_gold.json (hand
annotated, boundaries as counts of alphanumeric characters before a sentence start); proxy error rates
are measured on the whole of both corpora (or a fixed sample with --sample).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from extras import require_extras  # same folder
from tarsim.text.segmentation import paragraphs, segment, split_paragraph

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "benchmarks" / "data" / "segmentation_gold.json"
DEFAULT_DATASETS = ROOT.parent / "shared" / "datasets"

ABBREVIATIONS = ("U.S.", "U.K.", "Inc.", "Corp.", "Co.", "Ltd.", "e.g.", "i.e.", "et al.", "vs.", "Mr.")
_ABBREVIATION_END = re.compile(r"(?:^|[\s(\[])(?:" + "|".join(re.escape(a) for a in ABBREVIATIONS) + r")$")
_REGEX_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")

Splitter = Callable[[str], list[str]]


def regex_split(paragraph: str) -> list[str]:
    """The naive baseline: split after . ! ? (and closing quotes) before a capital letter or digit."""
    starts = [0, *(match.end() for match in _REGEX_BOUNDARY.finditer(paragraph))]
    return [paragraph[a:b] for a, b in zip(starts, [*starts[1:], len(paragraph)], strict=True)]


def _optional_candidates() -> dict[str, Splitter]:
    """Third-party candidates (the `bench` extra); a library that is not installed is left out with a note."""
    found: dict[str, Splitter] = {}
    try:
        import pysbd

        found["pysbd"] = pysbd.Segmenter(language="en", clean=False).segment
    except ImportError:
        print("pysbd not installed: skipped", file=sys.stderr)
    try:
        import blingfire

        def blingfire_split(paragraph: str) -> list[str]:
            _, offsets = blingfire.text_to_sentences_and_offsets(paragraph)
            return [paragraph[a:b] for a, b in offsets]

        found["blingfire"] = blingfire_split
    except ImportError:
        print("blingfire not installed: skipped", file=sys.stderr)
    try:
        import sentencex

        found["sentencex"] = lambda p: list(sentencex.segment("en", p))
    except ImportError:
        print("sentencex not installed: skipped", file=sys.stderr)
    try:
        import segtok.segmenter

        found["segtok"] = lambda p: list(segtok.segmenter.split_single(p))
    except ImportError:
        print("segtok not installed: skipped", file=sys.stderr)
    return found


def _trained_punkt(train_texts: Iterable[str]) -> tuple[Splitter, float] | None:
    """NLTK punkt trained without labels on the corpora themselves (no data download), and its training time."""
    try:
        from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer
    except ImportError:
        print("nltk not installed: punkt skipped", file=sys.stderr)
        return None
    start = time.perf_counter()
    trainer = PunktTrainer()
    trainer.train("\n\n".join(train_texts), finalize=True)
    punkt = PunktSentenceTokenizer(trainer.get_params())
    return punkt.tokenize, time.perf_counter() - start


def make_candidates(train_texts: Iterable[str] | None) -> dict[str, tuple[Splitter, bool, float]]:
    """name -> (splitter, whether it gets whole raw text instead of paragraphs, set-up seconds)."""
    from syntok import segmenter as syntok_segmenter

    def syntok_raw(text: str) -> list[str]:
        return [
            "".join(str(token) for token in sentence) for para in syntok_segmenter.analyze(text) for sentence in para
        ]

    candidates: dict[str, tuple[Splitter, bool, float]] = {
        "regex": (regex_split, False, 0.0),
        "syntok": (split_paragraph, False, 0.0),
        "syntok-raw": (syntok_raw, True, 0.0),
    }
    candidates.update((name, (f, False, 0.0)) for name, f in _optional_candidates().items())
    if train_texts is not None and (punkt := _trained_punkt(train_texts)) is not None:
        candidates["punkt-trained"] = (punkt[0], False, punkt[1])
    return candidates


def grouped_sentences(text: str, splitter: Splitter, raw: bool) -> list[list[str]]:
    """Sentences of a body text under one candidate, grouped by paragraph (one group for raw candidates)."""
    blocks = [text] if raw else paragraphs(text)
    return [[s for s in splitter(block) if s.strip()] for block in blocks]


def sentences_of(text: str, splitter: Splitter, raw: bool) -> list[str]:
    """All sentences of a body text under one candidate."""
    return [sentence for group in grouped_sentences(text, splitter, raw) for sentence in group]


def alnum_boundaries(sentences: list[str]) -> list[int]:
    """Sentence starts (after the first) as counts of alphanumeric characters before them."""
    bounds: set[int] = set()
    before = 0
    for index, sentence in enumerate(sentences):
        if index:
            bounds.add(before)
        before += sum(ch.isalnum() for ch in sentence)
    bounds.discard(0)
    bounds.discard(before)
    return sorted(bounds)


@dataclass
class Tally:
    """Counters for one candidate on one corpus."""

    docs: int = 0
    seconds: float = 0.0
    sentences: int = 0
    fragments: int = 0
    long: int = 0
    abbreviation_splits: int = 0
    altered_docs: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    inner: list[int] = field(default_factory=lambda: [0, 0, 0])  # tp, fp, fn away from paragraph starts

    def f1(self) -> tuple[float, float, float]:
        return prf(self.tp, self.fp, self.fn)


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts (0 where undefined)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def load_corpora(datasets: Path, sample: int | None) -> dict[str, list[tuple[str, dict]]]:
    """corpus name -> [(gold key, record)]; srd reviews in sorted order, then a fixed-seed sample if asked."""
    srd: list[tuple[str, dict]] = []
    for path in sorted(datasets.glob("srd/*/docs.jsonl")):
        with path.open(encoding="utf-8") as handle:
            srd.extend((f"srd/{path.parent.name}:{r['docid']}", r) for r in map(json.loads, handle))
    with (datasets / "reuters21578" / "docs.jsonl").open(encoding="utf-8") as handle:
        reuters = [(f"reuters21578:{r['docid']}", r) for r in map(json.loads, handle)]
    corpora = {"srd": srd, "reuters": reuters}
    if sample:
        corpora = {name: random.Random(0).sample(docs, min(sample, len(docs))) for name, docs in corpora.items()}
    return corpora


def measure(splitter: Splitter, raw: bool, docs: list[tuple[str, dict]]) -> Tally:
    """Speed and proxy errors over `docs`, then boundary P/R/F1 over the gold documents of this corpus."""
    tally = Tally(docs=len(docs))
    start = time.perf_counter()
    outputs = [grouped_sentences(record["text"], splitter, raw) for _, record in docs]
    tally.seconds = time.perf_counter() - start
    for (_, record), groups in zip(docs, outputs, strict=True):
        if "".join("".join(s for group in groups for s in group).split()) != "".join(record["text"].split()):
            tally.altered_docs += 1
        for group in groups:
            for index, sentence in enumerate(group):
                tokens = len(sentence.split())
                tally.sentences += 1
                tally.fragments += tokens < 3
                tally.long += tokens > 80
                # a split inside a paragraph right after an abbreviation (paragraph ends are not counted)
                if index + 1 < len(group) and _ABBREVIATION_END.search(sentence.rstrip()):
                    tally.abbreviation_splits += 1
    return tally


def score_gold(tally: Tally, splitter: Splitter, raw: bool, records: dict[str, dict], gold: dict) -> None:
    """Add boundary true/false positives and misses against the hand-annotated gold documents."""
    for key, entry in gold.items():
        record = records[key]
        digest = hashlib.sha256(record["text"].encode()).hexdigest()
        if digest != entry["text_sha256"]:
            raise SystemExit(f"{GOLD}: text of {key} changed since it was annotated")
        predicted = set(alnum_boundaries(sentences_of(record["text"], splitter, raw)))
        truth = set(entry["boundaries"])
        tally.tp += len(predicted & truth)
        tally.fp += len(predicted - truth)
        tally.fn += len(truth - predicted)
        # the same counts without tarsim's paragraph starts, which every non-raw candidate gets for free
        given = set(alnum_boundaries(paragraphs(record["text"])))
        predicted, truth = predicted - given, truth - given
        tally.inner[0] += len(predicted & truth)
        tally.inner[1] += len(predicted - truth)
        tally.inner[2] += len(truth - predicted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--sample", type=int, default=None, help="documents per corpus (default: all)")
    parser.add_argument("--only", nargs="*", default=None, help="candidate names to run")
    parser.add_argument("--no-punkt", action="store_true", help="skip training NLTK punkt on the corpora")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    require_extras(__file__, "pysbd", "blingfire", "sentencex", "segtok")  # before any work

    corpora = load_corpora(args.datasets, args.sample)
    full = corpora if not args.sample else load_corpora(args.datasets, None)
    records = {key: record for docs in full.values() for key, record in docs}
    gold_docs = json.loads(GOLD.read_text(encoding="utf-8"))["documents"]
    gold = {
        "srd": {k: v for k, v in gold_docs.items() if k.startswith("srd/")},
        "reuters": {k: v for k, v in gold_docs.items() if k.startswith("reuters21578:")},
    }
    want_punkt = not args.no_punkt and (args.only is None or "punkt-trained" in args.only)
    train = None
    if want_punkt:
        train = (p for docs in full.values() for _, r in docs for p in paragraphs(r["text"]))
    candidates = make_candidates(train)
    names = [n for n in candidates if args.only is None or n in args.only]

    rows = []
    header = (
        f"{'segmenter':<14}{'corpus':<9}{'docs/s':>9}{'P':>7}{'R':>7}{'F1':>7}{'F1 in':>7}"
        f"{'sents':>9}{'<3 tok%':>9}{'>80 tok%':>9}{'abbr/1k':>9}{'altered':>8}"
    )
    print(header)
    print("-" * len(header))
    for name in names:
        splitter, raw, setup = candidates[name]
        for corpus, docs in corpora.items():
            tally = measure(splitter, raw, docs)
            score_gold(tally, splitter, raw, records, gold[corpus])
            precision, recall, f1 = tally.f1()
            inner_f1 = prf(*tally.inner)[2]
            row = {
                "segmenter": name,
                "corpus": corpus,
                "docs": tally.docs,
                "seconds": round(tally.seconds, 3),
                "setup_seconds": round(setup, 1),
                "docs_per_second": round(tally.docs / tally.seconds, 1),
                "precision": round(precision, 4),
                "recall": round(recall, 4),
                "f1": round(f1, 4),
                "f1_within_paragraphs": round(inner_f1, 4),
                "gold_counts_within_paragraphs": dict(zip(("tp", "fp", "fn"), tally.inner, strict=True)),
                "sentences": tally.sentences,
                "fragments_pct": round(100 * tally.fragments / tally.sentences, 2),
                "long_pct": round(100 * tally.long / tally.sentences, 2),
                "abbreviation_splits_per_1k": round(1000 * tally.abbreviation_splits / tally.sentences, 2),
                "altered_docs": tally.altered_docs,
            }
            rows.append(row)
            print(
                f"{name:<14}{corpus:<9}{row['docs_per_second']:>9.0f}{precision:>7.3f}{recall:>7.3f}{f1:>7.3f}{inner_f1:>7.3f}"
                f"{tally.sentences:>9}{row['fragments_pct']:>9.2f}{row['long_pct']:>9.2f}"
                f"{row['abbreviation_splits_per_1k']:>9.2f}{tally.altered_docs:>8}",
                flush=True,
            )
    for name in names:
        if candidates[name][2]:
            seconds = candidates[name][2]
            print(f"{name}: {seconds:.1f} s of unsupervised training on both corpora (not in docs/s)")
    for corpus, docs in full.items():
        start = time.perf_counter()
        count = sum(len(segment(record.get("title") or "", record["text"])) for _, record in docs)
        seconds = time.perf_counter() - start
        print(
            f"tarsim.text.segmentation.segment (title + text), {corpus}: {len(docs)} documents, {count} sentences"
            f" in {seconds:.1f} s ({len(docs) / seconds:.0f} docs/s)"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
