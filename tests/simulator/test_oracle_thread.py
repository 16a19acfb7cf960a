"""The gold oracle fitted on a thread while a cold review of a large collection segments what it ranks first.

The thread and the segmenting ahead change when work is done, never what a review records: the ledgers must be the
bytes of a review that fits the oracle first. The collection-size thresholds are lowered here so that the demo
collection (2,000 documents) takes the large-collection path.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tarsim
import tarsim.text.sentences as sentences
from tarsim.simulator import oracle


@pytest.fixture
def large_path(monkeypatch):
    """The demo treated as a large collection: segmented as judged, the oracle fitted on a thread."""
    monkeypatch.setattr(sentences, "BACKGROUND_MAX_DOCUMENTS", 100)
    oracle._ORACLES.clear()


def _ledger_bytes(result) -> dict[str, bytes]:
    return {topic: (result.out / "ledgers" / f"{topic}.jsonl").read_bytes() for topic in result.ledgers}


def test_a_review_with_the_oracle_on_a_thread_records_the_same_ledger(large_path, monkeypatch, tmp_path):
    ahead: list[int] = []
    segment_while = sentences.LazySentences.segment_while

    def counted(self, docs, keep_going):
        ahead.append(segment_while(self, docs, keep_going))
        return ahead[-1]

    monkeypatch.setattr(sentences.LazySentences, "segment_while", counted)
    threaded = tarsim.simulate(topic=["T1", "T2"], out=tmp_path / "threaded", cache_dir=tmp_path / "c1")
    assert ahead and sum(ahead) > 0  # it did segment while the oracle fitted
    assert not [t for t in threading.enumerate() if t.name == "tarsim-gold-oracle"]  # ended: forking is safe again
    oracle._ORACLES.clear()
    monkeypatch.setattr(oracle, "_fit_on_a_thread", lambda features: False)
    inline = tarsim.simulate(topic=["T1", "T2"], out=tmp_path / "inline", cache_dir=tmp_path / "c2")
    assert _ledger_bytes(threaded) == _ledger_bytes(inline)


def test_fitting_labels_are_the_fitted_oracles(large_path, tmp_path):
    import tarsim.features.build as tf
    from tarsim.datasets.synthetic import demo_dataset

    dataset = demo_dataset()
    features = tf.with_lazy_sentences(tf.build_features(dataset.collection, sentences=False), dataset.collection)
    labels = np.zeros(len(dataset.collection), dtype=np.int8)
    labels[[3, 30, 300]] = 1
    fitting = oracle.classifier_labels(features, labels)
    assert isinstance(fitting, oracle.FittingLabels)
    direct = oracle._fit_classifier_labels(features, labels, 0.0, 0)
    for doc in (3, 30, 300, 4):
        assert np.array_equal(fitting.of(features, doc), direct.of(features, doc))
    assert not fitting.pending() and np.array_equal(fitting.coef, direct.coef)
    assert list(fitting.needs_rows(np.array([3, 4, 30]))) == [3, 30]


class _Flaky:
    """A fit that fails the first time (as a Ctrl-C in it would), then gives `value`; counts its calls."""

    def __init__(self, error: BaseException, value) -> None:
        self.error, self.value, self.calls = error, value, 0

    def __call__(self):
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return self.value


@pytest.mark.parametrize("in_background", [False, True])
def test_a_failed_fit_is_raised_where_the_labels_are_asked_and_not_kept(in_background):
    """Raised to the review where it asks; not remembered: a later ask (another review of the same topic) fits
    again (found in review: a Ctrl-C during the fit would otherwise be raised by every later review)."""
    error = KeyboardInterrupt() if not in_background else RuntimeError("the fit failed")
    fit = _Flaky(error, "fitted")
    labels = oracle.FittingLabels(fit, np.array([0, 1], dtype=np.int8))
    if in_background:
        assert labels.fit_in_background()
    with pytest.raises(type(error)):
        labels.fitted()
    assert not labels.pending() and labels.fitted() == "fitted" and fit.calls == 2
    assert labels.fitted() == "fitted" and fit.calls == 2  # kept once made


def test_the_fit_is_made_once_whichever_threads_ask_and_lets_go_of_the_features():
    import gc
    import weakref

    class Holder:  # stands for the features the fit closes over
        pass

    holder = Holder()
    calls = []

    def fit(held=holder):
        calls.append(1)
        return "fitted"

    labels = oracle.FittingLabels(fit, np.array([0, 1], dtype=np.int8))
    alive = weakref.ref(holder)
    del holder, fit
    results = []
    threads = [threading.Thread(target=lambda: results.append(labels.fitted())) for _ in range(4)]
    labels.fit_in_background()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["fitted"] * 4 and len(calls) == 1
    gc.collect()
    assert alive() is None  # the memo keeps the labels, not the features


def test_stored_sentences_mean_no_thread(large_path, tmp_path):
    """A collection whose sentences an earlier run stored has nothing to segment while the oracle fits: the fit is
    done first, as a thread would only cost there."""
    tarsim.simulate(topic="T2", out=tmp_path / "first", cache_dir=tmp_path / "c")
    oracle._ORACLES.clear()
    made = []
    real = oracle.FittingLabels.__init__

    def spy(self, *args):
        made.append(1)
        real(self, *args)

    import unittest.mock

    with unittest.mock.patch.object(oracle.FittingLabels, "__init__", spy):
        tarsim.simulate(topic="T2", out=tmp_path / "again", cache_dir=tmp_path / "c")
    assert not made


def test_fits_on_two_threads_give_the_coefficients_each_gives_alone(large_path):
    """liblinear reseeds one process-wide random generator at each fit: the oracle's fit on its thread and the
    review's fits at the same time would change each other's coefficients, but for learners.FIT_LOCK."""
    import tarsim.features.build as tf
    from tarsim.datasets.synthetic import demo_dataset
    from tarsim.learners.estimators import BMILogisticRegression
    from tarsim.learners.named import fit_and_score

    dataset = demo_dataset()
    features = tf.with_lazy_sentences(tf.build_features(dataset.collection, sentences=False), dataset.collection)
    labels = np.zeros(len(dataset.collection), dtype=np.int8)
    labels[::7] = 1
    alone = oracle._fit_classifier_labels(features, labels, 0.0, 0)
    X, y = features.documents[:1500], (np.arange(1500) % 5 == 0).astype(np.int64)
    solo = fit_and_score(BMILogisticRegression(random_state=3), X, y, X)[0]
    for _ in range(3):
        fitting = oracle.FittingLabels(lambda: oracle._fit_classifier_labels(features, labels, 0.0, 0), labels)
        assert fitting.fit_in_background()
        while_fitting = [fit_and_score(BMILogisticRegression(random_state=3), X, y, X)[0] for _ in range(3)]
        assert np.array_equal(fitting.coef, alone.coef)
        assert all(np.array_equal(scores, solo) for scores in while_fitting)
