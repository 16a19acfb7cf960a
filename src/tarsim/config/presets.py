"""Presets: named, documented bundles of review settings (`--preset NAME`, a sweep's `preset`, `preset=`).

Each preset is one declaration in the component registry (kind `preset`, listed by `tarsim list preset`): its
docstring says what it reproduces and `settings` holds ReviewConfig values by field name. Settings given
explicitly next to a preset override it; the ledger header records the preset's name (`config.preset`) and,
as always, every resolved setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from tarsim.components import kind, register
from tarsim.errors import ConfigError

ASREVIEW_TFIDF_U4 = "tfidf:ngram_max=2,sublinear_tf=true,min_df=1,max_df=0.95"
"""ASReview 3's elas_u4 feature extractor: tf-idf of uni- and bigrams, sublinear tf, max_df 0.95."""


class Preset:
    """A named bundle of ReviewConfig settings."""

    name: ClassVar[str] = ""
    settings: ClassVar[Mapping[str, Any]] = {}


@register("preset")
class BMIPreset(Preset):
    """BMI (tarsim's defaults): bmi learner and features, relevance sampling, BMI's growing batches, 100 presumed
    non-relevant documents per round."""

    name = "bmi"
    settings: ClassVar[Mapping[str, Any]] = {}


@register("preset")
class ASReviewDefaultPreset(Preset):
    """ASReview 3's default model elas_u4: LinearSVC (C 0.11, squared hinge) with Balanced sample weights (ratio
    9.8), tf-idf of 1- and 2-grams (sublinear tf, min_df 1, max_df 0.95), max query, one record per round, no
    presumed non-relevant documents."""

    name = "asreview-default"
    settings: ClassVar[Mapping[str, Any]] = {
        "learner": "svm:C=0.11,loss=squared_hinge,balance=balanced,ratio=9.8",
        "extractor": ASREVIEW_TFIDF_U4,
        "policy": "max",
        "batch": "1",
        "presumed_nonrelevant": 0,
    }


@register("preset")
class ASReviewLogisticPreset(Preset):
    """`asreview simulate -c logistic -q max -b balanced -e tfidf --n-query 10`: scikit-learn's
    LogisticRegression defaults with Balanced sample weights (ratio 1), default tf-idf, max query, ten records per
    round, no presumed non-relevant documents."""

    name = "asreview-logistic"
    settings: ClassVar[Mapping[str, Any]] = {
        "learner": "logistic:class_weight=none,balance=balanced,ratio=1",
        "extractor": "tfidf",
        "policy": "max",
        "batch": "10",
        "presumed_nonrelevant": 0,
    }


@register("preset")
class ASReviewLogisticWarmStartPreset(Preset):
    """asreview-logistic with each refit starting from the last fit's coefficients (`warm_start=true`): about 3x
    fewer lbfgs iterations per round, so a study runs several times faster. The fits stop within lbfgs's tolerance
    of the same optimum from another start, so review orders drift from ASReview's after some rounds; Recall@E
    means over a study are compared with ASReview's in docs/speed.md."""

    name = "asreview-logistic-warm-start"
    settings: ClassVar[Mapping[str, Any]] = {
        **ASReviewLogisticPreset.settings,
        "learner": "logistic:class_weight=none,balance=balanced,ratio=1,warm_start=true",
    }


@register("preset")
class TARexpDefaultPreset(Preset):
    """TARexp 0.1.4's OnePhaseTARWorkflow as benchmarks/vs_peers.py runs it: SklearnRanker(LogisticRegression,
    solver=liblinear) without class weights, tf-idf with sublinear tf and min_df 2 over title + text, relevance
    sampling, batches of 200, no presumed non-relevant documents."""

    name = "tarexp-default"
    settings: ClassVar[Mapping[str, Any]] = {
        "learner": "logistic:class_weight=none,solver=liblinear",
        "extractor": "tfidf:sublinear_tf=true,min_df=2",
        "policy": "relevance",
        "batch": "200",
        "presumed_nonrelevant": 0,
    }


def apply_preset(name: str | None, explicit: Mapping[str, Any]) -> dict[str, Any]:
    """ReviewConfig keyword arguments: the preset's settings, overridden by the explicitly given ones. Explicit
    `features` also override the preset's extractor: a spec names its own, and settings are BMI's features'."""
    if name is None:
        return dict(explicit)
    cls, _ = kind("preset").resolve(name)
    settings = dict(cls.settings)
    if not kind("preset").is_builtin(name):
        check_preset_settings(cls)
    if "features" in explicit and "extractor" not in explicit:
        settings.pop("extractor", None)
    return {**settings, **explicit, "preset": cls.name}


def check_preset_settings(cls: type) -> None:
    """Refuse a plugin's preset whose settings make no review configuration (`batch = -5`, a key that is no setting),
    naming the preset and the plugin: the error of the ReviewConfig built from them would name neither."""
    from dataclasses import fields

    from tarsim.config.review import ReviewConfig

    where = f"preset {cls.name!r} ({kind('preset').origin(cls)})"
    accepted = [field.name for field in fields(ReviewConfig)]
    for key in cls.settings:
        if key not in accepted:
            raise ConfigError(f"{where}: setting {key!r} is no review setting; accepted: {', '.join(accepted)}")
    try:
        ReviewConfig(**cls.settings)
    except ConfigError as exc:
        raise ConfigError(f"{where}: its settings: {exc}") from None


SCREENING_FILE_PRESET = "asreview-default"
"""The preset a screening file (CSV, TSV, XLSX, RIS) is reviewed with when none is given: ASReview 3's default model,
which tarsim reproduces order for order on the 14 srd reviews (70 of 70 review x prior-seed pairs,
benchmarks/reproduce_peers.py). asreview-logistic is as good on Recall@2R+100 there (-0.006, p = 0.37) but not on
WSS@95 (-0.040, p < 0.001); BMI's defaults trail ASReview by about 0.04 to 0.09 Recall@2R+100 (recall_gap.py)."""


def default_preset(collection: object) -> str | None:
    """The preset used when none is given: SCREENING_FILE_PRESET for a screening file, else None (BMI)."""
    from tarsim.interop.screening import is_screening_file

    if not isinstance(collection, (str, Path)):
        return None
    return SCREENING_FILE_PRESET if is_screening_file(collection) else None


def check_query_seeding(collection: object, seeding: object) -> None:
    """Refuse `seeding="query"` asked for explicitly on a screening file: its topic has no query text. Left out, the
    default query seeding starts such a file from random priors instead (simulator.run.starting_config)."""
    from tarsim.interop.screening import is_screening_file, topic_name

    kind = getattr(seeding, "kind", seeding)
    if kind == "query" and isinstance(collection, (str, Path)) and is_screening_file(collection):
        raise ConfigError(
            f"topic {topic_name(collection)!r} has no query text (a screening file): leave --seeding out to start "
            "from 1 + 1 random priors, or use --seeding random|documents|priors"
        )
