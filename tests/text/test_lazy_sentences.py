"""Segmenting only what a review needs: document-only features, sentences of judged documents, the sentence store."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import tarsim.runtime.chunks
import tarsim.text.segmentation
import tarsim.text.sentences
from conftest import shared_dataset
from tarsim.datasets import load_dataset
from tarsim.errors import ConfigError, InputWarning
from tarsim.features.build import build_features, with_lazy_sentences
from tarsim.features.cache import cached_features
from tarsim.features.tfidf import TfidfSettings, build_tfidf_features, cached_tfidf_features
from tarsim.simulator import ReviewConfig, review_topics
from tarsim.simulator.strategies import needs_all_sentences


@pytest.fixture(scope="module")
def antihistamines():
    return load_dataset(shared_dataset("srd", "Cohen_2006_Antihistamines"))


@pytest.fixture(scope="module")
def built(antihistamines):
    """Both builds of each extractor, once per module: {(extractor, sentences): Features}."""
    from dataclasses import replace

    features = {}
    for extractor, build in (("bmi", build_features), ("tfidf", build_tfidf_features)):
        for sentences in (True, False):
            made = build(
                antihistamines.collection, *(() if extractor == "bmi" else (TfidfSettings(),)), sentences=sentences
            )
            features[extractor, sentences] = replace(made, lazy=None)  # a fresh LazySentences per use: fresh()
    return features


def fresh(features, collection):
    """Document-only features with their own (empty) LazySentences; whole features as they are."""
    return features if features.has_all_sentences else with_lazy_sentences(features, collection)


def _same_rows(a, b) -> bool:
    return (
        a.data.dtype == b.data.dtype
        and np.array_equal(a.data, b.data)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.indptr - a.indptr[0], b.indptr - b.indptr[0])
    )


@pytest.mark.slow
@pytest.mark.parametrize("weights", ["bmi", "hical"])
def test_document_only_features_equal_the_whole_build_to_the_bit(antihistamines, weights):
    from tarsim.features.matrices import FeatureSettings

    settings = FeatureSettings(sentence_weights=weights)
    full = build_features(antihistamines.collection, settings)
    lazy = build_features(antihistamines.collection, settings, sentences=False)
    assert lazy.sentences is None and full.sentences is not None
    assert _same_rows(full.documents, lazy.documents)
    assert np.array_equal(full.idf, lazy.idf) and full.vocabulary == lazy.vocabulary
    for doc in range(full.n_documents):
        assert _same_rows(full.sentence_rows_of(doc), lazy.sentence_rows_of(doc)), doc
        assert np.array_equal(full.sentence_words_of(doc), lazy.sentence_words_of(doc)), doc


@pytest.mark.slow
def test_document_only_tfidf_features_equal_the_whole_build_to_the_bit(antihistamines, built):
    full = built["tfidf", True]
    lazy = fresh(built["tfidf", False], antihistamines.collection)
    assert lazy.sentences is None
    assert _same_rows(full.documents, lazy.documents)
    for doc in range(0, full.n_documents, 7):
        assert _same_rows(full.sentence_rows_of(doc), lazy.sentence_rows_of(doc)), doc
        assert np.array_equal(full.sentence_words_of(doc), lazy.sentence_words_of(doc)), doc


def _ledger_bytes(out) -> bytes:
    return next((out / "ledgers").glob("*.jsonl")).read_bytes()


@pytest.mark.parametrize(
    "config",
    [
        ReviewConfig(),  # the default: classifier oracle, reading rule, sent and words efforts
        ReviewConfig(until="exhausted", reviewers=2, false_negative_rate=0.2, seed=3),
        ReviewConfig(extractor="tfidf", learner="logistic", batch="10", until="exhausted"),
    ],
    ids=["default", "two-fallible-reviewers", "tfidf-logistic"],
)
@pytest.mark.slow
def test_lazy_reviews_write_the_ledgers_of_whole_builds(antihistamines, built, tmp_path, config):
    topic = next(iter(antihistamines.topics))
    assert not needs_all_sentences(config)
    full = built[config.extractor, True]
    lazy = fresh(built[config.extractor, False], antihistamines.collection)
    assert full.has_all_sentences and not lazy.has_all_sentences
    review_topics(antihistamines, config, [topic], tmp_path / "full", features=full)
    review_topics(antihistamines, config, [topic], tmp_path / "lazy", features=lazy)
    assert _ledger_bytes(tmp_path / "full") == _ledger_bytes(tmp_path / "lazy")


@pytest.mark.slow
def test_a_document_review_segments_only_what_it_judges(antihistamines, built, monkeypatch):
    topic = next(iter(antihistamines.topics))
    features = fresh(built["bmi", False], antihistamines.collection)
    monkeypatch.setattr(tarsim.text.sentences, "SEGMENT_REST_SHARE", 1.0)  # no segmenting ahead: count what is needed
    monkeypatch.setattr(tarsim.text.sentences, "PARALLEL_MIN_DOCUMENTS", 10**9)
    segmented = []
    real = tarsim.text.segmentation.segment_document
    monkeypatch.setattr(tarsim.text.segmentation, "segment_document", lambda d: segmented.append(d.docid) or real(d))
    ledger = review_topics(antihistamines, ReviewConfig(), [topic], features=features).ledgers[topic]
    assert len(ledger) < len(antihistamines.collection)  # the review stops at the last relevant document
    assert set(segmented) == set(ledger.docids)


def test_sentence_strategies_and_sentence_qrels_build_every_sentence(antihistamines, built, tmp_path):
    assert needs_all_sentences(ReviewConfig(feedback="sentence"))
    assert needs_all_sentences(ReviewConfig(train_on="sentence"))
    qrels = tmp_path / "sentence-qrels.txt"
    qrels.write_text("t d1 0 1\n", encoding="utf-8")
    assert needs_all_sentences(ReviewConfig(sentence_oracle=str(qrels)))
    topic = next(iter(antihistamines.topics))
    lazy = fresh(built["bmi", False], antihistamines.collection)
    with pytest.raises(ConfigError, match="scores every sentence"):
        review_topics(antihistamines, ReviewConfig(feedback="sentence"), [topic], features=lazy)


def test_the_cache_keeps_documents_and_segmented_sentences_for_the_next_run(antihistamines, tmp_path, monkeypatch):
    topic = next(iter(antihistamines.topics))
    cache = tmp_path / "cache"
    first = cached_features(antihistamines.collection, cache, sentences=False)
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "a", cache_dir=cache)
    names = sorted(p.name for p in cache.iterdir())
    assert [n.split("-")[0] for n in names] == ["features", "sentences"] and "-docs-" in names[0]
    assert not first.has_all_sentences

    def no_segmentation(document):
        raise AssertionError(f"segmented {document.docid} again")

    monkeypatch.setattr(tarsim.text.segmentation, "segment_document", no_segmentation)
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "b", cache_dir=cache)
    assert _ledger_bytes(tmp_path / "a") == _ledger_bytes(tmp_path / "b")


def _flip_a_byte(store: Path) -> None:
    data = bytearray(store.read_bytes())
    data[len(data) // 2] ^= 0xFF
    store.write_bytes(bytes(data))


def _pickled_objects(store: Path) -> None:
    store.write_bytes(pickle.dumps({"not": "a store"}))


@pytest.mark.slow
@pytest.mark.parametrize("damage", [_flip_a_byte, _pickled_objects])
def test_a_damaged_sentence_store_warns_once_and_changes_nothing(antihistamines, tmp_path, damage):
    topic = next(iter(antihistamines.topics))
    cache = tmp_path / "cache"
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "a", cache_dir=cache)
    damage(next(cache.glob("sentences-*.npz")))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "b", cache_dir=cache)
    messages = [
        str(w.message) for w in caught if issubclass(w.category, InputWarning) and "sentence store" in str(w.message)
    ]
    assert len(messages) == 1, messages  # save() reads the store again: it used to warn a second time
    assert "you trust" not in messages[0]  # numpy's advice to load a pickle unsafely is not for a cache file
    assert _ledger_bytes(tmp_path / "a") == _ledger_bytes(tmp_path / "b")


@pytest.mark.slow
def test_a_sentence_store_of_other_feature_settings_is_not_used(antihistamines, tmp_path):
    """A store copied under another settings' name (or a digest collision) must not change the sent/words counts."""
    topic = next(iter(antihistamines.topics))
    cache = tmp_path / "cache"
    review_topics(antihistamines, ReviewConfig(features="bmi:min_df=3"), [topic], tmp_path / "other", cache_dir=cache)
    (other,) = cache.glob("sentences-*.npz")
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "a", cache_dir=cache)
    (mine,) = set(cache.glob("sentences-*.npz")) - {other}
    mine.write_bytes(other.read_bytes())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "b", cache_dir=cache)
    messages = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(messages) == 1 and "made for other feature settings" in messages[0], messages
    assert _ledger_bytes(tmp_path / "a") == _ledger_bytes(tmp_path / "b")


@pytest.mark.slow
def test_a_whole_entry_serves_document_reviews_and_a_document_entry_never_serves_sentence_ones(
    antihistamines, tmp_path
):
    cache = tmp_path / "cache"
    assert not cached_features(antihistamines.collection, cache, sentences=False).has_all_sentences
    assert cached_features(antihistamines.collection, cache, sentences=True).has_all_sentences
    assert cached_features(antihistamines.collection, cache, sentences=False).has_all_sentences  # the whole entry
    tfidf = cached_tfidf_features(antihistamines.collection, cache, TfidfSettings(), sentences=False)
    assert not tfidf.has_all_sentences and tfidf.lazy is not None


def test_features_without_a_collection_cannot_segment(antihistamines, built):
    lazy = built["bmi", False]  # stored without its LazySentences, as a sweep worker would read an entry
    assert len(with_lazy_sentences(lazy, antihistamines.collection).sentence_words_of(0)) >= 1
    with pytest.raises(ConfigError, match="documents only"):
        lazy.sentence_words_of(0)


def _slow_counted_segmentation(monkeypatch, seconds: float) -> list[str]:
    """Make segmenting in this process slow and counted (forked workers use tarsim.features' own reference)."""
    segmented = []
    real = tarsim.text.segmentation.segment_document

    def slow(document):
        segmented.append(document.docid)
        time.sleep(seconds)
        return real(document)

    monkeypatch.setattr(tarsim.text.segmentation, "segment_document", slow)
    return segmented


def _die(documents) -> None:
    """A background task that kills its worker (module level: tasks are pickled by name)."""
    os._exit(3)


def _recorded(cls, started: list):
    """`cls` with each instance made also appended to `started`."""

    class Recorded(cls):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    return Recorded


@pytest.fixture
def background_workers(monkeypatch) -> None:
    """Background workers can start: skipped on one core; forking allowed whatever threads pytest's plugins run."""
    if tarsim.runtime.chunks.available_cores() < 2:
        pytest.skip("background segmentation needs two cores")
    monkeypatch.setattr(tarsim.runtime.chunks, "can_fork", lambda: True)


@pytest.mark.slow
def test_a_small_collection_is_segmented_in_the_background_with_the_same_ledger(
    antihistamines, built, tmp_path, monkeypatch, background_workers
):
    threads, children = threading.active_count(), set(multiprocessing.active_children())  # loky's idle ones too
    topic = next(iter(antihistamines.topics))
    assert len(antihistamines.collection) < tarsim.text.sentences.BACKGROUND_MAX_DOCUMENTS
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "full", features=built["bmi", True])
    in_process = _slow_counted_segmentation(monkeypatch, 0.01)  # the workers soon get ahead of the review
    lazy = fresh(built["bmi", False], antihistamines.collection)
    ledger = review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "lazy", features=lazy).ledgers[topic]
    assert _ledger_bytes(tmp_path / "full") == _ledger_bytes(tmp_path / "lazy")
    assert len(in_process) < len(set(ledger.docids)) // 2  # most judged documents came back from the workers
    assert lazy.lazy.known_documents >= len(set(ledger.docids))
    assert threading.active_count() == threads and set(multiprocessing.active_children()) <= children  # stopped


def test_a_dead_background_worker_changes_nothing(antihistamines, built, tmp_path, monkeypatch, background_workers):
    started = []
    monkeypatch.setattr(tarsim.text.sentences, "Background", _recorded(tarsim.text.sentences.Background, started))
    topic = next(iter(antihistamines.topics))
    review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "full", features=built["bmi", True])
    monkeypatch.setattr(tarsim.text.sentences, "_segment_in_background", _die)  # every worker dies on its first chunk
    in_process = _slow_counted_segmentation(monkeypatch, 0)
    lazy = fresh(built["bmi", False], antihistamines.collection)
    ledger = review_topics(antihistamines, ReviewConfig(), [topic], tmp_path / "lazy", features=lazy).ledgers[topic]
    assert _ledger_bytes(tmp_path / "full") == _ledger_bytes(tmp_path / "lazy")
    assert started and set(in_process) >= set(ledger.docids)  # what the workers never returned: segmented here


def test_one_core_segments_as_judged(antihistamines, built, monkeypatch):
    monkeypatch.setattr(tarsim.runtime.chunks, "available_cores", lambda: 1)
    in_process = _slow_counted_segmentation(monkeypatch, 0)
    topic = next(iter(antihistamines.topics))
    lazy = fresh(built["bmi", False], antihistamines.collection)
    ledger = review_topics(antihistamines, ReviewConfig(), [topic], features=lazy).ledgers[topic]
    assert sorted(in_process) == sorted(set(ledger.docids))  # each judged document once, nothing ahead


def test_requeued_background_work_returns_every_document_once_with_its_sentences(antihistamines, background_workers):
    documents = list(antihistamines.collection)
    background = tarsim.text.sentences.start_background(documents)
    background.prioritise(list(reversed(range(len(documents)))))  # the review's ranking, other than collection order
    returned, deadline = [], time.monotonic() + 60
    while len(returned) < len(documents) and time.monotonic() < deadline:
        returned += background.finished()
        time.sleep(0.01)
    returned += background.close()
    assert sorted(doc for doc, _ in returned) == list(range(len(documents)))  # each once, none lost in the requeue
    for doc, sentences in returned[::17]:
        assert sentences == tarsim.text.segmentation.segment_document(documents[doc])


def test_a_build_that_fails_stops_its_background_workers_at_once(monkeypatch, background_workers):
    """A small collection's build starts segmenting in the background before it counts; when the count refuses
    the collection, the workers stop then (their queue dropped), not when the interpreter exits after them."""
    from tarsim.data.collection import Collection, Document
    from tarsim.errors import InputError

    started = []
    monkeypatch.setattr(tarsim.text.sentences, "Background", _recorded(tarsim.text.sentences.Background, started))
    collection = Collection([Document(f"d{i}", f"{i} 2 3. 4 5 6.") for i in range(400)])
    with pytest.raises(InputError, match="every document is empty"):
        build_features(collection, sentences=False, segment_ahead=True)
    assert len(started) == 1 and not started[0]._stop.alive  # close() ran: the finalizer is spent
