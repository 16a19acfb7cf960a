"""Document and sentence tf-idf matrices over one vocabulary (Features), their settings, and the BMI weighting.

Follows the HiCAL/BMI engine: alphabetic tokens of at least 2 letters, lower-cased and Porter-stemmed;
terms in fewer than 2 documents dropped; weight (1 + ln tf) * ln(N / df); every row L2-normalised.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from tarsim.errors import ConfigError
from tarsim.text.analysers import make_analyser
from tarsim.text.sentences import LazySentences

FEATURES_FORMAT = 3
"""Bumped whenever the feature computation or the cache file layout changes, so that stale caches are not reused."""


@dataclass(frozen=True)
class FeatureSettings:
    """How text becomes features; part of the cache key and of every ledger's configuration."""

    stem: bool = True
    min_df: int = 2
    sublinear_tf: bool = True
    tokens: str = "bmi"  # "hical": HiCAL's BMITokenizer (see make_analyser)
    sentence_weights: str = "bmi"  # "hical": tf * idf / max(20, L2), HiCAL's paragraph features

    def __post_init__(self) -> None:
        for name in ("stem", "sublinear_tf"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"feature setting {name} must be true or false, got {getattr(self, name)!r}")
        if isinstance(self.min_df, bool) or not isinstance(self.min_df, int) or self.min_df < 1:
            raise ConfigError(f"feature setting min_df must be an integer >= 1, got {self.min_df!r}")
        for name in ("tokens", "sentence_weights"):
            if getattr(self, name) not in FEATURE_CHOICES:
                raise ConfigError(f"feature setting {name} must be bmi or hical, got {getattr(self, name)!r}")

    def record(self) -> dict:
        """The settings as recorded (ledger headers, cache keys): options added later only when not default."""
        record = asdict(self)
        for name, default in LATER_SETTINGS.items():
            if record[name] == default:
                del record[name]
        return record

    def digest(self) -> str:
        """A short stable digest of the settings."""
        return hashlib.sha256(json.dumps(self.record(), sort_keys=True).encode()).hexdigest()[:16]


FEATURE_CHOICES = ("bmi", "hical")
"""Values of the tokens and sentence_weights settings."""

LATER_SETTINGS = {"tokens": "bmi", "sentence_weights": "bmi"}
"""Settings added after ledgers and caches were first written: left out of records at these defaults."""


@dataclass(frozen=True, eq=False)
class Features:
    """Document and sentence matrices over one vocabulary, plus what is needed to vectorise a query.

    Compared and hashed by identity (arrays have no single truth value), so that what is derived from one features
    object can be remembered with it (tarsim.simulator.oracle).

    Built for documents only (`sentences`, `sentence_offsets` and `sentence_words` None), a document's sentences
    come from `lazy` when a review asks for them (tarsim.text.sentences); the per-document accessors below serve both.
    """

    documents: sp.csr_matrix  # n_docs x V, float32, rows L2-normalised
    sentences: sp.csr_matrix | None  # n_sentences x V, float32, rows L2-normalised
    sentence_offsets: np.ndarray | None  # n_docs + 1: sentences of doc i are rows offsets[i]:offsets[i+1]
    sentence_words: np.ndarray | None  # words (tokens of any kind) per sentence, for the reading-time model
    vocabulary: tuple[str, ...]
    idf: np.ndarray  # float32, length V
    settings: FeatureSettings
    lazy: LazySentences | None = field(default=None, compare=False, repr=False)

    @property
    def n_documents(self) -> int:
        return self.documents.shape[0]

    @property
    def has_all_sentences(self) -> bool:
        """Whether every sentence row was built (sentence-level strategies and sentence qrels need them)."""
        return self.sentences is not None

    @cached_property
    def _offsets(self) -> list[int]:
        """sentence_offsets as Python ints, made once: a review reads them at every judgment (numpy's scalars cost
        more there)."""
        return self.sentence_offsets.tolist()

    def sentences_of(self, doc: int) -> range:
        """Row indexes in `sentences` of document `doc`."""
        return range(self._offsets[doc], self._offsets[doc + 1])

    def sentence_words_of(self, doc: int) -> np.ndarray:
        """Words of each sentence of document `doc`, in reading order."""
        if self.sentence_words is None:
            return self._lazy().words(doc)
        return self.sentence_words[self._offsets[doc] : self._offsets[doc + 1]]

    def sentence_rows_of(self, doc: int) -> sp.csr_matrix:
        """The weighted sentence rows of document `doc`."""
        if self.sentences is None:
            return self._lazy().rows(doc)
        return self.sentences[self._offsets[doc] : self._offsets[doc + 1]]

    def _lazy(self) -> LazySentences:
        if self.lazy is None:
            raise ConfigError("these features were built for documents only and cannot segment (no collection)")
        return self.lazy

    def sentence_rows_maker(self) -> Callable[[list[str]], sp.csr_matrix]:
        """Weighted rows of any sentences, as build_features weighs a collection's sentences."""
        count = self._term_counter()
        weigh = weight_paragraphs if self.settings.sentence_weights == "hical" else weight
        return lambda sentences: weigh(count(sentences), self.idf, self.settings)

    def vectorise(self, text: str) -> sp.csr_matrix:
        """A 1 x V tf-idf row for arbitrary text (the synthetic seed document of a topic query)."""
        return weight(self._term_counter()([text]), self.idf, self.settings)

    def _term_counter(self) -> Callable[[list[str]], sp.csr_matrix]:
        """Term counts (int32 CSR, sorted columns) of texts over this vocabulary, tokenised as the features were."""
        analyse = make_analyser(self.settings.stem, self.settings.tokens)
        index = {term: i for i, term in enumerate(self.vocabulary)}
        n_terms = len(self.vocabulary)

        def count(texts: list[str]) -> sp.csr_matrix:
            indptr, indices, data = [0], [], []
            for text in texts:
                counts: dict[int, int] = {}
                for token in analyse(text):
                    column = index.get(token)
                    if column is not None:
                        counts[column] = counts.get(column, 0) + 1
                for column in sorted(counts):
                    indices.append(column)
                    data.append(counts[column])
                indptr.append(len(indices))
            return sp.csr_matrix(
                (np.array(data, dtype=np.int32), np.array(indices, dtype=np.int32), np.array(indptr, dtype=np.int32)),
                shape=(len(texts), n_terms),
            )

        return count


def weight(counts: sp.csr_matrix, idf: np.ndarray, settings: FeatureSettings) -> sp.csr_matrix:
    weighted = counts.astype(np.float32, copy=True)
    if settings.sublinear_tf:
        np.log(weighted.data, out=weighted.data)
        weighted.data += 1.0
    weighted.data *= idf[weighted.indices]  # in place: a broadcast multiply() would build an int64 COO copy
    weighted.eliminate_zeros()
    from sklearn.preprocessing import normalize  # imported here: scikit-learn takes a second to import

    return normalize(weighted, norm="l2", copy=False).astype(np.float32, copy=False)


def weight_paragraphs(counts: sp.csr_matrix, idf: np.ndarray, settings: FeatureSettings) -> sp.csr_matrix:
    """HiCAL's paragraph vectors (CALEngine/src/corpus_parser.cc): raw tf * idf, divided by max(20, L2 norm)."""
    weighted = counts.astype(np.float64, copy=True)
    weighted.data *= idf[weighted.indices]
    weighted.eliminate_zeros()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    divisor = np.repeat(np.maximum(norms, 20.0), np.diff(weighted.indptr))
    weighted.data /= divisor
    return weighted.astype(np.float32)
