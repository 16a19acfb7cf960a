"""Feature extractors: BMI's (the code is tarsim.features) and ASReview's tf-idf (tarsim.features.tfidf)."""

from __future__ import annotations

from typing import ClassVar

from tarsim.components.lookup import register
from tarsim.components.params import Param


@register("features")
class BMIFeatures:
    """BMI-style tf-idf: Porter-stemmed alphabetic tokens, (1 + ln tf) * ln(N / df), rows L2-normalised."""

    name: ClassVar[str] = "bmi"
    params: ClassVar[tuple[Param, ...]] = (
        Param("stem", bool, True, "Porter-stem the tokens"),
        Param("min_df", int, 2, "drop terms found in fewer documents", low=1),
        Param("sublinear_tf", bool, True, "weight term counts as 1 + ln tf"),
        Param("tokens", str, "bmi", "tokeniser: bmi, or hical (HiCAL's: runs with digits dropped)",
              choices=("bmi", "hical")),
        Param("sentence_weights", str, "bmi", "sentence vectors: bmi, or hical (tf * idf / max(20, L2))",
              choices=("bmi", "hical")),
    )  # fmt: skip

    def __init__(
        self,
        stem: bool = True,
        min_df: int = 2,
        sublinear_tf: bool = True,
        tokens: str = "bmi",
        sentence_weights: str = "bmi",
    ) -> None:
        from tarsim.features.matrices import FeatureSettings

        self.settings = FeatureSettings(
            stem=stem, min_df=min_df, sublinear_tf=sublinear_tf, tokens=tokens, sentence_weights=sentence_weights
        )


@register("features")
class TfidfExtractor:
    """ASReview's `tfidf`: scikit-learn's TfidfVectorizer over title + " " + text, float64 (sentences transformed
    with the same fitted vectoriser)."""

    name: ClassVar[str] = "tfidf"
    params: ClassVar[tuple[Param, ...]] = (
        Param("ngram_min", int, 1, "shortest n-gram", low=1),
        Param("ngram_max", int, 1, "longest n-gram", low=1),
        Param("sublinear_tf", bool, False, "weight term counts as 1 + ln tf"),
        Param("min_df", float, 1.0, "drop terms in fewer documents (>= 1: a count; < 1: a share)", low=0),
        Param("max_df", float, 1.0, "drop terms in more documents (<= 1: a share; > 1: a count)", low=0, low_open=True),
        Param("stop_words", str, "none", "stop-word list", choices=("none", "english")),
        Param("lowercase", bool, True, "lower-case the text"),
        Param("use_idf", bool, True, "weight by inverse document frequency"),
        Param("smooth_idf", bool, True, "add one to document frequencies"),
        Param("norm", str, "l2", "row normalisation", choices=("l2", "l1", "none")),
    )

    def __init__(self, **settings: object) -> None:
        from tarsim.features.tfidf import TfidfSettings

        self.settings = TfidfSettings(**settings)  # type: ignore[arg-type]


def feature_settings_of(spec: str, bmi_settings: object) -> object:
    """The settings (cache key) of the extractor a spec names; `bmi` takes the review's `features` settings."""
    from tarsim.components.lookup import make

    extractor = make("features", spec)
    if isinstance(extractor, BMIFeatures) and extractor.settings == type(extractor.settings)():
        return bmi_settings
    return extractor.settings
