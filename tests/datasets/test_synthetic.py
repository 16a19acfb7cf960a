"""The synthetic generators: the demo dataset and the scale path (features straight from token counts)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from tarsim.config.review import ReviewConfig
from tarsim.datasets import load_dataset
from tarsim.datasets.synthetic import (
    ScaleSpec,
    SyntheticSpec,
    demo_dataset,
    iter_scale_chunks,
    make_scale_collection,
    make_synthetic_dataset,
    write_scale_collection,
)
from tarsim.features.build import build_features
from tarsim.features.matrices import FeatureSettings
from tarsim.simulator.ledger import MemoryLedgerWriter
from tarsim.simulator.oracle import SentenceLabels
from tarsim.simulator.review import ReviewSimulation, TopicReview

SMALL = ScaleSpec(n_documents=1500, prevalence=0.05, vocabulary_size=3000, themes=10, chunk_documents=600, seed=3)


def test_demo_dataset_shape_and_determinism():
    first, second = demo_dataset(), demo_dataset()
    assert len(first.collection) == 2000
    assert [d.text for d in first.collection][:50] == [d.text for d in second.collection][:50]
    dataset, sentence_qrels = make_synthetic_dataset(SyntheticSpec(n_documents=300, seed=1))
    for topic, judged in dataset.qrels.items():
        relevant = {docid for docid, grade in judged.items() if grade > 0}
        assert relevant == set(sentence_qrels[topic])  # every relevant document has a planted sentence


@pytest.fixture(scope="module")
def small():
    return make_scale_collection(SMALL)


def test_scale_features_are_float32_csr_and_normalised(small):
    f = small.features
    assert sp.isspmatrix_csr(f.documents) and sp.isspmatrix_csr(f.sentences)
    assert f.documents.dtype == np.float32 and f.sentences.dtype == np.float32
    assert f.documents.shape[0] == SMALL.n_documents
    assert f.sentences.shape[0] == f.sentence_offsets[-1] == len(small.sentence_labels)
    norms = np.sqrt(np.asarray(f.documents.multiply(f.documents).sum(axis=1)).ravel())
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-5)


def test_scale_ground_truth_is_consistent(small):
    f, labels = small.features, small.sentence_labels
    per_doc = np.add.reduceat(labels.astype(np.int64), f.sentence_offsets[:-1])
    assert np.array_equal(per_doc > 0, small.relevant)  # relevant <=> at least one planted sentence
    assert 0 < small.relevant.sum() < SMALL.n_documents
    assert f.vectorise(small.query).nnz > 0


def test_scale_generation_is_deterministic(small):
    again = make_scale_collection(SMALL)
    assert (again.features.documents != small.features.documents).nnz == 0
    assert np.array_equal(again.sentence_labels, small.sentence_labels)
    other = make_scale_collection(ScaleSpec(**{**SMALL.__dict__, "seed": 4}))
    assert not np.array_equal(other.relevant, small.relevant)


def test_scale_chunks_cover_the_collection():
    chunks = list(iter_scale_chunks(SMALL))
    assert [c.start for c in chunks] == [0, 600, 1200]
    assert sum(len(c.sentence_counts) for c in chunks) == SMALL.n_documents
    for c in chunks:
        assert len(c.tokens) == c.sentence_lengths.sum()
        assert len(c.planted) == c.sentence_counts.sum()


def test_written_collection_gives_the_same_features_through_the_text_path(small, tmp_path):
    """The files path (read docs.jsonl.gz, tokenise, count) must reproduce the scale path's document features."""
    directory = write_scale_collection(SMALL, tmp_path / "scale")
    dataset = load_dataset(directory)
    assert len(dataset.collection) == SMALL.n_documents
    relevant = {docid for docid, grade in dataset.qrels["planted"].items() if grade > 0}
    assert relevant == {small.docids[i] for i in np.flatnonzero(small.relevant)}
    text = build_features(dataset.collection, FeatureSettings(stem=False))
    direct = small.features
    assert sorted(text.vocabulary) == sorted(direct.vocabulary)
    column = {term: i for i, term in enumerate(text.vocabulary)}
    permutation = np.array([column[term] for term in direct.vocabulary])
    assert np.allclose(text.idf[permutation], direct.idf)
    reordered = text.documents[:, permutation]
    assert abs(reordered - direct.documents).max() < 1e-5
    assert np.array_equal(text.sentence_offsets, direct.sentence_offsets)


def test_review_of_a_scale_collection_reaches_full_recall(small):
    grades = small.relevant.astype(np.int64)
    review = TopicReview("planted", small.query, grades, SentenceLabels(small.sentence_labels), small.docids)
    config = ReviewConfig(features=small.features.settings)
    writer = MemoryLedgerWriter({"topic": "planted"})
    end = ReviewSimulation(small.features, review, config, writer).run()
    assert end["reason"] == "all relevant documents presented"
    assert end["judgments"] < SMALL.n_documents
