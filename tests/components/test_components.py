"""The component registry, its one spec grammar and error format, the configuration schema derived from
ReviewConfig, and the issue-10 values it now refuses (each refused in one line before anything is built)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.components import KINDS, kind, make, params_of, parse_spec, validate
from tarsim.components.schema import add_options
from tarsim.config.review import ReviewConfig
from tarsim.errors import ConfigError
from tarsim.policies import FixedBatches, make_batch_schedule, make_selection_policy
from tarsim.sweep.config import REVIEW_KEYS

HEADER_KEYS = [
    "feedback", "train_on", "rank_by", "policy", "batch", "seeding", "presumed_nonrelevant", "sentence_oracle",
    "oracle_threshold", "false_negative_rate", "false_positive_rate", "reviewers", "async_retrain", "retrain_seconds",
    "time_model", "until", "max_effort", "max_effort_model", "lambda_", "learner", "features", "stopping", "seed",
    "strategy",
]  # fmt: skip


@pytest.fixture(scope="module")
def clock_ledgers(tmp_path_factory) -> Path:
    """Two reviewers on one topic: the clock runs slower than the summed reviewing seconds."""
    out = tmp_path_factory.mktemp("clock")
    args = ["simulate", "--topic", "T1", "--reviewers", "2", "--max-effort", "80", "--out", str(out)]
    assert main([*args, "--effort", "judge"]) == 0
    return out


def refused(args: list[str], capsys) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tarsim: error: "), err
    return err[0]


def test_one_grammar_for_short_and_named_forms():
    assert parse_spec("mix:0.2:random").positional == ("0.2", "random")
    assert parse_spec("mix:share=0.2,other=uncertainty").named == {"share": "0.2", "other": "uncertainty"}
    assert make_selection_policy("mix:0.2:uncertainty") == make_selection_policy("mix:share=0.2,other=uncertainty")
    assert make_selection_policy("mix:0.2").other == "random"
    assert make_batch_schedule("10") == make_batch_schedule(10) == make("batch", "fixed:size=10") == FixedBatches(10)
    assert make("effort", "lambda:0.5").name == "lambda:0.5"
    budget = make("stopping", "budget:2R+100:clock")
    assert (budget.a, budget.b, budget.effort_model) == (2.0, 100.0, "clock")
    assert make("stopping", "budget:R:lambda:0.25").effort_model == "lambda:0.25"  # a nested spec as the last value


@pytest.mark.parametrize(
    "key, spec, message",
    [
        ("oracle", "clasifier", "sentence oracle 'clasifier' unknown; accepted: inherit, classifier, FILE "
         "(did you mean classifier?)"),
        ("oracle", "classifer:threshold=0.5", "sentence oracle 'classifer:threshold=0.5' unknown; accepted: inherit, "
         "classifier, FILE (did you mean classifier?)"),
        ("oracle", "classifier:threshold=0.5", "sentence oracle 'classifier:threshold=0.5': unknown parameter "
         "'threshold'; accepted parameters: none (threshold is --oracle-threshold, oracle_threshold in a sweep's "
         "[review] and in Python)"),
        ("policy", "mix:share=0.2,othr=random", "policy 'mix:share=0.2,othr=random': unknown parameter 'othr'; "
         "accepted parameters: share, other (did you mean other?)"),
        ("policy", "mix:1.5", "policy 'mix:1.5': share must be a number in [0, 1], got 1.5"),
        ("batch", "0", "batch size '0': size must be an integer >= 1, got 0"),
        ("effort", "sentences", "effort model 'sentences' unknown; accepted: judge, sent, lambda:L, seconds, clock "
         "(did you mean sent?)"),
        ("effort", "lambda:nan", "effort model 'lambda:nan': lambda must be in [0, 1], got nan"),
        ("learner", "svn", "learner 'svn' unknown; accepted: bmi, logistic, nb, svm, rf, pegasos (did you mean svm?)"),
        ("stopping", "knee:inf", "stopping rule 'knee:inf': rho must be a number > 0 or 'adjusted', got 'inf'"),
    ],
)  # fmt: skip
def test_one_error_format(key, spec, message):
    with pytest.raises(ConfigError) as error:
        validate(key, spec)
    assert str(error.value) == message


@pytest.mark.parametrize("path", ["/no/such/qrels.txt", "sentence-qrels.txt", "qrels/sentences"])
def test_a_missing_sentence_qrels_file_is_reported_missing_not_unknown(path):
    """A sentence oracle that reads as a path (a folder or a suffix: no oracle's name has either) is a file."""
    with pytest.raises(ConfigError) as error:
        make("oracle", path)
    assert str(error.value) == f"sentence oracle {path!r}: no such sentence qrels file"


def test_every_component_is_declared():
    for key in KINDS:
        names = kind(key).names()
        assert names, key
        for name in names:
            cls = kind(key).components[name]
            assert cls.name == name and (cls.__doc__ or "").strip()
            assert all(param.help for param in params_of(cls)), (key, name)


def test_list_prints_every_component_with_its_parameters(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for line in (
        "  mix:SHARE[:other]  Relevance sampling",
        "      share: expected share",
        "  clock  Elapsed",
        "  lambda:L  E_lambda",
        "  budget:aR+b[:MODEL]  Stop once",
        "  FILE  Explicit sentence qrels",
    ):
        assert line in out, line  # fmt: skip
    assert main(["list", "batch"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("  bmi  BMI: the first batch")


def test_every_simulate_option_has_help_and_its_default_from_the_schema():
    parser = argparse.ArgumentParser()
    add_options(parser, ReviewConfig)
    actions = [a for a in parser._actions if a.option_strings and a.dest != "help"]
    flagged = [f.name for f in dataclasses.fields(ReviewConfig) if getattr(f.metadata.get("setting"), "flag", None)]
    assert sorted(a.dest for a in actions) == sorted(flagged) and len(actions) >= 19 and all(a.help for a in actions)
    assert "--stop" in [s for a in actions for s in a.option_strings]
    defaults = ReviewConfig()
    for action in actions:
        if action.dest in ("stopping", "prior_idx"):  # repeatable: no occurrence, nothing (option_values: ())
            assert action.default is None and getattr(defaults, action.dest) == ()
        elif action.dest not in ("seeding", "features"):  # both given as text, None for features: "bmi"
            assert action.default == getattr(defaults, action.dest), action.dest


def test_sweep_review_keys_come_from_the_schema():
    assert sorted(REVIEW_KEYS) == sorted(
        ["rank_by", "batch", "seeding", "presumed_nonrelevant", "presumed_with_replacement", "sentence_oracle",
         "oracle_threshold",
         "false_negative_rate", "false_positive_rate", "reviewers", "async_retrain", "retrain_seconds", "time_model",
         "until", "max_effort", "max_effort_model", "lambda", "learner", "features", "extractor", "preset",
         "n_prior_included", "n_prior_excluded", "prior_idx", "log_scores"]
    )  # fmt: skip
    assert REVIEW_KEYS["lambda"][0] == "lambda_"


def test_ledger_header_config_keeps_its_fields_and_round_trips():
    config = ReviewConfig(policy="mix:0.2", batch="10", seeding="random", stopping=["knee"], seed=4294967295)
    record = json.loads(json.dumps(config.to_dict()))
    assert list(record) == HEADER_KEYS
    assert record["seeding"] == {"kind": "random", "docids": []} and record["stopping"] == ["knee"]
    assert ReviewConfig.from_dict(record) == config


def test_the_api_takes_the_cli_names():
    import tarsim

    result = tarsim.simulate(
        seeding="random", topic="T1", max_effort="20", effort=["judge"], strategy="sentence/document"
    )
    assert result.config.seeding.kind == "random" and result.config.feedback == "sentence"
    assert len(result.ledgers["T1"]) == 20
    with pytest.raises(ConfigError, match=r"review setting 'seedng' unknown.*did you mean seeding"):
        tarsim.simulate(seedng="random")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"strategy": "sentence/document", "feedback": "document"}, "means feedback='sentence', but feedback='doc"),
        ({"strategy": "sentence/document", "train_on": "sentence"}, "means train_on='document', but train_on='sen"),
        ({"lambda": 0.1, "lambda_": 0.2}, "lambda and lambda_ are one setting"),
    ],
)
def test_the_api_refuses_settings_that_contradict_each_other(settings, message):
    import tarsim

    with pytest.raises(ConfigError, match=message):
        tarsim.simulate(topic="T1", **settings)


def test_a_number_is_an_effort_budget_or_batch_size_in_python_as_in_a_sweep_file():
    import numpy as np

    import tarsim

    assert ReviewConfig(max_effort=5) == ReviewConfig(max_effort="5") == ReviewConfig(max_effort=np.int64(5))
    assert ReviewConfig(batch=10) == ReviewConfig(batch="10") and ReviewConfig(batch=10).batch == "10"
    assert len(tarsim.simulate(topic="T1", max_effort=7).ledgers["T1"]) == 7


def test_a_misspelt_oracle_fails_before_any_feature_is_built(tmp_path, capsys):
    out = tmp_path / "o"
    message = refused(["simulate", "--sentence-oracle", "clasifier", "--out", str(out)], capsys)
    assert message.endswith("accepted: inherit, classifier, FILE (did you mean classifier?)")
    assert not out.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed", "4294967296"], "seed must be an integer in [0, 4294967295], got 4294967296"),
        (["--seed", "99999999999999999999"], "seed must be an integer in [0, 4294967295], got 99999999999999999999"),
        (["--lambda", "inf"], "lambda must be a number > 0, got inf"),
        (["--retrain-seconds", "inf"], "retrain_seconds must be a number >= 0, got inf"),
        (["--retrain-seconds", "nan"], "retrain_seconds must be a number >= 0, got nan"),
        (["--oracle-threshold", "nan"], "oracle_threshold must be a number, got nan"),
    ],
)
def test_values_that_cannot_be_honoured_are_refused(args, message, tmp_path, capsys):
    out = tmp_path / "o"
    assert refused(["simulate", *args, "--out", str(out)], capsys) == f"tarsim: error: {message}"
    assert not out.exists()


SWEEP = '[sweep]\nseeds = 1\n\n[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\n'


@pytest.mark.parametrize(
    "review, message",
    [
        ("lambda = inf\n", ":9: review.lambda: expected a number > 0, got inf"),
        ("retrain_seconds = inf\n", ":9: review.retrain_seconds: expected a number >= 0, got inf"),
        ("retrain_seconds = nan\n", ":9: review.retrain_seconds: expected a number >= 0, got nan"),
        ("[review.time_model]\ndocument_seconds = nan\n",
         ":10: review.time_model.document_seconds: time model document_seconds must be a finite number >= 0, got nan"),
        ("sentence_oracle = \"clasifier\"\n", ":9: review.sentence_oracle: sentence oracle 'clasifier' unknown"),
    ],
)  # fmt: skip
def test_sweep_dry_run_refuses_values_that_cannot_be_honoured(review, message, tmp_path, capsys):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP + review)
    assert message in refused(["sweep", str(config), "--dry-run"], capsys)


def test_a_sweep_is_bounded(tmp_path, capsys):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP.replace("seeds = 1", "seeds = 1000000000"))
    message = refused(["sweep", str(config), "--dry-run"], capsys)
    assert message.endswith(":2: sweep.seeds: seed count must be at most 100,000 (the most runs a sweep may plan), "
                            "got 1,000,000,000")  # fmt: skip


def test_a_sweep_plans_at_most_100000_runs(tmp_path, monkeypatch):
    from tarsim.sweep import plan
    from tarsim.sweep.config import parse_sweep_config

    config = parse_sweep_config(SWEEP.replace("seeds = 1", "seeds = 3").replace('"T1"', '"T1", "T2"'), tmp_path / "s")
    monkeypatch.setattr(plan, "MAX_RUNS", 5)
    with pytest.raises(ConfigError, match=r"plans more than 5 runs \(topics x sweep.presets x sweep.policies"):
        plan.expand_plan(config, plan.load_collections(config))
    monkeypatch.setattr(plan, "MAX_RUNS", 6)
    assert len(plan.expand_plan(config, plan.load_collections(config))[0]) == 6


def _judgments(ledgers: Path) -> list[dict]:
    lines = (ledgers / "ledgers" / "T1.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == "judgment"]


def test_clock_budgets_and_clock_effort_replay_from_the_judgments_time(clock_ledgers, capsys):
    judgments = _judgments(clock_ledgers)
    assert "time" not in judgments[0]["effort"]  # the effort records have no clock: it is the judgments' `time`
    relevant = json.loads((clock_ledgers / "ledgers" / "T1.jsonl").read_text().splitlines()[0])["relevant"]
    budget = 0.5 * relevant + 60
    expected = next(n for n, j in enumerate(judgments, start=1) if j["time"] >= budget - 1e-9)
    ledgers = str(clock_ledgers / "ledgers")
    assert main(["stop", ledgers, "--rule", "budget:0.5R+60:clock", "--effort", "judge", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["position"] == expected
    assert main(["report", str(clock_ledgers), "--effort", "clock"]) == 0
    assert "clock" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--batch", "fixed:１０"], "got '１０' (numbers are ASCII digits)"),  # int() read it as 10, recorded as given
        (["--batch", "１０"], "got '１０' (numbers are ASCII digits)"),
        (["--max-effort", "２R+100"], "budget '２R+100': expected aR+b"),
        (["--learner", "nb\u2028"], "'nb\\u2028': holds U+2028, a control or line-separator character"),  # strip()ped
        (["--policy", "relevance\t"], "holds U+0009, a control or line-separator character"),
        (["--batch", "fixed:1_0"], "got '1_0' (a plain number: digits, a '-' and a '.' only)"),  # int() takes it
        (["--batch", "fixed:+10"], "got '+10' (a plain number: digits, a '-' and a '.' only)"),
    ],
)
def test_a_spec_with_non_ascii_digits_or_control_characters_is_refused(tmp_path, capsys, args, said):
    """Each ran before, recorded as given: `fixed:１０` and `fixed:10` made two groups of one setting."""
    err = refused(["simulate", *args, "--out", str(tmp_path / "out")], capsys)
    assert said in err
    assert not (tmp_path / "out").exists()
