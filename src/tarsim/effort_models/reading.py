"""What a reviewer reads of an item, and how long it takes (the seconds model that drives the SimPy clock)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tarsim.errors import ConfigError


def sentences_read(sentence_labels: np.ndarray, document_relevant: bool) -> int:
    """Document shown: read in order to the first relevant sentence (relevant doc) or all (non-relevant).

    A relevant document whose oracle marks no sentence relevant is read to the end.
    """
    if document_relevant and len(sentence_labels):
        relevant = sentence_labels > 0
        first = int(relevant.argmax())  # the first relevant sentence, or 0 when there is none
        if relevant[first]:
            return first + 1
    return len(sentence_labels)


@dataclass(frozen=True)
class TimeModel:
    """Seconds per judgment: a fixed cost per item plus a reading cost per word read.

    Defaults follow Smucker and Clarke's time-biased gain calibration (SIGIR 2012): 7.8 s plus 0.018 s a word
    for a document, and 4.4 s for a short summary, used here for a shown sentence.
    """

    document_seconds: float = 7.8
    sentence_seconds: float = 4.4
    seconds_per_word: float = 0.018

    def __post_init__(self) -> None:
        for name in ("document_seconds", "sentence_seconds", "seconds_per_word"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ConfigError(f"time model {name} must be a finite number >= 0, got {value!r}")

    def seconds(self, shown: str, words_read: int) -> float:
        """Time to judge one item of kind `shown` ('document' or 'sentence') after reading `words_read` words."""
        base = self.document_seconds if shown == "document" else self.sentence_seconds
        return round(base + self.seconds_per_word * words_read, 6)
