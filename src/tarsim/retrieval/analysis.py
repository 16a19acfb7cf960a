"""Text preprocessing for BM25: tokenisation, stop words, stemming and low-IDF pruning, as named presets.

Tokenisation, stop-word lists and stemming are bm25s's (with PyStemmer's Snowball stemmers); this module
only chooses their settings and prunes terms by document frequency.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from tarsim.errors import ConfigError, require

WORD_PATTERN = r"(?u)\b\w\w+\b"
"""bm25s's default: runs of two or more word characters (keeps digits)."""

ALPHA_PATTERN = r"(?u)\b[^\W\d_]{2,}\b"
"""Alphabetic tokens of two or more letters: drops punctuation, digits and alphanumeric codes."""

LANGUAGES = {"english": "en", "french": "fr", "dutch": "nl"}


@dataclass(frozen=True)
class Analyzer:
    """How texts become BM25 terms: one object used for both the corpus and the queries.

    `max_df` prunes low-IDF terms: a term in more than this fraction of the corpus documents is dropped
    from documents and queries alike (None keeps every term).
    """

    token_pattern: str = WORD_PATTERN
    stopwords: str | None = None
    stemmer: str | None = None
    max_df: float | None = None

    def __post_init__(self) -> None:
        for what, value in (("stopwords", self.stopwords), ("stemmer", self.stemmer)):
            if value is not None and value not in LANGUAGES:
                raise ConfigError(f"{what} must be one of {', '.join(sorted(LANGUAGES))} or None, got {value!r}")
        if self.max_df is not None and not 0.0 < self.max_df <= 1.0:
            raise ConfigError(f"max_df must be in (0, 1], got {self.max_df!r}")

    def with_(self, **changes: object) -> Analyzer:
        """A copy with some settings changed."""
        return replace(self, **changes)

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        """Lower-case, split, drop stop words and stem (no document-frequency pruning here)."""
        stemmer = _stemmer(self.stemmer) if self.stemmer else None
        bm25s = require("bm25s", "legal", "BM25 retrieval")
        tokens = bm25s.tokenize(
            list(texts),
            lower=True,
            token_pattern=self.token_pattern,
            stopwords=LANGUAGES[self.stopwords] if self.stopwords else None,
            stemmer=stemmer,
            return_ids=False,
            show_progress=False,
        )
        return [list(doc) for doc in tokens]

    def pruned_terms(self, corpus_tokens: Sequence[Sequence[str]]) -> frozenset[str]:
        """Terms whose document frequency exceeds `max_df` (the low-IDF terms to drop); a term of a single
        document is never dropped, so tiny corpora keep their vocabulary."""
        if self.max_df is None or not corpus_tokens:
            return frozenset()
        df: Counter[str] = Counter()
        for doc in corpus_tokens:
            df.update(set(doc))
        limit = self.max_df * len(corpus_tokens)
        return frozenset(term for term, count in df.items() if count > limit and count > 1)


def _stemmer(language: str):
    try:
        import Stemmer
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        raise ConfigError("stemming needs the PyStemmer package (pip install PyStemmer)") from None
    return Stemmer.Stemmer(language).stemWords


def drop_terms(docs: Iterable[Sequence[str]], dropped: frozenset[str]) -> list[list[str]]:
    """Remove `dropped` terms from every token list."""
    if not dropped:
        return [list(doc) for doc in docs]
    return [[term for term in doc if term not in dropped] for doc in docs]


def shortening(before: Sequence[Sequence[str]], after: Sequence[Sequence[str]]) -> float:
    """Mean fraction of tokens removed per text (how much preprocessing shortens the texts)."""
    ratios = [1.0 - len(b) / len(a) for a, b in zip(before, after, strict=True) if a]
    return math.fsum(ratios) / len(ratios) if ratios else 0.0


RAW = Analyzer()
"""Lower-cased word tokens, nothing removed: the 'raw text' baseline."""

ANALYZERS: dict[str, Analyzer] = {
    "raw": RAW,
    "english": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="english", stemmer="english"),
    "english-long": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="english", stemmer="english", max_df=0.1),
    "french": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="french", stemmer="french"),
    "dutch": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="dutch", stemmer="dutch"),
    "french-unstemmed": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="french"),
    "dutch-unstemmed": Analyzer(token_pattern=ALPHA_PATTERN, stopwords="dutch"),
}
"""Named preprocessing presets; `english-long` is for whole-document queries (stop words, punctuation,
digits and terms in more than 10% of the documents removed). The `-unstemmed` ones are bBSARD's BM25 preprocessing
(the release code's default keeps each word's surface form: no lemmatisation, no stemming)."""


def get_analyzer(name: str) -> Analyzer:
    """The named analyzer preset (ConfigError listing the names otherwise)."""
    try:
        return ANALYZERS[name]
    except KeyError:
        raise ConfigError(f"unknown analyzer {name!r}; choose from {', '.join(ANALYZERS)}") from None
