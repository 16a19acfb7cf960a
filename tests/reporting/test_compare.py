"""`tarsim compare`: grouping by configuration, per-run scores, paired tests against a baseline, output formats."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

import ledger_factory
from tarsim.cli import main
from tarsim.data.ledger import ledger_from_lines
from tarsim.errors import ConfigError
from tarsim.metrics.significance import paired_tests
from tarsim.reporting.compare import compare, format_comparison, group_ledgers, grouping_keys, run_scores


def ledger(topic, policy, seed, truth, size=100, batch="bmi"):
    return ledger_factory.make_ledger(
        truth,
        topic=topic,
        policy=policy,
        seed=seed,
        size=size,
        words_per_sentence=1,
        seconds_per_sentence=1.0,
        reason="x",
        config={"batch": batch},
        inputs={"collection": "c0"},
    )


def study():
    """Topics t0..t3 x seeds 0, 1: `fast` finds its 2 relevant at judgments 1 and 2, `slow` at k and 2k."""
    runs = []
    for t in range(4):
        for seed in (0, 1):
            k = 2 + t + seed
            runs.append(ledger(f"t{t}", "fast", seed, [1, 1] + [0] * 10))
            runs.append(ledger(f"t{t}", "slow", seed, ([0] * (k - 1) + [1]) * 2))
    return runs


def test_groups_are_named_by_the_fields_that_differ():
    runs = study()
    assert grouping_keys(runs) == ["policy"]
    assert list(group_ledgers(runs)) == ["fast", "slow"]
    assert list(group_ledgers(runs, ["policy", "batch"])) == ["fast, batch=bmi", "slow, batch=bmi"]
    with pytest.raises(ConfigError, match="group-by field"):
        group_ledgers(runs, ["colour"])


def test_scores_and_paired_test_by_hand():
    runs = study()
    scores = run_scores(runs, grid_a=(1,), grid_b=(0,))
    slow = scores[(scores.group == "slow") & (scores.measure == "effort to 95% recall")]
    assert sorted(slow.value) == sorted(2 * (2 + t + s) for t in range(4) for s in (0, 1))
    result = compare(runs, "fast", grid_a=(1,), grid_b=(0,))
    rows = {(r["group"], r["measure"]): r for r in result.rows}
    # Recall@1R+0 = recall after 2 judgments: fast 1.0 everywhere, slow 0.5 when k = 2 (t0 seed 0) else 0
    fast, slow = rows[("fast", "Recall@1R+0")], rows[("slow", "Recall@1R+0")]
    assert fast["mean"] == 1.0 and fast["sd"] == 0.0 and fast["n"] == 8
    assert slow["mean"] == pytest.approx(0.5 / 8)
    assert slow["pairs"] == 8 and slow["diff"] == pytest.approx(0.5 / 8 - 1.0)
    # the test is paired by (collection, topic, seed): the same numbers through paired_tests directly
    effort = rows[("slow", "effort to 95% recall")]
    a = {f"t{t}|{s}": 2.0 for t in range(4) for s in (0, 1)}
    b = {f"t{t}|{s}": 2.0 * (2 + t + s) for t in range(4) for s in (0, 1)}
    expected = paired_tests(a, b, seed=0)
    assert effort["p_t"] == pytest.approx(expected["p_t"]) and effort["p_rand"] == pytest.approx(expected["p_rand"])
    assert effort["diff"] == pytest.approx(sum(b.values()) / 8 - 2.0)
    wss = rows[("fast", "WSS@95")]
    # ASReview Insights' WSS@95 (as `tarsim metrics`): with R = 2 it is read at the largest j with j/R <= 0.95, j = 1;
    # the review needs 1 record, random order round(linspace(0, 2, 100)) first reaches 1 at record 26 (2*25/99 > 0.5)
    assert wss["mean"] == pytest.approx((26 - 1) / 100)


def test_one_run_per_group_has_a_difference_but_no_spread_or_test(capsys):
    """A group of one run has no standard deviation (not 0.000) and its one pair a difference (not `-`); the tests
    need two pairs (a trial's finding)."""
    runs = [ledger("t0", "fast", 0, [1, 1] + [0] * 10), ledger("t0", "slow", 0, [0, 0, 1, 1] + [0] * 8)]
    rows = {(r["group"], r["measure"]): r for r in compare(runs, "fast", grid_a=(1,), grid_b=(0,)).rows}
    fast, slow = rows[("fast", "Recall@1R+0")], rows[("slow", "Recall@1R+0")]
    assert fast["sd"] is None and slow["sd"] is None
    assert slow["pairs"] == 1 and slow["diff"] == pytest.approx(0.0 - 1.0) and slow["p_t"] is None


def test_unknown_or_ambiguous_baseline():
    with pytest.raises(ConfigError, match="baseline 'medium' is not a group; groups: fast; slow"):
        compare(study(), "medium")


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    """Small demo runs: relevance and random policies x 2 seeds on topic T1, capped at R+40 judgments."""
    from tarsim.api.review import simulate
    from tarsim.datasets.synthetic import demo_dataset

    base = tmp_path_factory.mktemp("runs")
    dataset = demo_dataset()
    for policy in ("relevance", "random"):
        for seed in (0, 1):
            simulate(
                dataset,
                topic="T1",
                policy=policy,
                seed=seed,
                max_effort="R+40",
                until="exhausted",
                out=base / f"{policy}-{seed}",
            )
    return base


@pytest.mark.slow
def test_compare_command_on_demo_runs(demo_runs, capsys):
    assert main(["compare", str(demo_runs), "--baseline", "random", "--format", "csv"]) == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert set(table.group) == {"relevance", "random"}
    recall = table[(table.measure == "Recall@1R+0")].set_index("group")
    assert recall.loc["relevance", "mean"] > recall.loc["random", "mean"]  # CAL beats random review at E = R
    assert recall.loc["relevance", "pairs"] == 2 and recall.loc["relevance", "runs"] == 2
    assert main(["compare", str(demo_runs), "--baseline", "random", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["baseline"] == "random" and document["groups"] == ["random", "relevance"]
    assert main(["compare", str(demo_runs), "--baseline", "random"]) == 0
    text = capsys.readouterr().out
    assert "Paired tests against the baseline 'random'" in text and "WSS@95" in text
    assert main(["compare", str(demo_runs), "--baseline", "bogus"]) == 2
    assert "baseline 'bogus' is not a group" in capsys.readouterr().err


@pytest.mark.slow
def test_runs_of_different_presets_are_named_by_their_preset(tmp_path, capsys):
    """Not by every field the presets set (a legend of 35 fields made a 16,000-pixel-wide figure)."""
    from tarsim.api.review import simulate
    from tarsim.datasets.synthetic import demo_dataset

    dataset = demo_dataset()
    for preset in ("asreview-logistic", "asreview-default"):
        simulate(dataset, topic="T1", preset=preset, max_effort="R", out=tmp_path / preset)
    assert main(["compare", str(tmp_path / "asreview-logistic"), str(tmp_path / "asreview-default"),
                 "--baseline", "tarsim asreview-default", "--format", "json"]) == 0  # fmt: skip
    assert sorted(json.loads(capsys.readouterr().out)["groups"]) == [
        "tarsim asreview-default",
        "tarsim asreview-logistic",
    ]
    # a field no preset names, differing between runs of one preset, still tells them apart (never averaged)
    simulate(dataset, topic="T1", preset="asreview-default", reviewers=2, seed=1, max_effort="R", out=tmp_path / "two")
    runs = [str(tmp_path / name) for name in ("asreview-logistic", "asreview-default", "two")]
    assert main(["compare", *runs, "--baseline", "logistic", "--format", "json"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["groups"]) == [
        "tarsim asreview-default, reviewers=1",
        "tarsim asreview-default, reviewers=2",
        "tarsim asreview-logistic",
    ]


@pytest.mark.slow
def test_stop_command_on_demo_runs(demo_runs, capsys):
    assert main(["stop", str(demo_runs), "--rule", "nonrel:20", "--rule", "budget:R", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 8 and {row["rule"] for row in rows} == {"nonrel:20", "budget:R"}
    budget = [row for row in rows if row["rule"] == "budget:R"]
    assert all(row["stopped"] and row["effort_judge"] == 51 for row in budget)  # R = 51 for T1
    assert main(["stop", str(demo_runs), "--rule", "budget:R", "--runs"]) == 0  # the text table tells the runs apart
    lines = capsys.readouterr().out.rstrip("\n").split("\n\n")[-1].splitlines()
    assert lines[0].split()[:2] == ["ledger", "topic"] and "n/a" in lines[1] and "None" not in lines[1]
    assert sorted(line.split()[0] for line in lines[1:]) == [
        f"{policy}-{seed}/ledgers/T1.jsonl" for policy in ("random", "relevance") for seed in (0, 1)
    ]
    relative = os.path.relpath(demo_runs / "random-0")  # a relative path beside absolute ones
    assert main(["stop", relative, str(demo_runs / "random-1"), "--rule", "budget:R", "--runs"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.rstrip("\n").split("\n\n")[-1].splitlines()[1:]] == [
        "random-0/ledgers/T1.jsonl",
        "random-1/ledgers/T1.jsonl",
    ]
    # target:T draws from the collection: the demo's ledgers are replayed with the built-in demo, no --collection
    assert main(["stop", str(demo_runs), "--rule", "target:3", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4 and all(row["rule"] == "target:3" and row["sample_size"] > 0 for row in rows)


def test_reviews_from_other_tools_pair_with_tarsim_runs_by_topic_and_seed(tmp_path):
    """An order file records no collection digest: it still pairs with tarsim's runs of the same topic (seed 0)."""
    from tarsim.interop.order import read_order

    runs = [ledger(f"t{t}", "fast", 0, [1, 1] + [0] * 10) for t in range(3)]
    for t in range(3):  # the same topics screened by another tool: both relevant records last (12 records, R = 2)
        (tmp_path / f"t{t}.txt").write_text("".join(f"d{i} {int(i >= 10)}\n" for i in range(12)), encoding="utf-8")
    other = [read_order(tmp_path / f"t{t}.txt") for t in range(3)]
    result = compare(runs + other, "fast", grid_a=(1,), grid_b=(0,))
    rows = {(r["group"], r["measure"]): r for r in result.rows}
    foreign = [g for g in result.groups if g != result.baseline]
    assert len(foreign) == 1 and rows[(foreign[0], "Recall@1R+0")]["pairs"] == 3
    assert rows[(foreign[0], "Recall@1R+0")]["mean"] == 0.0  # two judgments into its order, nothing relevant yet


def order_file(path, priors, relevant_at):
    """An order file of 12 records d0..d11 (R = 2): the prior records first, then the rest with the two relevant
    records (d0, d1) at 0-based positions `relevant_at` of the whole order."""
    rest = [d for d in (f"d{i}" for i in range(2, 12)) if d not in priors]
    order = [*priors, *rest]
    relevant = [d for d in ("d0", "d1") if d not in priors]
    order = [d for d in order if d not in relevant]
    for position, docid in zip(relevant_at, relevant, strict=True):
        order.insert(position, docid)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{d} {int(d in ('d0', 'd1'))}{' prior' if d in priors else ''}\n" for d in order]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_reviews_of_one_review_from_other_tools_are_all_kept(tmp_path, capsys):
    """Two projects (order files) of the same review from different priors: each counts (both used to get one key,
    the last replaced the first and the first was shown as not reached)."""
    from tarsim.reporting.compare import load_ledgers

    first = order_file(tmp_path / "a" / "t0.asr.txt", ["d0", "d5"], [5])  # d1 found 6th
    second = order_file(tmp_path / "b" / "t0.asr.txt", ["d1", "d6"], [2])  # d0 found 3rd
    runs = load_ledgers([first, second])
    result = compare(runs, "asr", grid_a=(2,), grid_b=(0,))
    rows = {(r["group"], r["measure"]): r for r in result.rows}
    effort = rows[("asr", "effort to 95% recall")]
    assert (effort["runs"], effort["n"]) == (2, 2)
    assert effort["mean"] == pytest.approx((6 + 3) / 2)  # 95% recall needs both relevant: the 6th and 3rd record
    assert rows[("asr", "Recall@2R+0")]["mean"] == pytest.approx((0.5 + 1.0) / 2)  # 4 records: d0 only; d1, d0
    assert main(["compare", str(first), str(second), "--baseline", "asr"]) == 0
    assert "(1/2)" not in capsys.readouterr().out


def test_reviews_that_cannot_be_told_apart_are_refused_in_one_line(tmp_path, capsys):
    first = order_file(tmp_path / "a" / "t0.asr.txt", ["d0", "d5"], [3])
    second = order_file(tmp_path / "b" / "t0.asr.txt", ["d0", "d5"], [5])
    assert main(["compare", str(first), str(second), "--baseline", "asr"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(first) in err and str(second) in err and "d0,d5" in err
    # tarsim runs alike in the fields grouped on (batch differs) would hide each other too
    runs = [ledger("t0", "fast", 0, [1, 1] + [0] * 10, batch=b) for b in ("bmi", "10")]
    with pytest.raises(ConfigError, match="they differ in batch: add it to --group-by"):
        compare(runs, "fast", group_by=["policy"])


def test_other_tools_are_named_by_what_they_are_and_pair_by_priors(tmp_path):
    """An order file's group is its tool (not tarsim's default `learner=bmi`); it pairs with the tarsim run that
    started from the same prior records, not with the one of the same seed."""
    from tarsim.data.ledger import ledger_from_lines

    def with_priors(seed, priors, truth):
        lines = ledger_factory.ledger_lines(
            truth, topic="t0", seed=seed, size=12, docids=[*priors, *[f"x{i}" for i in range(len(truth) - 2)]],
            config={"learner": "svm"}, inputs={"collection": "c0"}, relevant=2,
        )  # fmt: skip
        records = [json.loads(line) for line in lines]
        for record in records[1:3]:
            record["prior"] = True
        return ledger_from_lines([json.dumps(r) for r in records])

    tarsim_runs = [with_priors(0, ["d1", "d6"], [1, 0, 0, 1]), with_priors(1, ["d0", "d5"], [1, 0, 0, 0, 1])]
    other = [
        order_file(tmp_path / "a" / "t0.asr.txt", ["d0", "d5"], [3]),
        order_file(tmp_path / "b" / "t0.asr.txt", ["d1", "d6"], [2]),
    ]
    from tarsim.reporting.compare import load_ledgers

    result = compare([*tarsim_runs, *load_ledgers(other)], "asr", grid_a=(1,), grid_b=(0,))
    assert result.groups == ["tarsim document/document; learner svm", "asr"]
    rows = {(r["group"], r["measure"]): r for r in result.rows}
    effort = rows[("tarsim document/document; learner svm", "effort to 95% recall")]
    # tarsim: seed 0 (priors d1, d6) needs 4 records, seed 1 (d0, d5) 5; asr: (d0, d5) 4, (d1, d6) 3
    assert effort["pairs"] == 2 and effort["diff"] == pytest.approx(((4 - 3) + (5 - 4)) / 2)
    assert effort["p_t"] is not None


def test_the_table_says_how_its_measures_count_priors_when_runs_have_some():
    """Recall@E and effort count prior judgments, WSS@95 does not (as Insights): one caption line says so when a run
    has priors (its numbers differ from `tarsim metrics`'), none when no run has."""
    plain = [ledger("t0", "fast", 0, [1, 1, 0, 0]), ledger("t0", "slow", 0, [0, 1, 0, 1])]
    line = "Recall@E and effort count the prior judgments; WSS@95 leaves them out (as Insights and tarsim metrics"
    assert "prior judgments" not in format_comparison(compare(plain, "fast"))
    lines = ledger_factory.ledger_lines([1, 1, 0, 0], topic="t0", policy="slow", size=100, inputs={"collection": "c0"})
    record = json.loads(lines[1])
    lines[1] = json.dumps({**record, "prior": True})
    primed = [plain[0], ledger_from_lines(lines)]
    text = format_comparison(compare(primed, "fast")).splitlines()
    assert text[1].startswith(line)
