"""Studies in one file (issue 31): a sweep varies the preset as a dimension, prints progress off a terminal (runs
done / total, elapsed, an estimate) and ends with the per-group summary table."""

from __future__ import annotations

import json

import pytest

from tarsim.cli import main
from tarsim.cli.progress import TerminalProgress, clock_time
from tarsim.errors import InputError
from tarsim.sweep import expand_plan, parse_sweep_config
from tarsim.sweep.plan import load_collections

PRESETS = """
[sweep]
seeds = 2
presets = ["asreview-logistic", "bmi"]

[[collections]]
path = "demo"
topics = ["T2"]

[review]
max_effort = "R"
"""


def test_presets_are_a_dimension_of_the_plan_with_review_over_each(tmp_path):
    config = parse_sweep_config(PRESETS + "batch = 5\n", tmp_path / "s.toml")
    assert config.presets == ("asreview-logistic", "bmi")
    runs, _ = expand_plan(config, load_collections(config))
    assert [run.run_id for run in runs] == [  # without [sweep] policies, each preset's own policy (asreview: max)
        f"demo__T2__{preset}__{policy}__document-document__seed{seed}"
        for preset, policy in (("asreview-logistic", "max"), ("bmi", "relevance"))
        for seed in (0, 1)
    ]
    assert runs[0].derived_seed == runs[2].derived_seed  # runs that differ only in their preset pair
    logistic = config.review_config("relevance", "document/document", 1, collection="demo", preset="asreview-logistic")
    bmi = config.review_config("relevance", "document/document", 1, collection="demo", preset="bmi")
    assert logistic.learner.startswith("logistic") and bmi.learner == "bmi"
    assert logistic.batch == bmi.batch == "5"  # [review] applies over every preset
    assert (
        config.extractor("demo", "asreview-logistic").startswith("tfidf") and config.extractor("demo", "bmi") == "bmi"
    )


@pytest.mark.parametrize(
    ("extra", "line", "problem"),
    [
        ('preset = "bmi"\n', 12, "review.preset: [sweep] presets varies the preset: leave preset out of [review]"),
        ("", 4, "sweep.presets: preset 'nonesuch' unknown"),
    ],
)
def test_a_bad_presets_dimension_is_one_error_with_its_line(tmp_path, extra, line, problem):
    text = PRESETS.replace('"bmi"]', '"nonesuch"]') if not extra else PRESETS + extra
    with pytest.raises(InputError) as error:
        parse_sweep_config(text, tmp_path / "s.toml")
    assert f"s.toml:{line}: {problem}" in str(error.value)


@pytest.mark.slow
def test_a_sweep_over_two_presets_runs_each_and_ends_with_the_group_table(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(PRESETS)
    out = tmp_path / "out"
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(out), "--progress-every", "3"]) == 0
    captured = capsys.readouterr()
    progress = [line for line in captured.err.splitlines() if line.startswith("sweep:")]
    assert progress[0] == "sweep: 0/4 runs done"
    assert progress[1].startswith("sweep: 3/4 runs done, 0:00:") and "elapsed, about 0:00:" in progress[1]
    assert progress[2].startswith("sweep: 4/4 runs done, 0:00:") and progress[2].endswith("elapsed")
    headers = [json.loads(path.read_text().splitlines()[0]) for path in sorted((out / "ledgers").glob("*.jsonl"))]
    assert sorted((h["sweep"]["preset"], h["config"]["preset"]) for h in headers) == [
        ("asreview-logistic", "asreview-logistic"),
        ("asreview-logistic", "asreview-logistic"),
        ("bmi", "bmi"),
        ("bmi", "bmi"),
    ]
    results = (out / "results.csv").read_text().splitlines()
    assert results[0].startswith("run_id,collection,topic,preset,policy,")
    assert {line.split(",")[3] for line in results[1:]} == {"asreview-logistic", "bmi"}
    lines = captured.out.splitlines()
    table = lines[lines.index(next(line for line in lines if line.startswith("Mean ± sd"))) + 1 :]
    assert table[0].split()[:2] == ["group", "n"] and "WSS@95" in table[0]
    assert [row.split("  ")[0].strip() for row in table[1:]] == [
        "tarsim asreview-logistic",  # with its own policy (max), as simulate --preset runs it: no "policy relevance"
        "tarsim bmi",
    ]


def test_progress_off_a_terminal_is_a_line_every_n_items_with_an_estimate(capsys):
    now = iter([100.0, 160.0, 181.0])
    progress = TerminalProgress("run", "sweep", log_every=2, clock=lambda: next(now))
    tick = progress.open(total=5, done=1)
    for _ in range(4):
        tick()
    assert capsys.readouterr().err.splitlines() == [
        "sweep: 1/5 runs done (1 kept)",
        "sweep: 3/5 runs done, 0:01:00 elapsed, about 0:01:00 left",  # 2 runs in 60 s: 2 left, 60 s
        "sweep: 5/5 runs done, 0:01:21 elapsed",
    ]
    assert TerminalProgress("topic", "reviewing").open(3) is None  # simulate's: nothing off a terminal
    assert clock_time(3725.4) == "1:02:05"


def test_the_default_is_a_line_about_every_tenth(capsys):
    tick = TerminalProgress("run", "sweep", log_every=0, clock=lambda: 0.0).open(total=25)
    for _ in range(25):
        tick()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == [
        f"sweep: {n}/25 runs done" for n in (0, 3, 6, 9, 12, 15, 18, 21, 24, 25)
    ]


def test_the_closing_table_says_how_priors_are_counted_when_runs_have_them(tmp_path, capsys):
    """The sweep's closing table lacked the line compare prints: its effort counts priors, its WSS@95 does not."""
    text = PRESETS.replace('presets = ["asreview-logistic", "bmi"]', 'presets = ["asreview-logistic"]')
    text = text.replace("seeds = 2", "seeds = 1") + 'seeding = "priors"\nn_prior_included = 1\nn_prior_excluded = 1\n'
    (tmp_path / "s.toml").write_text(text)
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out")]) == 0
    caption = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Mean ± sd"))
    assert caption.endswith("; Recall@E and effort count the prior judgments; WSS@95 leaves them out (as Insights "
                            "and tarsim metrics by default)")  # fmt: skip
