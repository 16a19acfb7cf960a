"""Tokenisers (analysers) for BMI and HiCAL features: alphabetic or HiCAL runs, lower-cased, Porter-stemmed."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_TOKEN = re.compile(r"[^\W\d_]{2,}")


@lru_cache(maxsize=4)
def make_analyser(stem: bool, tokens: str = "bmi") -> Callable[[str], list[str]]:
    """Tokeniser: alphabetic runs of >= 2 letters, lower-cased, optionally Porter-stemmed (cached stems).

    tokens="hical" is HiCAL's BMITokenizer (CALEngine/src/utils/text_utils.cc): maximal runs of ASCII letters and
    digits, a run containing a digit dropped whole (`abc123` gives nothing, not `abc`), lower-cased, stemmed
    (words of 1 or 2 letters left unstemmed, as Porter's C code does), stems shorter than 2 letters dropped.
    """
    tokenise, stem_words = analyser_parts(stem, tokens)  # hical: its one analyser, with no per-word map
    if stem_words is None:
        return tokenise
    cache: dict[str, str] = {}

    def analyse(text: str) -> list[str]:
        tokens = tokenise(text)
        unknown = [t for t in set(tokens) if t not in cache]
        if unknown:
            cache.update(zip(unknown, stem_words(unknown), strict=True))
        return [cache[t] for t in tokens]

    return analyse


def analyser_parts(
    stem: bool, tokens: str = "bmi"
) -> tuple[Callable[[str], list[str]], Callable[[list[str]], list[str]] | None]:
    """make_analyser(stem, tokens) as a tokeniser and a per-word map (None: none), for count_terms to stem each
    distinct word once instead of every token; make_analyser composes the two for `bmi` tokens."""
    if tokens == "hical":  # whole-token rules (a run with a digit dropped): one analyser, no per-word map
        return _hical_analyser(stem), None
    return _words, _porter_stems() if stem else None


_ASCII_TOKEN = re.compile(r"[a-z]{2,}")
"""_TOKEN on lower-cased ASCII text: its only letters are a-z (a third faster than the Unicode class)."""


def _words(text: str) -> list[str]:
    """Alphabetic runs of >= 2 letters, lower-cased (the unstemmed `bmi` tokens)."""
    lowered = text.lower()
    return (_ASCII_TOKEN if lowered.isascii() else _TOKEN).findall(lowered)


def _porter_stems() -> Callable[[list[str]], list[str]]:
    """PyStemmer's Porter stemmer over a list of words."""
    import Stemmer

    return Stemmer.Stemmer("porter").stemWords


_HICAL_TOKEN = re.compile(r"[A-Za-z0-9]+", re.ASCII)


def _hical_analyser(stem: bool) -> Callable[[str], list[str]]:
    """HiCAL's BMITokenizer (see make_analyser)."""
    import Stemmer

    stemmer = Stemmer.Stemmer("porter")
    cache: dict[str, str] = {}

    def analyse(text: str) -> list[str]:
        words = [run.lower() for run in _HICAL_TOKEN.findall(text) if run.isalpha()]
        if not stem:
            return [word for word in words if len(word) >= 2]
        unknown = [w for w in set(words) if w not in cache]
        if unknown:
            stems = stemmer.stemWords(unknown)
            cache.update((w, w if len(w) <= 2 else s) for w, s in zip(unknown, stems, strict=True))
        return [cache[w] for w in words if len(cache[w]) >= 2]

    return analyse
