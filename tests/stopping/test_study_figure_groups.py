"""The stopping study's figures in a grouped study (issue 31): a mean per group and rule, one marker per group (they
drew one mean per rule over all groups), `pooled over N groups` when there are too many groups to tell apart, and
the y label of stop_missed_unused.png beside its axes (it sat above them)."""

from __future__ import annotations

import pandas as pd

from tarsim.reporting.stopping_plots import missed_unused_figure, recall_cost_figure


def _table(presets: int) -> pd.DataFrame:
    """Two rules x two runs per preset at one target, each measure made up (the figures only draw them)."""
    rows = []
    for p in range(presets):
        for rule in ("nonrel:2", "nonrel:4"):
            for run in range(2):
                rows.append(
                    {
                        "preset": f"p{p}",
                        "rule_given": rule,
                        "target": 0.8,
                        "documents": 5 + p + run,
                        "collection_size": 20,
                        "recall": 0.5 + 0.05 * p,
                        "missed_share": 0.1 * run,
                        "unused_saving": 0.2,
                        "remaining": 8 + p,
                    }
                )
    return pd.DataFrame(rows)


def _means(fig) -> list:
    return [c for ax in fig.axes for c in ax.collections if c.get_gid() == "mean"]


def test_recall_cost_draws_a_mean_per_group_and_rule():
    import matplotlib.pyplot as plt

    grouped = recall_cost_figure(_table(3), ["preset"])
    means = _means(grouped)
    assert len(means) == 3 * 2  # groups x rules; pooled, 2
    assert len({tuple(m.get_paths()[0].vertices.round(3).ravel()) for m in means}) == 3  # a marker per group
    assert {"p0", "p1", "p2"} <= {text.get_text() for text in grouped.legends[0].get_texts()}
    plt.close(grouped)
    many = recall_cost_figure(_table(7), ["preset"])
    assert len(_means(many)) == 2 and "pooled over 7 preset groups" in many.axes[0].get_title()
    plt.close(many)


def test_missed_unused_marks_groups_and_labels_y_beside_the_axes():
    import matplotlib.pyplot as plt

    fig = missed_unused_figure(_table(2), ["preset"])
    fig.canvas.draw()
    ax = fig.axes[0]
    stops = [c for c in ax.collections if c.get_gid() == "stop"]
    assert len(stops) == 2 and len({tuple(c.get_paths()[0].vertices.round(3).ravel()) for c in stops}) == 2
    assert {"p0", "p1"} <= {text.get_text() for text in fig.legends[0].get_texts()}
    label, box = ax.yaxis.label.get_window_extent(), ax.get_window_extent()
    assert label.y0 >= box.y0 - 1 and label.y1 <= box.y1 + 1  # within the axes' height, not above them
    plt.close(fig)
    many = missed_unused_figure(_table(7), ["preset"])
    assert "pooled over 7 preset groups" in many.get_suptitle()
    plt.close(many)
