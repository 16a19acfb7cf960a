"""HiCAL's engine as options: the pegasos learner, HiCAL's tokeniser and paragraph weights, presumed
non-relevant drawn with replacement. Expected values are worked out by hand from HiCAL's rules."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.sparse as sp

from tarsim.data import Collection, Document
from tarsim.errors import ConfigError
from tarsim.features.build import build_features
from tarsim.features.matrices import FeatureSettings
from tarsim.learners.estimators import PegasosRank
from tarsim.learners.named import fit_and_score, make_learner
from tarsim.text.analysers import make_analyser


def test_pegasos_is_a_registered_learner():
    from tarsim.components import kind

    assert "pegasos" in kind("learner").names()
    estimator = make_learner("pegasos:iterations=500", lambda_=0.01, random_state=4)
    assert (estimator.alpha, estimator.iterations, estimator.random_state) == (0.01, 500, 4)
    assert make_learner("pegasos").iterations == 200_000  # HiCAL's BMI::train


@pytest.mark.slow
def test_first_steps_by_hand():
    """One positive a = e0, one negative b = e1, lambda = 0.5: two steps worked out on paper."""
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]))
    y = np.array([1, 0])
    # step 1: eta = 1/(0.5*1) = 2; w.(a-b) = 0 so loss = 1/2; shrink max(1 - 1, 1e-7) on w = 0;
    # w = 2 * 0.5 * (a - b) = (1, -1); |w|^2 = 2 > 1/lambda = 2? no: projection 1/sqrt(0.5*2) = 1, no change.
    w1 = PegasosRank(alpha=0.5, iterations=1).fit(X, y).coef_.ravel()
    np.testing.assert_allclose(w1, [1.0, -1.0])
    # step 2: eta = 1; w.(a-b) = 2, loss = 1/(1+e^2); shrink 1 - 0.5 = 0.5 -> (0.5, -0.5); add loss*(a-b);
    # |w|^2 = 2 (0.5 + loss)^2 < 2, no projection.
    loss = 1.0 / (1.0 + math.exp(2.0))
    w2 = PegasosRank(alpha=0.5, iterations=2).fit(X, y).coef_.ravel()
    np.testing.assert_allclose(w2, [0.5 + loss, -0.5 - loss])


def test_projection_onto_the_pegasos_ball():
    """lambda = 2: after step 1 w = (0.25, -0.25)... and |w| never exceeds 1/sqrt(lambda)."""
    X = sp.csr_matrix(np.array([[3.0, 0.0], [0.0, 3.0]]))
    w = PegasosRank(alpha=2.0, iterations=50, random_state=0).fit(X, np.array([1, 0])).coef_.ravel()
    assert np.linalg.norm(w) <= 1 / math.sqrt(2.0) + 1e-9
    assert w[0] > 0 > w[1]


def test_pegasos_is_seeded_and_refuses_one_class():
    rng = np.random.default_rng(1)
    X = sp.random(40, 30, density=0.2, format="csr", random_state=rng)
    y = (np.arange(40) < 8).astype(int)
    first = PegasosRank(iterations=2000, random_state=3).fit(X, y).coef_
    assert np.array_equal(first, PegasosRank(iterations=2000, random_state=3).fit(X, y).coef_)
    assert not np.array_equal(first, PegasosRank(iterations=2000, random_state=4).fit(X, y).coef_)
    with pytest.raises(ValueError, match="one relevant and one non-relevant"):
        PegasosRank().fit(X, np.zeros(40, dtype=int))


def test_pegasos_ranks_the_demo_like_the_default_learner(demo):
    features = build_features(demo.collection)
    relevant = demo.qrels["T2"]
    rng = np.random.default_rng(0)
    rows = rng.choice(features.n_documents, 300, replace=False)
    y = np.array([1 if relevant.get(demo.collection.docids[i], 0) > 0 else 0 for i in rows])
    truth = np.array([1 if relevant.get(d, 0) > 0 else 0 for d in demo.collection.docids])
    for name in ("bmi", "pegasos:iterations=20000"):
        scores = fit_and_score(make_learner(name), features.documents[rows], y, features.documents)[0]
        top = np.argsort(-scores)[:100]
        assert truth[top].mean() > 0.8, name  # T2 has 117 relevant of 2,000 documents (6%)


def test_hical_tokens():
    analyse = make_analyser(False, "hical")
    # digits drop the whole run; non-ASCII letters split runs (C isalnum); 1-letter words dropped
    assert analyse("Abc123 x1 2x Running café a in-house Naïve") == ["running", "caf", "in", "house", "na", "ve"]
    assert make_analyser(False, "bmi")("Abc123 café") == ["abc", "café"]
    stemmed = make_analyser(True, "hical")
    assert stemmed("as is running ponies") == ["as", "is", "run", "poni"]  # <= 2 letters left unstemmed


def test_hical_paragraph_weights():
    """Sentence vectors tf * idf / max(20, L2); documents keep (1 + ln tf) idf, L2-normalised."""
    docs = [
        Document("d1", "alpha alpha beta. gamma delta.", sentences=["alpha alpha beta", "gamma delta"]),
        Document("d2", "alpha beta", sentences=["alpha beta"]),
        Document("d3", "gamma delta", sentences=["gamma delta"]),
        Document("d4", "epsilon", sentences=["epsilon"]),
    ]
    collection = Collection(docs)
    settings = FeatureSettings(stem=False, tokens="hical", sentence_weights="hical")
    features = build_features(collection, settings)
    vocabulary = list(features.vocabulary)
    assert vocabulary == ["alpha", "beta", "delta", "gamma"]  # epsilon is in one document only
    idf = math.log(4 / 2)
    first = features.sentences[0].toarray().ravel()
    # alpha: tf 2, beta: tf 1; L2 = idf * sqrt(5) = 1.55 < 20, so divide by 20
    np.testing.assert_allclose(first[[0, 1]], [2 * idf / 20, idf / 20], rtol=1e-6)
    document = features.documents[0].toarray().ravel()
    weights = np.array([1 + math.log(2), 1, 1, 1]) * idf
    np.testing.assert_allclose(document, weights / np.linalg.norm(weights), rtol=1e-6)
    default = build_features(collection, FeatureSettings(stem=False))
    np.testing.assert_allclose(np.linalg.norm(default.sentences[0].toarray()), 1.0, rtol=1e-6)


def test_new_settings_are_recorded_only_when_set():
    from tarsim.simulator import ReviewConfig

    default = ReviewConfig().to_dict()
    assert "presumed_with_replacement" not in default
    assert "tokens" not in default["features"] and "sentence_weights" not in default["features"]
    hical = ReviewConfig(presumed_with_replacement=True, features="bmi:tokens=hical").to_dict()
    assert hical["presumed_with_replacement"] is True
    assert hical["features"]["tokens"] == "hical"
    assert ReviewConfig.from_dict(json.loads(json.dumps(hical))).to_dict() == hical
    assert FeatureSettings().digest() != FeatureSettings(tokens="hical").digest()
    with pytest.raises(ConfigError, match="tokens"):
        ReviewConfig(features="bmi:tokens=hicaal")


def test_presumed_with_replacement_in_a_review(demo, tmp_path):
    import tarsim

    result = tarsim.simulate(
        demo,
        topic="T2",
        learner="pegasos:iterations=3000",
        presumed_with_replacement=True,
        presumed_nonrelevant=1500,
        max_effort="0.3R",
        out=tmp_path,
    )
    ledger = next((tmp_path / "ledgers").glob("*.jsonl")).read_text().splitlines()
    header = json.loads(ledger[0])
    assert header["config"]["presumed_with_replacement"] is True
    assert header["config"]["learner"] == "pegasos:iterations=3000"
    rounds = [json.loads(line) for line in ledger[1:] if '"presumed_nonrelevant"' in line]
    assert result.ledgers and rounds
    drawn = rounds[0]["presumed_nonrelevant"]
    # 1,500 draws with replacement from 2,000 documents: about 2000 (1 - e^-0.75) = 1,055 distinct
    assert len(drawn) == 1500 and len(set(drawn)) < 1200
