"""Tables a paper can take (issue 31): `compare` and `metrics` grouped by any header field and by dataset
(`--group-by topic,preset`), mean ± sd with 95% intervals, paired tests with Holm's correction, and Markdown, LaTeX,
CSV and JSON; `metrics` without "mean (1)" rows or means of counts to three decimals."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

import ledger_factory
from tarsim.cli import main
from tarsim.reporting.study_tables import describe
from tarsim.reporting.table_formats import latex_escape, render

TRUTHS = {1.0: [1, 1, 0, 0], 0.5: [1, 0, 1, 0], 0.0: [0, 0, 1, 1]}
"""Recall@1R+0 (R = 2: recall after 2 judgments) of each 4-judgment review."""
RECALL = {  # (topic, preset) -> Recall@1R+0 of seeds 0, 1, 2
    ("t1", "A"): [1.0, 0.5, 1.0],
    ("t1", "B"): [0.5, 0.0, 0.0],
    ("t2", "A"): [1.0, 1.0, 0.5],
    ("t2", "B"): [0.0, 0.5, 0.5],
}


@pytest.fixture
def study(tmp_path):
    """12 ledgers: 2 topics x presets A, B x seeds 0-2, each in its run's ledgers folder."""
    for (topic, preset), values in RECALL.items():
        for seed, value in enumerate(values):
            folder = tmp_path / "study" / f"{preset}-{seed}" / "ledgers"
            folder.mkdir(parents=True, exist_ok=True)
            config = {"preset": preset}
            lines = ledger_factory.ledger_lines(TRUTHS[value], topic=topic, seed=seed, size=4, config=config)
            (folder / f"{topic}.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "study"


def test_describe_gives_hand_computed_means_sds_and_bootstrap_intervals():
    # two values: a resample is all-low (1/4), mixed (1/2) or all-high (1/4): the 2.5/97.5 percentiles are the values
    assert describe([0.5, 0.9]) == pytest.approx(
        {"n": 2, "mean": 0.7, "sd": math.sqrt(0.08), "ci_low": 0.5, "ci_high": 0.9}
    )
    # three values: all-2 and all-6 resamples are each 1/27 = 3.7% > 2.5%: the interval is [2, 6]
    assert describe([2.0, 4.0, 6.0]) == pytest.approx({"n": 3, "mean": 4.0, "sd": 2.0, "ci_low": 2.0, "ci_high": 6.0})
    assert describe([3.0]) == {"n": 1, "mean": 3.0, "sd": None, "ci_low": 3.0, "ci_high": 3.0}
    assert describe([None, float("nan")])["n"] == 0


def test_compare_per_topic_and_preset_gives_hand_computed_rows_and_holm(study, capsys):
    """Failed before: `--group-by preset,topic` said "topic unknown"."""
    argv = ["compare", str(study), "--baseline", "A", "--group-by", "topic,preset", "--measure", "Recall@1R+0"]
    assert main([*argv, "--format", "json"]) == 0
    rows = {(row["topic"], row["group"]): row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {("t1", "preset=A"), ("t1", "preset=B"), ("t2", "preset=A"), ("t2", "preset=B")}
    a1 = rows[("t1", "preset=A")]
    assert (a1["n"], a1["runs"]) == (3, 3)
    assert a1["mean"] == pytest.approx(5 / 6) and a1["sd"] == pytest.approx(math.sqrt(1 / 12))
    assert (a1["ci_low"], a1["ci_high"]) == pytest.approx((0.5, 1.0))  # all-0.5 resamples: 1/27 > 2.5%
    b1 = rows[("t1", "preset=B")]
    assert b1["mean"] == pytest.approx(1 / 6) and (b1["ci_low"], b1["ci_high"]) == pytest.approx((0.0, 0.5))
    assert b1["pairs"] == 3 and b1["diff"] == pytest.approx(1 / 6 - 5 / 6)
    p1 = stats.ttest_rel(RECALL[("t1", "B")], RECALL[("t1", "A")]).pvalue
    p2 = stats.ttest_rel(RECALL[("t2", "B")], RECALL[("t2", "A")]).pvalue
    assert b1["p_t"] == pytest.approx(p1) and rows[("t2", "preset=B")]["p_t"] == pytest.approx(p2)
    low, high = sorted([p1, p2])  # Holm over the two comparisons of the measure: 2 x the smaller, then the larger
    holm = {low: min(1, 2 * low), high: max(min(1, 2 * low), high)}
    assert b1["p_holm"] == pytest.approx(holm[p1]) and rows[("t2", "preset=B")]["p_holm"] == pytest.approx(holm[p2])
    assert a1["pairs"] is None and a1["p_holm"] is None  # the baseline is not tested against itself

    assert main([*argv, "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "| topic | group | n | Recall@1R+0 |"
    assert lines[2] == "| --- | --- | ---: | ---: |"
    assert "| t1 | preset=A | 3 | 0.833 ± 0.289 [0.500, 1.000] |" in lines
    assert any(line.startswith("| t1 | preset=B | Recall@1R+0 | 3 | -0.667 |") for line in lines)

    assert main([*argv, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert r"\begin{tabular}{llrr}" in latex and r"t1 & preset=A & 3 & 0.833 $\pm$ 0.289 [0.500, 1.000] \\" in latex

    assert main([*argv, "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header[:5] == ["topic", "group", "measure", "runs", "n"] and "p_holm" in header


def test_compare_without_a_baseline_gives_the_per_group_table_and_names_the_groups(study, capsys):
    """Failed before: --baseline was required, so the per-dataset table of a study needed a made-up baseline."""
    argv = ["compare", str(study), "--group-by", "topic,preset", "--measure", "Recall@1R+0", "--format", "markdown"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "| t1 | preset=A | 3 | 0.833 ± 0.289 [0.500, 1.000] |" in out.splitlines()
    assert "Paired tests" not in out
    assert err == "tarsim compare: paired tests need --baseline GROUP (groups: 'preset=A', 'preset=B')\n"
    assert main(["compare", str(study), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len({row["group"] for row in rows}) == 2 and all(row["pairs"] is None for row in rows)


def test_equal_differences_leave_the_t_test_undefined_not_significant(tmp_path, capsys):
    """Failed before: B one step below A in each of 3 seeds printed p <0.001 (an infinite t) from 3 pairs."""
    for preset, values in {"A": [1.0, 1.0, 0.5], "B": [0.5, 0.5, 0.0]}.items():
        for seed, value in enumerate(values):
            folder = tmp_path / "study" / f"{preset}-{seed}" / "ledgers"
            folder.mkdir(parents=True)
            lines = ledger_factory.ledger_lines(TRUTHS[value], topic="t1", seed=seed, size=4, config={"preset": preset})
            (folder / "t1.jsonl").write_text("\n".join(lines) + "\n")
    argv = ["compare", str(tmp_path / "study"), "--baseline", "A", "--group-by", "preset", "--measure", "Recall@1R+0"]
    assert main([*argv, "--format", "json"]) == 0
    tested = [row for row in json.loads(capsys.readouterr().out) if row["pairs"] is not None]
    assert len(tested) == 1 and tested[0]["diff"] == pytest.approx(-0.5) and tested[0]["p_rand"] == pytest.approx(0.25)
    assert tested[0]["p_t"] is None and tested[0]["p_holm"] is None  # JSON null: no t-test without spread
    assert main([*argv, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| preset=B | Recall@1R+0 | 3 | -0.500 | - | - | 0.250 |" in out
    assert "- where every difference is the same and the t-test is undefined" in out


def test_compare_groups_by_a_header_field(study, capsys):
    argv = ["compare", str(study), "--baseline", "preset=A", "--group-by", "relevant,preset", "--format", "json"]
    assert main(argv) == 0
    groups = {row["group"] for row in json.loads(capsys.readouterr().out)["rows"]}
    assert groups == {"relevant=2, preset=A", "relevant=2, preset=B"}


def test_metrics_grouped_by_topic_and_preset(study, capsys):
    assert main(["metrics", str(study), "--group-by", "topic,preset", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    recall = {(r["topic"], r["preset"]): r for r in rows if r["measure"] == "recall@1R+0"}
    assert recall[("t2", "B")]["mean"] == pytest.approx(1 / 3) and recall[("t2", "B")]["n"] == 3
    assert main(["metrics", str(study), "--group-by", "preset", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("| preset | n | WSS@95 |") and lines[3].startswith("| A | 6 |")
    assert main(["metrics", str(study), "--group-by", "nonesuch"]) == 2
    assert "--group-by field(s) nonesuch unknown; known: " in capsys.readouterr().err


def test_metrics_table_has_no_mean_of_one_row_and_rounds_mean_counts(tmp_path, capsys):
    """Failed before: a tool's single review got a "mean (1)" row, and the mean of R printed as 1.667."""
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for topic, truth in (("a", [1, 0, 0]), ("b", [1, 1, 0]), ("c", [0, 1, 1])):
        (folder / f"{topic}.jsonl").write_text("\n".join(ledger_factory.ledger_lines(truth, topic=topic, size=3)))
    lone = tmp_path / "lone"
    lone.mkdir()
    lines = ledger_factory.ledger_lines([1, 0], topic="z", size=2, config={"learner": "nb"})
    (lone / "z.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["metrics", str(folder), str(lone)]) == 0
    out = capsys.readouterr().out
    assert "mean (" not in out and "mean of 1" not in out
    [mean] = [line for line in out.splitlines() if line.startswith("mean of 3")]
    assert mean.split()[5:7] == ["3", "1.7"]  # N 3, R (1 + 2 + 2) / 3 to one decimal


def test_renderers_escape_what_their_format_needs():
    assert latex_escape("docs_to_95 & 50% ± 1") == r"docs\_to\_95 \& 50\% $\pm$ 1"
    assert render(["a", "b"], [["x|y", "1"]], "markdown", numeric_from=1).splitlines()[2] == r"| x\|y | 1 |"


def test_the_side_by_side_table_has_intervals_holm_and_rounded_efforts(study, capsys):
    """Before: mean ± sd only, no Holm column, efforts to three decimals."""
    assert main(["compare", str(study), "--baseline", "A", "--group-by", "preset"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Mean ± sd [95% bootstrap CI] over topics and seeds")
    [recall] = [line for line in lines if line.startswith("Recall@1R+0 ")]
    a = describe(RECALL[("t1", "A")] + RECALL[("t2", "A")])  # 5/6, sd sqrt(1/15): by hand
    b = describe(RECALL[("t1", "B")] + RECALL[("t2", "B")])  # 1/4, sd sqrt(0.075)
    assert (a["mean"], a["sd"], b["mean"], b["sd"]) == pytest.approx((5 / 6, math.sqrt(1 / 15), 0.25, math.sqrt(0.075)))
    assert recall.split()[1:] == [
        f"{a['mean']:.3f}", "±", f"{a['sd']:.3f}", f"[{a['ci_low']:.3f},", f"{a['ci_high']:.3f}]",
        f"{b['mean']:.3f}", "±", f"{b['sd']:.3f}", f"[{b['ci_low']:.3f},", f"{b['ci_high']:.3f}]",
    ]  # fmt: skip
    effort = next(line for line in lines if line.startswith("effort to 95% recall "))
    assert all(len(number.split(".")[-1]) == 1 for number in effort.split()[4:7] if "." in number)
    assert "p_holm" in next(line for line in lines if line.strip().startswith("measure"))
    assert main(["compare", str(study), "--baseline", "A", "--group-by", "preset", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    tested = [row for row in rows if row["p_t"] is not None]
    assert tested and all(row["p_holm"] == pytest.approx(row["p_t"]) for row in tested)  # one group tested per measure


def test_an_unknown_group_by_field_is_named_with_the_closest_known_one(study, capsys):
    """Was a list of every config field (some fifty) and no hint; the same line from compare, metrics and plot."""
    for command in ("compare", "metrics"):
        assert main([command, str(study), "--group-by", "colection,preset"]) == 2
        err = capsys.readouterr().err
        assert "--group-by field(s) colection unknown (did you mean collection?); known: " in err, err
        assert len(err.splitlines()) == 1 and err.count(",") < 20
