"""A rule that never fired (issue 31): it keeps the semantics of the stopping papers (the review read to its end:
recall 1, reliability 1) but is marked as such in the summary, its caption and the reliability figure, and is never
the paired tests' default baseline."""

from __future__ import annotations

import pytest

from ledger_factory import make_ledger
from tarsim.stopping.aggregate import (
    NEVER_FIRED_CAPTION,
    baseline_line,
    default_baseline,
    summarise,
    summary_cells,
    summary_text,
)
from tarsim.stopping.study import study_table


def _table(rules):
    # R = 4 in N = 20; nonrel:5 fires only on b (non-relevant 4-8), nonrel:50 on neither (10 judgments each)
    first = make_ledger([1, 0, 1, 0, 0, 1, 0, 0, 0, 1], size=20, seed=0, topic="a")
    second = make_ledger([1, 1, 1, 0, 0, 0, 0, 0, 1, 0], size=20, seed=1, topic="b")
    return study_table([first, second], rules, [0.5], structures=())


def test_a_rule_that_never_fired_is_noted_with_its_semantics_kept():
    table = _table(["nonrel:50", "nonrel:3"])
    summary = summarise(table).set_index("rule")
    assert summary.loc["nonrel:50", "stopped"] == 0 and summary.loc["nonrel:50", "reliability"] == 1.0
    assert summary.loc["nonrel:50", "recall"] == 1.0  # read to its end, as the papers count it
    cells = summary_cells(summarise(table)).set_index("rule")
    assert cells.loc["nonrel:50", "note"] == "never fired" and cells.loc["nonrel:3", "note"] == ""
    text = summary_text(summarise(table)).splitlines()
    assert text[0].split()[-1] == "note" and text[1].endswith("never fired")
    assert text[-1] == NEVER_FIRED_CAPTION and text[-2].startswith("excess_judge: judgments after the oracle stop")


def test_never_fired_is_per_group():
    table = _table(["nonrel:5"])
    pooled = summary_cells(summarise(table))
    assert "note" not in pooled  # fired in one run of two: no note
    by_topic = summary_cells(summarise(table, group_by=["topic"]), group_by=["topic"]).set_index("topic")
    assert by_topic.loc["a", "note"] == "never fired" and by_topic.loc["b", "note"] == ""
    assert NEVER_FIRED_CAPTION not in summary_text(summarise(table))


def test_the_default_baseline_is_the_first_rule_that_fired():
    table = _table(["nonrel:50", "nonrel:5", "nonrel:3"])
    assert default_baseline(table) == "nonrel:5"  # fired on b only: it fired in some run
    line = baseline_line(table, "nonrel:5", named=False)
    assert "against nonrel:5" in line and "first rule that fired" in line and "nonrel:50 fired in no run" in line
    assert "fired" not in baseline_line(table, "nonrel:50", named=True)  # named with --baseline: as asked
    assert default_baseline(_table(["nonrel:50", "nonrel:60"])) == "nonrel:50"  # none fired: the first


@pytest.mark.filterwarnings("ignore")
def test_the_reliability_figure_hatches_and_labels_a_rule_that_never_fired():
    import matplotlib

    matplotlib.use("Agg")
    from tarsim.reporting.stopping_plots import NEVER_FIRED_HATCH, reliability_figure

    figure = reliability_figure(summarise(_table(["nonrel:50", "nonrel:3"])))
    ax = figure.axes[0]
    bars = [patch for patch in ax.patches if patch.get_width() > 0]
    hatched = [patch for patch in bars if patch.get_hatch() == NEVER_FIRED_HATCH]
    assert len(bars) == 2 and len(hatched) == 1 and hatched[0].get_y() < 0.5  # nonrel:50, the first row
    assert [text.get_text() for text in ax.texts] == ["never fired"]
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == ["target 0.5", "never fired: the whole review read"]
    import matplotlib.pyplot as plt

    plt.close(figure)
