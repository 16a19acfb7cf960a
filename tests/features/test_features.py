"""BMI tf-idf features against a hand-written computation, the shared vocabulary, and the on-disk cache."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tarsim.data.collection import Collection, Document
from tarsim.features.build import build_features
from tarsim.features.cache import cache_path, cached_features
from tarsim.features.matrices import FeatureSettings

DOCS = [
    Document("a", "Oil prices rose. Oil output fell sharply."),
    Document("b", "Gold prices fell. Traders sold gold and oil."),
    Document("c", "The central bank cut rates. Gold rose 3 pct."),
    Document("d", "Nothing in common here. Zebra 42 x."),
]


def test_weights_follow_bmi_definition_without_stemming():
    collection = Collection(DOCS)
    features = build_features(collection, FeatureSettings(stem=False))
    tokens = [re.findall(r"[a-z]{2,}", (d.title + " " + d.text).lower()) for d in DOCS]
    df: dict[str, int] = {}
    for doc_tokens in tokens:
        for term in set(doc_tokens):
            df[term] = df.get(term, 0) + 1
    vocabulary = sorted(t for t, n in df.items() if n >= 2)
    assert list(features.vocabulary) == vocabulary
    n = len(DOCS)
    for row, doc_tokens in enumerate(tokens):
        expected = np.zeros(len(vocabulary))
        for j, term in enumerate(vocabulary):
            tf = doc_tokens.count(term)
            if tf:
                expected[j] = (1 + math.log(tf)) * math.log(n / df[term])
        norm = np.linalg.norm(expected)
        if norm:
            expected /= norm
        assert np.allclose(features.documents[row].toarray().ravel(), expected, atol=1e-6)
    assert features.documents.dtype == np.float32 and features.documents.format == "csr"


def test_sentences_share_the_vocabulary_and_idf():
    features = build_features(Collection(DOCS), FeatureSettings(stem=False))
    assert features.sentences.shape[1] == features.documents.shape[1]
    assert list(np.diff(features.sentence_offsets)) == [2, 2, 2, 2]
    oil = features.vocabulary.index("oil")
    first_sentence = features.sentences[0].toarray().ravel()
    assert first_sentence[oil] > 0
    norms = np.sqrt(np.asarray(features.sentences.multiply(features.sentences).sum(axis=1)).ravel())
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-6)


def test_stemming_merges_inflections_and_query_vectorises_in_the_same_space():
    features = build_features(Collection(DOCS))
    assert "price" in features.vocabulary  # prices -> price
    query = features.vectorise("falling gold prices")
    assert query.shape == (1, len(features.vocabulary))
    assert set(np.asarray(features.vocabulary)[query.indices]) == {"gold", "price"}


def test_features_are_cached_on_disk_and_reused(tmp_path, monkeypatch):
    collection = Collection(DOCS)
    first = cached_features(collection, tmp_path)
    path = cache_path(tmp_path, collection, FeatureSettings())
    assert path.exists()

    def fail(*args, **kwargs):
        raise AssertionError("features were rebuilt despite the cache")

    monkeypatch.setattr("tarsim.features.build.build_features", fail)
    second = cached_features(collection, tmp_path)
    assert (first.documents != second.documents).nnz == 0
    assert first.vocabulary == second.vocabulary
    # a different collection or different settings use a different cache entry
    assert cache_path(tmp_path, Collection(DOCS[:3]), FeatureSettings()) != path
    assert cache_path(tmp_path, collection, FeatureSettings(stem=False)) != path


@pytest.mark.parametrize("stem", [True, False])
def test_every_document_has_at_least_one_sentence(stem):
    docs = [*DOCS, Document("empty", "")]
    features = build_features(Collection(docs), FeatureSettings(stem=stem))
    assert (np.diff(features.sentence_offsets) >= 1).all()


def test_parallel_segmentation_gives_the_serial_result(monkeypatch):
    import tarsim.runtime.chunks as features_module
    from tarsim.text.segmentation import segment_collection

    docs = [
        Document(f"x{i}", f"Rates rose {i} pct. The U.S. bank said so. Gold fell.\n  New paragraph {i}.")
        for i in range(60)
    ]
    collection = Collection(docs)
    serial = segment_collection(collection, n_jobs=1)
    monkeypatch.setattr(features_module, "PARALLEL_SEGMENTATION_MIN_DOCUMENTS", 10)
    monkeypatch.setattr(features_module, "FORKED_PARALLEL_MIN_DOCUMENTS", 10)
    assert len(features_module.chunks(collection, 2)) > 1
    parallel = segment_collection(collection, n_jobs=2)
    assert [list(s) for s in parallel] == [list(s) for s in serial]
    assert len(serial[0]) == 4


@pytest.mark.parametrize("fork", [True, False], ids=["forked-pool", "loky"])
def test_features_counted_in_parallel_chunks_equal_the_serial_build(monkeypatch, fork):
    """Chunks with different vocabularies (and one with no word at all) merge into exactly the serial features,
    whether the workers are forked from this process or started fresh by joblib (a sweep's workers, threads)."""
    import tarsim.runtime.chunks as features_module

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    docs = [
        Document(f"d{i}", f"{words[i % 8]} {words[(i * 3) % 8]} zulu{i % 5}. Then {words[(i // 7) % 8]} again.")
        for i in range(40)
    ]
    docs += [Document(f"e{i}", "") for i in range(12)]  # the last chunks hold no term
    collection = Collection(docs)
    serial = build_features(collection, n_jobs=1)
    monkeypatch.setattr(features_module, "PARALLEL_SEGMENTATION_MIN_DOCUMENTS", 10)
    monkeypatch.setattr(features_module, "FORKED_PARALLEL_MIN_DOCUMENTS", 10)
    monkeypatch.setattr(features_module, "can_fork", lambda: fork)
    assert len(features_module.chunks(collection, 2)) > 1
    parallel = build_features(collection, n_jobs=2)
    assert parallel.vocabulary == serial.vocabulary
    for name in ("documents", "sentences"):
        a, b = getattr(serial, name), getattr(parallel, name)
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
        assert np.array_equal(a.data, b.data)
    for name in ("sentence_offsets", "sentence_words", "idf"):
        assert np.array_equal(getattr(serial, name), getattr(parallel, name))
