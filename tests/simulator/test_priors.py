"""Priors (issue 12): ASReview's random draw reproduced, priors judged first and marked, prior_idx order kept, bad
values refused in one line, the 1 + 1 default start of a screening file, sweeps over prior seeds, and Insights'
counting of priors on a tarsim ledger."""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tarsim
from tarsim.cli import main
from tarsim.errors import ConfigError
from tarsim.features.matrices import FeatureSettings
from tarsim.policies.seeding import SeedingChoice, draw_priors
from tarsim.simulator import ReviewConfig

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

LABELS = [1 if i % 5 == 0 else 0 for i in range(40)]  # rows 0, 5, ..., 35 relevant: R = 8, N = 40


def write_csv(path: Path, labels=LABELS) -> Path:
    """A screening file: relevant records about triptans, the others about other things."""
    words = ["coffee", "sleep", "knee", "diet", "asthma", "vision", "teeth", "skin"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "label_included"])
        for i, label in enumerate(labels):
            topic = "triptan migraine relief" if label else f"{words[i % 8]} {words[(i * 3) % 8]} study"
            writer.writerow([f"trial {i} {topic}", f"{topic} randomised trial number {i}", label])
    return path


def asreview_draw(labels, n_included: int, n_excluded: int, seed: int) -> list[int]:
    """The calls asreview simulate makes (simulation/cli.py): check_random_state(seed) is RandomState(seed)."""
    labels = np.asarray(labels)
    rows: list[int] = []
    if n_included > 0:
        rows += np.random.RandomState(seed).choice(np.where(labels == 1)[0], n_included, replace=False).tolist()
    if n_excluded > 0:
        rows += np.random.RandomState(seed).choice(np.where(labels == 0)[0], n_excluded, replace=False).tolist()
    return rows


def judgments(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0], [line for line in lines if line["type"] == "judgment"]


@pytest.mark.parametrize(("n_included", "n_excluded", "seed"), [(1, 1, 0), (3, 5, 7), (8, 0, 42), (0, 32, 2**32 - 1)])
def test_the_draw_is_asreviews(n_included, n_excluded, seed):
    relevant = np.asarray(LABELS) == 1
    assert draw_priors(relevant, n_included, n_excluded, seed) == asreview_draw(LABELS, n_included, n_excluded, seed)


def test_random_priors_are_judged_first_marked_and_trained_on(tmp_path):
    source = write_csv(tmp_path / "tiny.csv")
    result = tarsim.simulate(
        str(source), preset="bmi", n_prior_included=2, n_prior_excluded=3, prior_seed=11, out=tmp_path / "o"
    )
    header, lines = judgments(tmp_path / "o" / "ledgers" / "tiny.jsonl")
    expected = asreview_draw(LABELS, 2, 3, 11)
    assert [line["docid"] for line in lines[:5]] == [str(row) for row in expected]  # docids are row numbers
    assert [line.get("prior") for line in lines] == [True] * 5 + [None] * (len(lines) - 5)
    assert [line["truth"] for line in lines[:5]] == [1, 1, 0, 0, 0] and {line["round"] for line in lines[:5]} == {0}
    records = [json.loads(line) for line in (tmp_path / "o" / "ledgers" / "tiny.jsonl").read_text().splitlines()]
    first_round = next(r for r in records if r["type"] == "round")
    assert records.index(first_round) == 6  # after the header and the five priors
    assert first_round["training_positives"] == 2 and first_round["training_negatives"] == 3 + 40  # + presumed: all 40
    config = header["config"]
    assert config["seeding"]["kind"] == "priors" and config["prior_seed"] == 11
    assert (config["n_prior_included"], config["n_prior_excluded"], config["prior_idx"]) == (2, 3, [])
    assert result.ledgers["tiny"].prior.tolist() == [True] * 5 + [False] * (len(lines) - 5)


def test_the_priors_are_drawn_once_per_review(tmp_path, monkeypatch):
    import tarsim.simulator.review as review_module

    draws: list[int] = []

    def counted(relevant, n_included, n_excluded, seed, topic=""):
        draws.append(seed)
        return draw_priors(relevant, n_included, n_excluded, seed, topic)

    monkeypatch.setattr(review_module, "draw_priors", counted)
    result = tarsim.simulate(
        str(write_csv(tmp_path / "tiny.csv")), n_prior_included=2, n_prior_excluded=3, prior_seed=4
    )
    assert draws == [4]  # the run checks the counts first without drawing
    assert result.ledgers["tiny"].docids[:5] == [str(row) for row in asreview_draw(LABELS, 2, 3, 4)]


def test_prior_idx_keeps_its_order(tmp_path):
    source = write_csv(tmp_path / "tiny.csv")
    result = tarsim.simulate(str(source), prior_idx=[7, 35, 2, 0], seed=3)
    ledger = result.ledgers["tiny"]
    assert ledger.docids[:4] == ["7", "35", "2", "0"] and ledger.prior.sum() == 4
    assert result.config.prior_idx == (7, 35, 2, 0) and result.config.effective_prior_seed is None


def test_a_screening_file_without_a_relevant_record_says_so_not_that_a_prior_count_is_too_high(tmp_path, capsys):
    source = write_csv(tmp_path / "tiny.csv", [0] * 40)
    assert main(["simulate", "--collection", str(source), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tarsim: error: no topic was reviewed (topic tiny: no relevant document in the collection)"]


def test_prior_idx_counts_the_rows_of_the_file_when_unlabelled_records_are_left_out(tmp_path):
    labels = [("" if i in (3, 4) else label) for i, label in enumerate(LABELS)]  # rows 3 and 4 unlabelled
    source = write_csv(tmp_path / "tiny.csv", labels)
    with pytest.warns(UserWarning, match="2 unlabelled record"):
        result = tarsim.simulate(str(source), unlabelled="skip", prior_idx=[10, 5, 2], seed=3)
    assert result.ledgers["tiny"].docids[:3] == ["10", "5", "2"]  # the rows asked for (docids are row numbers)
    for row, problem in ((4, "prior_idx 4 is an unlabelled record"), (40, "prior_idx 40 is out of range")):
        with pytest.raises(ConfigError, match=problem), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tarsim.simulate(str(source), unlabelled="skip", prior_idx=[row], seed=3)


def test_default_start_of_a_screening_file_is_one_and_one_random_prior(tmp_path, capsys):
    source = write_csv(tmp_path / "tiny.csv")
    assert main(["simulate", "--collection", str(source), "--seed", "5", "--out", str(tmp_path / "o")]) == 0
    assert "random priors 1 relevant + 1 non-relevant (prior seed 5)" in capsys.readouterr().out
    header, lines = judgments(tmp_path / "o" / "ledgers" / "tiny.jsonl")
    assert header["config"]["seeding"]["kind"] == "priors" and header["config"]["prior_seed"] == 5
    assert [line["docid"] for line in lines if line.get("prior")] == [str(r) for r in asreview_draw(LABELS, 1, 1, 5)]
    assert main(["simulate", "--collection", str(source), "--prior-seed", "9", "--out", str(tmp_path / "p")]) == 0
    _, lines = judgments(tmp_path / "p" / "ledgers" / "tiny.jsonl")
    assert [line["docid"] for line in lines[:2]] == [str(r) for r in asreview_draw(LABELS, 1, 1, 9)]
    # another seeding chosen: no priors
    assert main(["simulate", "--collection", str(source), "--seeding", "random", "--out", str(tmp_path / "r")]) == 0
    header, lines = judgments(tmp_path / "r" / "ledgers" / "tiny.jsonl")
    assert header["config"]["seeding"]["kind"] == "random" and not any("prior" in line for line in lines)
    assert "prior_seed" not in header["config"]


def test_query_seeding_asked_for_on_a_screening_file_is_refused_in_python_too(tmp_path):
    source = write_csv(tmp_path / "tiny.csv")
    for seeding in ("query", SeedingChoice("query")):
        with pytest.raises(ConfigError, match="has no query text"):
            tarsim.simulate(str(source), seeding=seeding)


def test_a_collection_directory_keeps_the_query_start(demo):
    result = tarsim.simulate(demo, topic="T1", max_effort="10")
    assert result.config.seeding.kind == "query" and not result.ledgers["T1"].prior.any()
    with pytest.raises(ConfigError, match="starts from the topic's query text"):
        tarsim.simulate(demo, topic="T1", max_effort="10", prior_seed=3)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--n-prior-included", "9"], "n_prior_included 9 is more than the 8 relevant records of topic 'tiny'"),
        (["--n-prior-excluded", "33"], "n_prior_excluded 33 is more than the 32 non-relevant records"),
        (["--prior-idx", "40"], "prior_idx 40 is out of range: the collection has 40 records (rows 0-39)"),
        (["--prior-idx", "-1"], "prior_idx must be an integer >= 0, got -1"),
        (["--prior-idx", "3", "--n-prior-included", "1"], "give prior_idx or n_prior_included/n_prior_excluded"),
        (["--prior-idx", "3", "3"], "prior_idx lists a record twice"),
        (["--prior-idx", "3", "--prior-idx", "3"], "prior_idx lists a record twice"),  # a repeated flag adds
        (["--prior-idx", "3", "--prior-seed", "1"], "it does not apply to prior_idx"),
        (["--n-prior-included", "1", "--seeding", "random"], "priors are the seeding"),
        (["--seeding", "query"], "topic 'tiny' has no query text (a screening file): leave --seeding out"),
    ],
)
def test_bad_prior_settings_are_one_line_exit_2(tmp_path, capsys, options, message):
    source = write_csv(tmp_path / "tiny.csv")
    assert main(["simulate", "--collection", str(source), *options, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "o" / "cache").exists()  # refused before any feature was built


def test_no_priors_leave_the_header_as_before():
    record = ReviewConfig().to_dict()
    assert not {"n_prior_included", "n_prior_excluded", "prior_idx", "prior_seed"} & set(record)
    assert (
        ReviewConfig.from_dict(ReviewConfig(seeding="priors", seed=4).to_dict()).to_dict()
        == ReviewConfig(n_prior_included=1, n_prior_excluded=1, prior_seed=4, seed=4).to_dict()
    )


def test_tarsim_metrics_counts_priors_as_insights_does(tmp_path, capsys):
    source = write_csv(tmp_path / "tiny.csv")
    tarsim.simulate(str(source), n_prior_included=1, n_prior_excluded=2, out=tmp_path / "o", until="exhausted")
    ledger = tmp_path / "o" / "ledgers" / "tiny.jsonl"
    _, lines = judgments(ledger)
    for convention, kept in (("exclude", [j for j in lines if not j.get("prior")]), ("include", lines)):
        assert main(["metrics", str(ledger), "--format", "json", "--priors", convention]) == 0
        review = json.loads(capsys.readouterr().out)["reviews"][0]
        truth = [j["truth"] for j in kept]
        found = [i + 1 for i, t in enumerate(truth) if t]  # time to discovery: 1-based position in the sequence
        assert (review["N"], review["R"], review["priors"]) == (len(kept), sum(truth), 3)
        assert [position for _, position in review["td"]] == found
        assert review["atd"] == pytest.approx(sum(found) / len(found)) and review["docs_to_100"] == found[-1]
        first_tenth = len(kept) // 10  # RRF@10: the relevant found in the first 10% of the N records, over R
        assert review["rrf_10"] == pytest.approx(sum(truth[:first_tenth]) / sum(truth))
    assert (review["N"], review["R"]) == (40, 8)  # include: the whole collection


def test_a_sweep_over_prior_seeds(tmp_path):
    write_csv(tmp_path / "tiny.csv")
    config = tmp_path / "study.toml"
    config.write_text(
        '[sweep]\nprior_seeds = [3, 8]\neffort_models = ["judge"]\n\n'
        '[[collections]]\npath = "tiny.csv"\n\n[review]\nn_prior_included = 2\nn_prior_excluded = 2\n',
        encoding="utf-8",
    )
    assert main(["sweep", str(config), "--out", str(tmp_path / "s")]) == 0
    table = pd.read_csv(tmp_path / "s" / "results.csv")
    assert sorted(table["prior_seed"].unique().tolist()) == [3, 8]
    for prior_seed in (3, 8):
        run_id = f"tiny__tiny__relevance__document-document__seed0__prior{prior_seed}"
        header, lines = judgments(tmp_path / "s" / "ledgers" / f"{run_id}.jsonl")
        expected = [str(r) for r in asreview_draw(LABELS, 2, 2, prior_seed)]
        assert [j["docid"] for j in lines if j.get("prior")] == expected
        assert header["sweep"]["prior_seed"] == prior_seed and header["config"]["prior_seed"] == prior_seed
    demo = tmp_path / "demo.toml"
    demo.write_text('[sweep]\nprior_seeds = 2\n\n[[collections]]\npath = "demo"\ntopics = ["T1"]\n', encoding="utf-8")
    assert main(["sweep", str(demo), "--dry-run"]) == 2  # the demo's topics start from their query text
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\nprior_seeds = 0\n\n[[collections]]\npath = "tiny.csv"\n', encoding="utf-8")
    with pytest.raises(Exception, match=r"bad.toml:2: sweep.prior_seeds: seed count must be >= 1"):
        tarsim.sweep.load_sweep_config(bad)


def test_prior_seeds_are_repetitions_in_comparisons(tmp_path):
    from tarsim.reporting.compare import grouping_keys

    source = write_csv(tmp_path / "tiny.csv")
    ledgers = [tarsim.simulate(str(source), seed=seed).ledgers["tiny"] for seed in (0, 1)]
    assert [ledger.header["config"]["prior_seed"] for ledger in ledgers] == [0, 1]
    assert grouping_keys(ledgers) == []  # one group: the seed and the prior seed are repetitions
    other = tarsim.simulate(str(source), n_prior_included=2, n_prior_excluded=2).ledgers["tiny"]
    assert grouping_keys([*ledgers, other]) == ["n_prior_excluded", "n_prior_included"]


def test_a_screening_file_is_reviewed_with_asreview_default_unless_a_preset_is_given(tmp_path, capsys):
    source = write_csv(tmp_path / "tiny.csv")
    assert main(["simulate", "--collection", str(source), "--out", str(tmp_path / "a")]) == 0
    assert "preset asreview-default" in capsys.readouterr().out
    header, lines = judgments(tmp_path / "a" / "ledgers" / "tiny.jsonl")
    assert header["config"]["preset"] == "asreview-default" and header["config"]["batch"] == "1"
    assert header["config"]["learner"].startswith("svm:") and header["config"]["extractor"].startswith("tfidf")
    assert header["config"]["seeding"]["kind"] == "priors" and sum(1 for line in lines if line.get("prior")) == 2
    assert main(["simulate", "--collection", str(source), "--preset", "bmi", "--out", str(tmp_path / "b")]) == 0
    header, _ = judgments(tmp_path / "b" / "ledgers" / "tiny.jsonl")
    assert header["config"]["preset"] == "bmi" and header["config"]["presumed_nonrelevant"] == 100
    api = tarsim.simulate(str(source), seed=0)  # the Python API chooses the same
    assert api.config.preset == "asreview-default"


@pytest.mark.slow
def test_a_sweep_reviews_a_screening_file_as_simulate_does(tmp_path):
    source = write_csv(tmp_path / "tiny.csv")
    config = tmp_path / "study.toml"
    config.write_text(
        '[sweep]\neffort_models = ["judge"]\n\n[[collections]]\npath = "tiny.csv"\n\n'
        '[[collections]]\npath = "demo"\ntopics = ["T1"]\n',
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # BMI on 40 records warns that liblinear did not converge; ASReview's does not
        assert main(["sweep", str(config), "--out", str(tmp_path / "s")]) == 0
    header, lines = judgments(tmp_path / "s" / "ledgers" / "tiny__tiny__relevance__document-document__seed0.jsonl")
    assert header["config"]["preset"] == "asreview-default" and header["config"]["extractor"].startswith("tfidf")
    alone = tarsim.simulate(str(source), seed=header["config"]["seed"]).ledgers["tiny"]  # priors drawn with it
    assert [line["docid"] for line in lines] == alone.docids
    demo, _ = judgments(next((tmp_path / "s" / "ledgers").glob("demo__T1__*.jsonl")))
    assert (
        demo["config"].get("preset") is None and demo["config"].get("extractor", "bmi") == "bmi"
    )  # a directory keeps BMI's

    config.write_text(config.read_text(encoding="utf-8") + '\n[review]\npreset = "bmi"\n', encoding="utf-8")
    assert main(["sweep", str(config), "--out", str(tmp_path / "b"), "--dry-run"]) == 0
    loaded = tarsim.sweep.load_sweep_config(config)
    assert loaded.review_config("relevance", "document/document", 0, collection="tiny").preset == "bmi"


def test_a_sweeps_bmi_feature_settings_choose_bmi_features_for_a_screening_file_as_simulate_does(tmp_path, capsys):
    source = write_csv(tmp_path / "tiny.csv")
    config = tmp_path / "study.toml"
    config.write_text(
        '[sweep]\neffort_models = ["judge"]\n\n[[collections]]\npath = "tiny.csv"\n\n'
        "[review.features]\nstem = false\nmin_df = 1\n",
        encoding="utf-8",
    )
    assert main(["sweep", str(config), "--out", str(tmp_path / "s")]) == 0
    header, lines = judgments(tmp_path / "s" / "ledgers" / "tiny__tiny__relevance__document-document__seed0.jsonl")
    assert header["config"].get("extractor", "bmi") == "bmi" and header["config"]["features"]["min_df"] == 1
    seed = header["config"]["seed"]
    alone = tarsim.simulate(str(source), seed=seed, features="bmi:stem=false,min_df=1").ledgers["tiny"]
    assert [line["docid"] for line in lines] == alone.docids
    settings = tarsim.simulate(str(source), seed=seed, features=FeatureSettings(stem=False, min_df=1))  # the API
    assert settings.config.extractor == "bmi" and settings.ledgers["tiny"].docids == alone.docids

    config.write_text(
        '[sweep]\neffort_models = ["judge"]\n\n[[collections]]\npath = "tiny.csv"\n\n[review]\nlambda = 1e-3\n',
        encoding="utf-8",
    )
    capsys.readouterr()  # the first sweep's progress lines
    assert main(["sweep", str(config), "--out", str(tmp_path / "l"), "--dry-run"]) == 2
    error = capsys.readouterr().err
    assert "the preset asreview-default" in error and 'preset = "bmi"' in error and len(error.splitlines()) == 1


def test_a_repeated_prior_idx_flag_adds_its_rows(tmp_path):
    """`--prior-idx 3 --prior-idx 20` means rows 3 and 20, as `--prior-idx 3 20` (the last flag used to win)."""
    from tarsim.data.ledger import read_ledger

    source = write_csv(tmp_path / "tiny.csv")
    for name, options in (
        ("repeated", ["--prior-idx", "3", "--prior-idx", "20"]),
        ("listed", ["--prior-idx", "3", "20"]),
    ):
        assert main(["simulate", "--collection", str(source), *options, "--out", str(tmp_path / name)]) == 0
    repeated, listed = (read_ledger(tmp_path / name / "ledgers" / "tiny.jsonl") for name in ("repeated", "listed"))
    assert repeated.header["config"]["prior_idx"] == [3, 20]
    assert repeated.docids == listed.docids and int(repeated.prior.sum()) == 2


def test_the_banner_names_what_overrides_the_preset(tmp_path, capsys):
    """`preset asreview-default with learner nb:alpha=3.822`, as tarsim metrics names such a run (a trial's finding:
    the banner named the preset alone)."""
    source = write_csv(tmp_path / "tiny.csv")
    assert main(["simulate", "--collection", str(source), "--out", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("preset asreview-default")
    argv = ["simulate", "--collection", str(source), "--learner", "nb:alpha=3.822", "--out", str(tmp_path / "b")]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("preset asreview-default with learner nb:alpha=3.822")
