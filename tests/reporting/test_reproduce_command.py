"""The command that reproduces a review (issue 31): derived from a ledger header's configuration alone
(tarsim.config.command_line), it is run here into another folder and must write the same ledger byte for byte;
settings no flag can give are named instead of being dropped from a wrong command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.config.command_line import simulate_command
from tarsim.data import write_collection, write_qrels, write_topics
from tarsim.data.collection import Document

WORDS = ["oil", "gold", "coffee", "crude", "price", "market", "bank", "rate", "grain", "wheat", "shares", "profit"]


@pytest.fixture
def collection(tmp_path) -> Path:
    """24 short documents, two topics."""
    documents = [
        Document(f"d{i}", f"title {WORDS[i % 12]}", f"{WORDS[i % 12]} {WORDS[i * 5 % 12]}. More {WORDS[(i + 3) % 12]}.")
        for i in range(24)
    ]
    directory = tmp_path / "c"
    write_collection(directory / "docs.jsonl", documents)
    write_topics(directory / "topics.tsv", {"t1": "oil gold", "t2": "bank rate"})
    qrels = {"t1": {"d0": 1, "d1": 1, "d12": 1, "d2": 0}, "t2": {"d6": 1, "d7": 1, "d18": 1, "d19": 1}}
    write_qrels(directory / "qrels.txt", qrels)
    return directory


SETTINGS = {
    "preset with priors": [
        "--preset", "asreview-logistic", "--batch", "3", "--n-prior-included", "1", "--n-prior-excluded", "2",
        "--prior-seed", "7", "--seed", "5", "--presumed-nonrelevant", "2", "--false-negative-rate", "0.1",
        "--max-effort", "2R+4", "--until", "exhausted", "--stop", "nonrel:5",
    ],
    "bmi features, documents seeding, sentences": [
        "--features", "bmi:min_df=1,stem=false", "--seeding", "documents", "--seed-doc", "d0", "--seed", "11",
        "--feedback", "sentence", "--lambda", "0.25", "--reviewers", "2", "--async-retrain", "--retrain-seconds",
        "3.5", "--effort", "sent", "--effort", "judge", "--log-scores",
    ],
}  # fmt: skip


@pytest.mark.parametrize("settings", SETTINGS.values(), ids=SETTINGS.keys())
def test_the_derived_command_rewrites_the_same_ledgers(collection, tmp_path, settings):
    """Before, the report offered no command that reproduces the reviews."""
    first = tmp_path / "first"
    argv = ["simulate", "--collection", str(collection), "--topic", "t1", "--topic", "t2", "--out", str(first)]
    assert main([*argv, *settings]) == 0
    ledgers = sorted((first / "ledgers").glob("*.jsonl"))
    assert [path.name for path in ledgers] == ["t1.jsonl", "t2.jsonl"]
    header = json.loads(ledgers[0].read_text().splitlines()[0])
    again = tmp_path / "again"
    command = simulate_command(header["config"], ["t1", "t2"], collection=str(collection), out=str(again))
    assert command.unexpressed == ()
    assert command.argv[:2] == ("tarsim", "simulate")
    assert main(list(command.argv[1:])) == 0
    for path in ledgers:
        assert (again / "ledgers" / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_command_spells_only_what_differs_from_the_preset():
    config = {"preset": "asreview-logistic", "seed": 0}
    from tarsim.config.presets import apply_preset
    from tarsim.config.review import ReviewConfig

    recorded = ReviewConfig(**apply_preset("asreview-logistic", {"batch": "3"}), seed=4).to_dict()
    command = simulate_command(recorded, ["t"], out="o")
    assert command.text() == "tarsim simulate --topic t --preset asreview-logistic --seed 4 --batch 3 --out o"
    assert config  # the preset's own settings (learner, extractor, policy) are not spelt out


def test_a_setting_with_no_flag_is_named_on_the_page_and_the_api_call_it_names_reproduces(collection, tmp_path):
    import tarsim
    from tarsim.config.review import ReviewConfig

    config = ReviewConfig(time_model={"document_seconds": 30.0})
    tarsim.simulate(collection, topic="t1", config=config, out=tmp_path / "a")
    recorded = json.loads((tmp_path / "a" / "ledgers" / "t1.jsonl").read_text().splitlines()[0])["config"]
    command = simulate_command(recorded, ["t1"], collection=str(collection))
    assert len(command.unexpressed) == 1 and command.unexpressed[0].startswith('time_model: {"document_seconds": 30.0')
    section = _section(tmp_path / "a", collection)
    assert "settings with no flag: time_model" in section and "<pre class='reproduce'>" not in section
    assert "config=ReviewConfig.from_dict(header[&#x27;config&#x27;])" in section
    tarsim.simulate(collection, topic=["t1"], config=ReviewConfig.from_dict(recorded), out=tmp_path / "b")
    ledger = Path("ledgers") / "t1.jsonl"
    assert (tmp_path / "b" / ledger).read_bytes() == (tmp_path / "a" / ledger).read_bytes()


def _section(out: Path, collection: Path | None) -> str:
    """The report page's Reproduce section of the ledgers under `out`, the collection given to the report."""
    from tarsim.reporting.compare import group_ledgers, load_ledgers
    from tarsim.reporting.html_report import reproduce_section
    from tarsim.stopping.replay_inputs import replay_inputs

    ledgers = load_ledgers([out])
    replay = replay_inputs([str(collection)] if collection else None, ledgers)
    return reproduce_section(group_ledgers(ledgers), replay, ["tarsim report ..."])


def test_the_pages_commands_rewrite_every_groups_ledgers(collection, tmp_path, monkeypatch):
    """The commands the page shows (one per group and seed) are run as shown: every ledger comes back the same."""
    import html
    import re
    import shlex

    for policy, seed in (("relevance", "1"), ("relevance", "2"), ("random", "1")):
        out = tmp_path / "first" / f"{policy}-{seed}"
        argv = ["simulate", "--collection", str(collection), "--policy", policy, "--seed", seed, "--out", str(out)]
        assert main([*argv, "--max-effort", "8", "--batch", "2"]) == 0
    section = _section(tmp_path / "first", collection)
    lines = [html.unescape(line) for pre in re.findall(r"<pre class='reproduce'>(.*?)</pre>", section, re.S)
             for line in pre.splitlines()]  # fmt: skip
    assert len(lines) == 3 and all(line.startswith("tarsim simulate --collection") for line in lines)
    monkeypatch.chdir(tmp_path)  # the commands write reproduced-1, -2, -3 here
    for line in lines:
        assert main(shlex.split(line)[1:]) == 0
    first = sorted((tmp_path / "first").glob("*/ledgers/*.jsonl"))
    again = sorted(tmp_path.glob("reproduced-*/ledgers/*.jsonl"))
    assert len(first) == len(again) == 6
    assert sorted(path.read_bytes() for path in first) == sorted(path.read_bytes() for path in again)


def test_a_screening_file_review_without_preset_cannot_be_spelt():
    from tarsim.config.review import ReviewConfig

    recorded = ReviewConfig(seeding="priors").to_dict()  # BMI on a screening file: only the Python API does that
    command = simulate_command(recorded, ["t"], collection="refs.csv", screening=True)
    assert command.unexpressed and command.unexpressed[0].startswith("preset: none")


SWEEP = """
[sweep]
base_seed = 3
seeds = [2]
prior_seeds = [1, 4]
policies = ["relevance", "uncertainty"]
strategies = ["document/document"]
effort_models = ["judge"]

[[collections]]
path = "{collection}"
topics = ["t2", "t1"]

[review]
batch = "4"
presumed_nonrelevant = 3
n_prior_included = 1
n_prior_excluded = 1
features = {{min_df = 1}}
time_model = {{document_seconds = 20.0}}
max_effort = "2R+6"
until = "exhausted"
"""


SWEEP_VARY = """
[sweep]
seeds = [1]
vary.learner = ["nb", "logistic"]
vary.batch = ["4", "bmi"]

[[collections]]
path = "{collection}"
topics = ["t1", "t2"]

[review]
max_effort = "2R+6"
"""


SWEEP_PRESETS = """
[sweep]
seeds = [0, 1]
presets = ["asreview-logistic", "bmi"]

[[collections]]
path = "{collection}"
topics = ["t1", "t2"]

[review]
max_effort = "2R+6"
"""
"""Presets without [sweep] policies: each keeps its own policy (asreview-logistic's max), its seed derived as for
relevance, so the derived file must leave policies out (policies = ["max"] would derive other seeds)."""


@pytest.mark.parametrize(
    "text",
    [SWEEP, SWEEP_VARY, SWEEP_PRESETS],
    ids=["prior-seeds-policies", "vary-learner-batch", "presets-own-policies"],
)
def test_the_derived_sweep_file_rewrites_the_same_ledgers(collection, tmp_path, text):
    """A sweep leaves no copy of its TOML in its output folder: the file is derived from the ledger headers."""
    import tomllib

    from tarsim.config.sweep_toml import sweep_file

    study = tmp_path / "study.toml"
    study.write_text(text.format(collection=collection))
    assert main(["sweep", str(study), "--out", str(tmp_path / "first"), "--jobs", "1"]) == 0
    ledgers = sorted((tmp_path / "first" / "ledgers").glob("*.jsonl"))
    assert len(ledgers) == 8  # 2 topics x (2 policies x 2 prior seeds, or 2 learners x 2 batch specs)
    headers = [json.loads(path.read_text().splitlines()[0]) for path in ledgers]
    derived = sweep_file(headers, {"c": str(collection)}, {})
    assert derived.unexpressed == ()
    tomllib.loads(derived.text)  # valid TOML
    again = tmp_path / "again.toml"
    again.write_text(derived.text)
    assert main(["sweep", str(again), "--out", str(tmp_path / "again"), "--jobs", "1"]) == 0
    for path in ledgers:
        assert (tmp_path / "again" / "ledgers" / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_screening_file_with_unlabelled_records_is_reproduced_with_unlabelled_skip(tmp_path, monkeypatch):
    import csv
    import html
    import re
    import shlex

    refs = tmp_path / "refs.csv"
    with refs.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "abstract", "label_included"])
        for i in range(20):
            label = "" if i == 5 else str(int(i % 6 == 0))  # row 5 has no label
            writer.writerow([f"title {WORDS[i % 12]}", f"{WORDS[i % 12]} {WORDS[i * 5 % 12]}", label])
    assert main(["simulate", "--collection", str(refs), "--unlabelled", "skip", "--out", str(tmp_path / "a")]) == 0
    section = _section(tmp_path / "a", refs)
    [line] = [html.unescape(pre) for pre in re.findall(r"<pre class='reproduce'>(.*?)</pre>", section, re.S)]
    assert f"--collection {refs} --unlabelled skip --topic refs --preset asreview-default" in line
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(line)[1:]) == 0
    ledger = Path("ledgers") / "refs.jsonl"
    assert (tmp_path / "reproduced-1" / ledger).read_bytes() == (tmp_path / "a" / ledger).read_bytes()
