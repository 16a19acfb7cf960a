"""`tarsim metrics --baseline VALUE` (issue 31): paired Wilcoxon tests of every group against the baseline, runs
paired by topic and seed as `tarsim compare` pairs them, Holm-adjusted over the groups tested, in every format. The
expected p-values are scipy.stats.wilcoxon's on the same pairs, built here from the values the ledgers were made
with; Holm's step-down adjustment is computed by hand (statsmodels is not installed)."""

from __future__ import annotations

import json

import pytest
from scipy import stats

import ledger_factory
from tarsim.cli import main

FOUND = {  # (preset, topic) -> relevant documents among the first 4 judged (of R = 4), seeds 0, 1, 2
    ("A", "t1"): [4, 3, 4],
    ("A", "t2"): [3, 4, 2],
    ("B", "t1"): [2, 1, 3],
    ("B", "t2"): [1, 2, 2],
    ("C", "t1"): [3, 4, 2],
    ("C", "t2"): [4, 1, 0],
}
MEASURE = "recall@1R+0"  # recall after R = 4 judgments: found / 4


@pytest.fixture
def study(tmp_path):
    """18 ledgers (presets A, B, C x topics t1, t2 x seeds 0-2) of 8 documents, 4 relevant. B's folders are named
    in the reverse order of its seeds, so that pairing by the order read would pair the wrong runs."""
    for (preset, topic), counts in FOUND.items():
        for seed, found in enumerate(counts):
            truth = [1] * found + [0] * (4 - found) + [1] * (4 - found) + [0] * found
            name = 2 - seed if preset == "B" else seed
            folder = tmp_path / "study" / f"{preset}-{name}" / "ledgers"
            folder.mkdir(parents=True, exist_ok=True)
            lines = ledger_factory.ledger_lines(truth, topic=topic, seed=seed, size=8, config={"preset": preset})
            (folder / f"{topic}.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "study"


def wilcoxon(group: str, topics=("t1", "t2")) -> float:
    """scipy's two-sided Wilcoxon p of group against A on the runs of the same topic and seed."""
    mine = [found / 4 for topic in topics for found in FOUND[(group, topic)]]
    base = [found / 4 for topic in topics for found in FOUND[("A", topic)]]
    return float(stats.wilcoxon(mine, base).pvalue)


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjustment, by its definition: sorted ascending, p_(i) x (m - i), running maximum, cap 1."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * len(pvalues), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def test_metrics_baseline_gives_scipys_wilcoxon_and_holm(study, capsys):
    """Failed before: metrics had no --baseline (argparse refused it)."""
    assert main(["metrics", str(study), "--group-by", "preset", "--baseline", "A", "--format", "json"]) == 0
    rows = {(row["preset"], row["measure"]): row for row in json.loads(capsys.readouterr().out)}
    expected = {"B": wilcoxon("B"), "C": wilcoxon("C")}
    adjusted = dict(zip(expected, holm(list(expected.values())), strict=True))
    assert adjusted["B"] != expected["B"]  # the correction changes something here
    for group in ("B", "C"):
        row = rows[(group, MEASURE)]
        assert row["pairs"] == 6
        assert row["p_wilcoxon"] == pytest.approx(expected[group], rel=1e-12)
        assert row["p_holm"] == pytest.approx(adjusted[group], rel=1e-12)
        pairs = [pair for t in ("t1", "t2") for pair in zip(FOUND[("A", t)], FOUND[(group, t)], strict=True)]
        differences = [(b - a) / 4 for a, b in pairs]
        assert row["diff"] == pytest.approx(sum(differences) / 6)
    assert rows[("A", MEASURE)]["pairs"] is None and rows[("A", MEASURE)]["p_holm"] is None


def test_metrics_baseline_within_each_topic_holm_over_every_comparison(study, capsys):
    argv = ["metrics", str(study), "--group-by", "topic,preset", "--baseline", "A", "--format", "csv"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=True)) for line in lines[1:]]
    tested = {(r["topic"], r["preset"]): r for r in rows if r["measure"] == MEASURE and r["p_wilcoxon"]}
    keys = [(t, g) for t in ("t1", "t2") for g in ("B", "C")]
    assert sorted(tested) == keys
    expected = [wilcoxon(g, (t,)) for t, g in keys]
    for key, p, p_holm in zip(keys, expected, holm(expected), strict=True):
        assert tested[key]["pairs"] == "3"
        assert float(tested[key]["p_wilcoxon"]) == pytest.approx(p, rel=1e-12)
        assert float(tested[key]["p_holm"]) == pytest.approx(p_holm, rel=1e-12)


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_metrics_baseline_prints_the_tests_in_text_formats(study, capsys, fmt):
    assert main(["metrics", str(study), "--group-by", "preset", "--baseline", "A", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "Paired tests against 'A'" in out and "Wilcoxon" in out
    p = f"{wilcoxon('C'):.3f}"
    row = {"table": None, "markdown": "| C | ATD |", "latex": r"C & ATD & "}[fmt]
    assert row is None or row in out
    assert p in out


def test_metrics_baseline_that_is_no_group_is_one_line(study, capsys):
    assert main(["metrics", str(study), "--group-by", "preset", "--baseline", "Z"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "baseline 'Z' is not a group; groups: A; B; C" in err


def test_metrics_baseline_is_refused_with_clef_measures(study, capsys):
    """It would have been ignored without a word: --measures prints CLEF's per-review measures."""
    assert main(["metrics", str(study), "--measures", "clef", "--baseline", "A"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
