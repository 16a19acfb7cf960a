"""A review's features, whichever extractor its `features` spec names: BMI (tarsim.features.build and .cache) or
tf-idf (tarsim.features.tfidf); the cache file a sweep worker reads them back from."""

from __future__ import annotations

from pathlib import Path

from tarsim.data.collection import Collection
from tarsim.features.cache import cache_path, cached_features, load_features
from tarsim.features.extractors import feature_settings_of
from tarsim.features.matrices import Features
from tarsim.features.tfidf import (
    TfidfSettings,
    cached_tfidf_features,
    is_tfidf_cache_file,
    load_tfidf_cache_file,
    tfidf_cache_path,
)


def review_cache_path(collection: Collection, cache_dir: Path, extractor: str, bmi_settings: object) -> Path:
    """The cache file of a review's features (whichever extractor its `extractor` spec names)."""
    settings = feature_settings_of(extractor, bmi_settings)
    if isinstance(settings, TfidfSettings):
        return tfidf_cache_path(Path(cache_dir), collection, settings)
    return cache_path(Path(cache_dir), collection, settings)  # type: ignore[arg-type]


def load_review_features(path: Path) -> Features:
    """Features from a cache file written for a review (a sweep worker's read), verified; CacheError if damaged."""
    if not is_tfidf_cache_file(path):
        return load_features(Path(path))
    return load_tfidf_cache_file(path)


def review_features(
    collection: Collection, cache_dir: Path | None, extractor: str, bmi_settings: object, sentences: bool = True
) -> Features:
    """The features a review's `extractor` spec names (`bmi`: tarsim.features with the `features` settings).

    `sentences=False` when the review needs the sentences of the documents it judges only (built lazily; a
    small collection's are segmented in the background from the start, as the review will read most of them).
    """
    settings = feature_settings_of(extractor, bmi_settings)
    if isinstance(settings, TfidfSettings):
        return cached_tfidf_features(collection, cache_dir, settings, sentences, segment_ahead=not sentences)
    return cached_features(collection, cache_dir, settings, sentences, not sentences)  # type: ignore[arg-type]
