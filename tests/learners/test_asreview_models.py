"""ASReview's and TARexp's models in tarsim: learners, balancing, tf-idf, query strategies and presets."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from tarsim.cli import main
from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset

FAST = ["--max-effort", "40", "--batch", "10", "--effort", "judge"]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> list[str]:
    """A 300-document synthetic collection with one topic (the demo takes seconds per run): its --collection."""
    from tarsim.data import write_collection, write_qrels, write_topics
    from tarsim.datasets.synthetic import SyntheticSpec, make_synthetic_dataset

    dataset, _ = make_synthetic_dataset(SyntheticSpec(n_documents=300, prevalences=(0.1,), vocabulary_size=800))
    directory = tmp_path_factory.mktemp("small")
    write_collection(directory / "docs.jsonl", dataset.collection)
    write_qrels(directory / "qrels.txt", dataset.qrels)
    write_topics(directory / "topics.tsv", dataset.topics)
    return ["--collection", str(directory)]


def header_of(out) -> dict:
    ledger = next((out / "ledgers").glob("*.jsonl"))
    return json.loads(ledger.read_text(encoding="utf-8").splitlines()[0])


def judged(out) -> list[str]:
    ledger = next((out / "ledgers").glob("*.jsonl"))
    lines = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    return [line["docid"] for line in lines if line["type"] == "judgment"]


@pytest.mark.parametrize(
    "flags",
    [
        ["--learner", "nb:alpha=3.822,balance=balanced,ratio=1.2", "--features", "tfidf:stop_words=english"],
        ["--learner", "svm:C=0.11,balance=balanced,ratio=9.8", "--features", "tfidf:ngram_max=2", "--policy", "max"],
        ["--learner", "rf:n_estimators=10", "--policy", "max_random"],
        ["--learner", "logistic:class_weight=none,solver=liblinear", "--policy", "max_uncertainty"],
        ["--policy", "uncertainty", "--features", "tfidf"],
    ],
    ids=["nb", "svm", "rf+max_random", "logistic+max_uncertainty", "uncertainty+tfidf"],
)
@pytest.mark.slow
def test_every_component_runs_through_simulate(tmp_path, small, flags):
    out = tmp_path / "out"
    assert main(["simulate", "--out", str(out), *small, *FAST, *flags]) == 0
    header = header_of(out)
    assert len(judged(out)) == 40
    for flag, value in zip(flags[::2], flags[1::2], strict=True):
        key = {"--learner": "learner", "--features": "extractor", "--policy": "policy"}[flag]
        assert header["config"][key] == value
    if flags[0] == "--learner":
        assert header["learner"].startswith(("MultinomialNB(", "LinearSVC(", "RandomForestClassifier(", "Logistic"))


def test_same_seed_gives_the_same_ledger_with_random_streams(tmp_path, small):
    flags = ["--learner", "rf:n_estimators=5", "--policy", "max_random", "--features", "tfidf", "--seed", "4"]
    for name in ("a", "b"):
        assert main(["simulate", "--out", str(tmp_path / name), *small, *FAST, *flags]) == 0
    first, second = (next((tmp_path / n / "ledgers").glob("*.jsonl")).read_text() for n in "ab")
    assert first.replace("\n", "").split('"tarsim"')[1:] == second.replace("\n", "").split('"tarsim"')[1:]


def test_default_ledger_header_does_not_record_the_new_fields(tmp_path, small):
    out = tmp_path / "out"
    assert main(["simulate", "--out", str(out), *small, *FAST]) == 0
    config = header_of(out)["config"]
    assert "extractor" not in config and "preset" not in config
    assert config["learner"] == "bmi" and config["policy"] == "relevance"


def test_balanced_weights_follow_asreview_formula():
    from tarsim.learners.weights import balanced_weights

    # y = 1 relevant, 3 non-relevant, ratio 2: raw {1: 1, 0: 1/(2*3)} = 1, 1/6 x3 (sum 1.5), scaled by 4/1.5.
    weights = balanced_weights(np.array([1, 0, 0, 0]), 2.0)
    assert weights == pytest.approx([8 / 3, 4 / 9, 4 / 9, 4 / 9])
    assert weights.sum() == pytest.approx(4.0)


def small_collection() -> Collection:
    texts = [
        ("Aspirin trial", "randomised trial of aspirin in stroke patients"),
        ("Stroke outcomes", "aspirin and stroke prevention outcomes in a cohort"),
        ("Cooking", "a recipe for bread with flour and water"),
        ("Gardening", "tomato plants need water and sun"),
        ("Aspirin dose", "low dose aspirin trial for secondary stroke prevention"),
        ("Football", "the match ended in a draw after extra time"),
        ("Clopidogrel", "clopidogrel versus aspirin in stroke, a randomised trial"),
        ("Weather", "rain and sun expected over the weekend"),
        ("", "stroke rehabilitation trial with exercise"),
        ("Bread", "sourdough bread needs time and water"),
        ("Statins", "statins after stroke: a randomised controlled trial"),
        ("Music", "the orchestra played a symphony"),
    ]
    return Collection([Document(f"d{i:02d}", text, title) for i, (title, text) in enumerate(texts)])


RELEVANT = {"d00", "d01", "d04", "d06", "d10"}


def test_tfidf_matrix_equals_an_independent_vectoriser():
    from tarsim.features.tfidf import TfidfSettings, build_tfidf_features

    collection = small_collection()
    settings = TfidfSettings(ngram_max=2, sublinear_tf=True, min_df=1, max_df=0.95)
    features = build_tfidf_features(collection, settings)
    texts = [f"{d.title} {d.text}" for d in collection]
    expected = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95).fit_transform(texts)
    assert features.documents.dtype == np.float64
    assert abs(features.documents - expected).max() == 0
    assert features.sentences.shape[1] == expected.shape[1]
    query = features.vectorise("aspirin stroke trial")
    reference = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95).fit(texts)
    assert abs(query - reference.transform(["aspirin stroke trial"])).max() < 1e-12


def asreview_order(collection: Collection, priors: list[int], relevant: set[str]) -> list[int]:
    """ASReview 3's simulation loop with elas_u4, written out with scikit-learn only (n_query 1, last relevant)."""
    texts = [f"{d.title} {d.text}" for d in collection]
    X = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95).fit_transform(texts)
    labels = np.array([d.docid in relevant for d in collection], dtype=int)
    np.random.seed(0)
    order = list(priors)
    while labels[order].sum() < labels.sum():
        y = labels[order]
        w = np.where(y == 1, 1.0, (y == 1).sum() / (9.8 * (y == 0).sum()))
        w = w * len(y) / w.sum()
        model = LinearSVC(C=0.11, loss="squared_hinge").fit(X[order], y, sample_weight=w)
        pool = np.setdiff1d(np.arange(len(labels)), order)
        order.append(int(pool[np.argsort(-model.decision_function(X[pool]), kind="stable")[0]]))
    return order


def test_asreview_default_preset_reproduces_asreview_ranking():
    from tarsim import simulate

    collection = small_collection()
    dataset = Dataset(collection, {"T": {d: 1 for d in RELEVANT}}, {"T": "aspirin stroke"}, "tiny")
    priors = [0, 2]
    result = simulate(dataset, preset="asreview-default", seeding="documents", seed_doc=["d00", "d02"])
    ledger = result.ledgers["T"]
    assert ledger.header["config"]["preset"] == "asreview-default"
    expected = [collection[i].docid for i in asreview_order(collection, priors, RELEVANT)]
    assert list(ledger.docids) == expected


def test_presets_resolve_and_are_overridden_by_explicit_options(tmp_path, small):
    out = tmp_path / "out"
    assert main(["simulate", "--out", str(out), *small, "--preset", "asreview-logistic",
                 "--max-effort", "30", "--batch", "15", "--effort", "judge"]) == 0  # fmt: skip
    config = header_of(out)["config"]
    assert config["preset"] == "asreview-logistic"
    assert config["batch"] == "15"  # given explicitly: overrides the preset's 10
    assert config["learner"] == "logistic:class_weight=none,balance=balanced,ratio=1"
    assert config["extractor"] == "tfidf" and config["policy"] == "max" and config["presumed_nonrelevant"] == 0
    assert [round_["batch_size"] for round_ in _rounds(out)][:2] == [15, 15]


def _rounds(out) -> list[dict]:
    ledger = next((out / "ledgers").glob("*.jsonl"))
    return [r for r in map(json.loads, ledger.read_text(encoding="utf-8").splitlines()) if r["type"] == "round"]


def test_preset_api_and_listing(capsys):
    from tarsim.api.review import review_settings
    from tarsim.simulator import ReviewConfig

    config = ReviewConfig(**review_settings({"preset": "tarexp-default", "features": "tfidf:min_df=3"}))
    assert config.batch == "200" and config.extractor == "tfidf:min_df=3" and config.preset == "tarexp-default"
    assert ReviewConfig(**review_settings({"preset": "bmi"})).to_dict()["preset"] == "bmi"
    assert main(["list", "preset"]) == 0
    listed = capsys.readouterr().out
    for name in ("bmi", "asreview-default", "asreview-logistic", "tarexp-default"):
        assert f"  {name}  " in listed


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--preset", "asreview"], "preset 'asreview' unknown"),
        (["--learner", "svm:loss=log"], "loss must be one of hinge, squared_hinge"),
        (["--features", "tfidf:ngram_max=0"], "ngram_max must be an integer >= 1"),
        (["--learner", "nb:balance=yes"], "balance must be one of none, balanced"),
    ],
)
def test_bad_model_settings_are_one_line_errors(tmp_path, capsys, flags, message):
    assert main(["simulate", "--out", str(tmp_path / "out"), *flags]) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_mixing_policies_follow_the_mix_rule():
    from tarsim.policies import make_selection_policy

    scores = np.array([0.9, 0.1, 0.8, -0.05, 0.7, 0.3])
    candidates = np.arange(6)
    rng = np.random.default_rng(0)
    always_max = make_selection_policy("max_uncertainty:probability=1").select(scores, candidates, 3, rng)
    assert always_max.tolist() == [0, 2, 4]
    never_max = make_selection_policy("max_uncertainty:probability=0").select(scores, candidates, 3, rng)
    assert never_max.tolist() == [3, 1, 5]  # closest to the boundary 0 first
    picks = make_selection_policy("max_random").select(scores, candidates, 6, rng)
    assert sorted(picks.tolist()) == list(range(6))


def test_tfidf_features_are_cached_by_settings(tmp_path):
    from tarsim.features.tfidf import TfidfSettings, cached_tfidf_features

    collection = small_collection()
    first = cached_tfidf_features(collection, tmp_path, TfidfSettings())
    again = cached_tfidf_features(collection, tmp_path, TfidfSettings())
    other = cached_tfidf_features(collection, tmp_path, TfidfSettings(ngram_max=2))
    assert len(list(tmp_path.glob("tfidf-*.npz"))) == 2
    assert abs(first.documents - again.documents).max() == 0 and sp.issparse(again.documents)
    assert other.documents.shape[1] > first.documents.shape[1]


SWEEP = """\
[sweep]
seeds = 1

[[collections]]
path = "demo"
topics = ["T1"]

[review]
"""


@pytest.mark.slow
def test_sweep_preset_key_resolves_and_runs_tfidf_reviews(tmp_path):
    import json

    from tarsim.cli import main
    from tarsim.sweep import parse_sweep_config

    config = parse_sweep_config(SWEEP + 'preset = "bmi"\nbatch = 10\n')
    assert config.review["preset"] == "bmi" and config.review["batch"] == "10"
    toml = tmp_path / "s.toml"
    toml.write_text(SWEEP + 'preset = "asreview-logistic"\nmax_effort = "R+20"\n', encoding="utf-8")
    cache = tmp_path / "cache"
    outs = []
    for jobs in ("1", "2"):  # the workers read the tf-idf cache the parent built: the same ledgers
        out = tmp_path / f"out{jobs}"
        assert main(["sweep", str(toml), "--out", str(out), "--jobs", jobs, "--cache-dir", str(cache)]) == 0
        outs.append(sorted((p.name, p.read_bytes()) for p in (out / "ledgers").rglob("*.jsonl")))
    assert outs[0] == outs[1] and outs[0]
    header = json.loads(outs[0][0][1].splitlines()[0])
    assert header["config"]["extractor"] == "tfidf" and header["config"]["batch"] == "10"
    assert len(list(cache.glob("tfidf-*.npz"))) == 1


@pytest.mark.slow
def test_tfidf_cache_entries_are_listed_cleared_and_an_unwritable_cache_costs_only_a_warning(tmp_path):
    from tarsim.datasets.synthetic import demo_dataset
    from tarsim.features.cache import cache_files, clear_cache, read_cache_meta
    from tarsim.features.tfidf import TfidfSettings, cached_tfidf_features

    collection = demo_dataset().collection
    built = cached_tfidf_features(collection, tmp_path, TfidfSettings())
    assert [p.name.startswith("tfidf-") for p in cache_files(tmp_path)] == [True]
    assert read_cache_meta(cache_files(tmp_path)[0])["source"] == collection.source  # `tarsim cache info` shows it
    assert clear_cache(tmp_path)[0] == 1 and not list(tmp_path.iterdir())
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.warns(UserWarning, match="cannot write the feature cache .*: not cached"):
        again = cached_tfidf_features(collection, blocker / "cache", TfidfSettings())
    assert abs(again.documents - built.documents).max() == 0
