"""Feature extractors: the declaration of tarsim's one built-in extractor (the code is tarsim.features)."""

from __future__ import annotations

from typing import ClassVar

from tarsim.components.params import Param
from tarsim.components.registry import register


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
        from tarsim.features import FeatureSettings

        self.settings = FeatureSettings(
            stem=stem, min_df=min_df, sublinear_tf=sublinear_tf, tokens=tokens, sentence_weights=sentence_weights
        )
