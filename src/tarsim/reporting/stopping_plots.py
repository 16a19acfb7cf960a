"""The figures of a stopping study (tarsim.stopping.study's tidy table and tarsim.stopping.aggregate's summary), in
tarsim's plot colours (Okabe-Ito, tarsim.reporting.plots.PALETTE):

(a) `recall_cost_figure`: recall at the stop against the share of the collection judged by then, one panel per
    target recall with its target line, one colour per rule (each run a dot, the rule's mean a large marker; in a
    grouped study a mean per group and rule, one marker per group);
(b) `missed_unused_figure`: Repke et al. (2025)'s view of stopping methods (their preprint's figure 2, from their
    ExploreResults notebook): one panel per rule; x left of 0 is the share of the relevant documents missed by
    stopping before the target was reached (missed_share), right of 0 the share of the work saving after the oracle
    stop that went unused (unused_saving; 100%: the rule never fired); y the documents left after the oracle stop
    (remaining, what a perfect stop would save); one colour per target. The notebook's figure plots, left of 0,
    the share of the oracle's screening not done (too_early%) under the label "% missed includes"; tarsim plots
    the missed relevant documents the label and the paper's text describe (missed%@recall, its mtl_right column);
(c) `reliability_figure`: the share of runs that reached the target, per rule (and group) and target, with Wilson
    intervals; a rule that fired in no run hatched and labelled "never fired" (its share is that of reading the whole
    review).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tarsim.reporting.plots import PALETTE, STOP_MARKERS, STYLE, _matplotlib, save_figure

if TYPE_CHECKING:
    import pandas as pd

FIGURES = ("recall_cost", "missed_unused", "reliability")


def _colours(names) -> dict:
    return {name: PALETTE[index % len(PALETTE)] for index, name in enumerate(names)}


def _markers(names) -> dict:
    return {name: STOP_MARKERS[(index // len(PALETTE)) % len(STOP_MARKERS)] for index, name in enumerate(names)}


GROUP_MARKERS = ("o", "s", "^", "D", "v", "P")
"""One marker per group (e.g. preset) when the study is grouped and has at most this many groups."""


def group_labels(table: pd.DataFrame, group_by) -> list[str] | None:
    """Each run's group as a label (`preset-a`, or `a | preset-a` for several fields), or None when the table is not
    grouped (or has more groups than GROUP_MARKERS, so the figures pool them and say so)."""
    group_by = [column for column in group_by if column in table]
    if not group_by:
        return None
    labels = [" | ".join(map(str, values)) for values in zip(*(table[c] for c in group_by), strict=True)]
    return labels if len(set(labels)) <= len(GROUP_MARKERS) else None


def _pooled(table: pd.DataFrame, group_by) -> str:
    """The title note of a figure that pools a grouped study's groups: `pooled over N groups`, else empty."""
    group_by = [column for column in group_by if column in table]
    count = len(table[group_by].drop_duplicates()) if group_by else 0
    return f"pooled over {count} {' x '.join(group_by)} groups" if count > len(GROUP_MARKERS) else ""


def _group_handles(groups: list[str]) -> tuple[list, list[str]]:
    """Legend entries of the groups' markers, in grey (the colours stand for rules or targets)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="", marker=GROUP_MARKERS[i], color="0.35") for i in range(len(groups))]
    return handles, groups


def _grid(count: int, columns: int = 4) -> tuple[int, int]:
    columns = max(1, min(columns, count))
    return -(-count // columns), columns


def recall_cost_figure(table: pd.DataFrame, group_by=()):
    """(a) recall at the stop vs the share of the collection judged, per target, one colour per rule; a grouped study
    (`group_by`, e.g. preset) has a mean marker per group and rule (one marker shape per group), or, with more
    groups than GROUP_MARKERS, one per rule and `pooled over N groups` in the title."""
    plt = _matplotlib()
    targets = list(dict.fromkeys(table["target"]))
    rules = list(dict.fromkeys(table["rule_given"]))
    colours, markers = _colours(rules), _markers(rules)
    labels_of = group_labels(table, group_by)
    groups = list(dict.fromkeys(labels_of)) if labels_of else []
    table = table.assign(_group=labels_of) if labels_of else table
    pooled = _pooled(table, group_by)
    rows, columns = _grid(len(targets), 3)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.6 * rows), squeeze=False, sharey=True)
        for ax, target in zip(axes.flat, targets, strict=False):
            at = table[table["target"] == target]
            size = at["documents"] / at["collection_size"]
            for rule in rules:
                mine = at["rule_given"] == rule
                if not mine.any():
                    continue
                xs, ys = size[mine], at.loc[mine, "recall"]
                ax.scatter(xs, ys, s=10, alpha=0.35, color=colours[rule], marker="o", lw=0, gid="run")
                means = [(markers[rule], mine)] if not groups else []
                for index, group in enumerate(groups):  # one mean per group and rule, its marker the group's
                    means.append((GROUP_MARKERS[index], mine & (at["_group"] == group)))
                for marker, rows in means:
                    if not rows.any():
                        continue
                    ax.scatter(
                        [size[rows].mean()],
                        [at.loc[rows, "recall"].mean()],
                        s=70,
                        color=colours[rule],
                        marker=marker,
                        edgecolor="white",
                        lw=0.8,
                        label=rule,
                        zorder=3,
                        gid="mean",
                    )
            ax.axhline(target, color="0.35", ls="--", lw=1.0, gid="target")
            ax.set_title(f"target recall {target:g}" + (f" ({pooled})" if pooled else ""))
            ax.set_xlabel("share of the collection judged at the stop")
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(True, color="0.9", lw=0.6)
        for ax in axes.flat[len(targets) :]:
            ax.set_visible(False)
        axes[0, 0].set_ylabel("recall at the stop")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        if groups:  # the rules by colour (a circle), the groups by marker (grey)
            from matplotlib.lines import Line2D

            handles = [Line2D([], [], ls="", marker="o", color=colours[rule]) for rule in rules]
            extra, names = _group_handles(groups)
            handles, labels = [*handles, *extra], [*rules, *names]
        columns = min(6 if groups else 4, len(labels))
        fig.legend(handles, labels, loc="outside lower center", ncol=columns, frameon=False)
        fig.set_layout_engine("constrained")
    return fig


def missed_unused_x(table: pd.DataFrame) -> np.ndarray:
    """The signed x of figure (b), in percent: -missed_share where the stop missed relevant documents the oracle
    stop found, else unused_saving."""
    missed = table["missed_share"].to_numpy(dtype=np.float64)
    unused = table["unused_saving"].to_numpy(dtype=np.float64)
    return np.where(missed > 0, -missed, unused) * 100.0


def missed_unused_figure(table: pd.DataFrame, group_by=()):
    """(b) missed relevant (left) vs unused work saving (right) against documents left after the oracle stop; in a
    grouped study each run's marker is its group's (colour: the target), or, with more groups than GROUP_MARKERS,
    the title says the panels pool them."""
    plt = _matplotlib()
    rules = list(dict.fromkeys(table["rule_given"]))
    targets = list(dict.fromkeys(table["target"]))
    colours = _colours(targets)
    markers = {t: GROUP_MARKERS[i % len(GROUP_MARKERS)] for i, t in enumerate(targets)}
    labels_of = group_labels(table, group_by)
    groups = list(dict.fromkeys(labels_of)) if labels_of else []
    table = table.assign(_group=labels_of if labels_of else "")
    pooled = _pooled(table, group_by)
    rows, columns = _grid(len(rules), 4)
    top = float(np.nanmax(table["remaining"])) if table["remaining"].notna().any() else 1.0
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            rows, columns, figsize=(3.6 * columns, 3.0 * rows), squeeze=False, sharex=True, sharey=True
        )
        for ax, rule in zip(axes.flat, rules, strict=False):
            mine = table[table["rule_given"] == rule]
            for target in targets:
                at = mine[mine["target"] == target]
                for index, group in enumerate(groups or [""]):
                    runs = at[at["_group"] == group]
                    if runs.empty:
                        continue
                    ax.scatter(
                        missed_unused_x(runs),
                        runs["remaining"],
                        s=12,
                        alpha=0.6,
                        color=colours[target],
                        marker=GROUP_MARKERS[index] if groups else markers[target],
                        lw=0,
                        label=f"{target:.0%} recall target",
                        gid="stop",
                    )
            ax.axvline(0, color="0.35", lw=1.0, gid="oracle")
            ax.set_title(rule, fontsize=10)
            ax.set_xlim(-105, 105)
            ax.set_ylim(0, top * 1.05)
            ax.set_xticks([-100, -50, 0, 50, 100], ["100", "50", "0", "50", "100"])
            ax.grid(True, color="0.9", lw=0.6)
        for ax in axes.flat[len(rules) :]:
            ax.set_visible(False)
        fig.supxlabel("% missed relevant (left of 0) / % unused work saving (right of 0)")
        for ax in axes[:, 0]:  # beside each row of axes (a figure's supylabel spanned the legend above them too)
            ax.set_ylabel("documents remaining\nafter the recall target")
        if pooled:
            fig.suptitle(pooled, fontsize=10)
        from matplotlib.lines import Line2D

        if groups:  # the targets by colour (a square), the groups by marker (grey)
            handles = [Line2D([], [], ls="", marker="s", color=colours[target]) for target in targets]
            extra, names = _group_handles(groups)
            handles, labels = [*handles, *extra], [*(f"{t:.0%} recall target" for t in targets), *names]
        else:
            handles = [Line2D([], [], ls="", marker=markers[t], color=colours[t]) for t in targets]
            labels = [f"{target:.0%} recall target" for target in targets]
        fig.legend(handles, labels, loc="outside upper center", ncol=min(len(labels), 5), frameon=False)
        fig.set_layout_engine("constrained")
    return fig


NEVER_FIRED_HATCH = "///"
"""How a rule that fired in no run is drawn: its reliability (that of reviewing everything) hatched and labelled."""


def _reliability_rows(summary: pd.DataFrame) -> list[tuple[tuple, str]]:
    """The figure's rows, in the summary's order: (group values, rule as given) and its label (`rule` alone, or
    `rule | preset-a` when the summary is per group: the columns before `rule`)."""
    groups = list(summary.columns[: list(summary.columns).index("rule")])
    rows: dict[tuple, str] = {}
    for record in summary.to_dict("records"):
        values = tuple(str(record[column]) for column in groups)
        rows.setdefault((*values, record["rule_given"]), " | ".join([record["rule_given"], *values]))
    return list(rows.items())


def reliability_figure(summary: pd.DataFrame):
    """(c) reliability (share of runs reaching the target) per rule (and group) and target, with Wilson 95% intervals;
    a rule that fired in no run hatched and labelled `never fired` (its reliability is that of reviewing
    everything)."""
    plt = _matplotlib()
    from matplotlib.patches import Patch

    rows = _reliability_rows(summary)
    index_of = {key: index for index, (key, _) in enumerate(rows)}
    groups = list(summary.columns[: list(summary.columns).index("rule")])
    targets = list(dict.fromkeys(summary["target"]))
    colours = _colours(targets)
    height = 0.8 / max(1, len(targets))
    never = False
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.32 * len(rows) * max(1, len(targets)) ** 0.5))
        for offset, target in enumerate(targets):
            at = summary[summary["target"] == target]
            ys, values, lows, highs, hatched = [], [], [], [], []
            for record in at.to_dict("records"):
                key = (*(str(record[column]) for column in groups), record["rule_given"])
                ys.append(index_of[key] - 0.4 + height * (offset + 0.5))
                values.append(record["reliability"])
                lows.append(record["reliability"] - record["reliability_low"])
                highs.append(record["reliability_high"] - record["reliability"])
                hatched.append(record["stopped"] == 0)
            bars = ax.barh(ys, values, height=height * 0.9, color=colours[target], gid="share")
            ax.errorbar(values, ys, xerr=[lows, highs], fmt="none", ecolor="0.2", lw=0.9, capsize=2, gid="interval")
            for bar, y, flag in zip(bars, ys, hatched, strict=True):
                if flag:  # reliable only because the review was read to its end
                    never = True
                    bar.set(hatch=NEVER_FIRED_HATCH, facecolor="white", edgecolor=colours[target], gid="never_fired")
                    ax.text(0.02, y, "never fired", va="center", ha="left", fontsize=7, color="0.15", gid="never_fired",
                            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})  # fmt: skip
        ax.set_yticks(range(len(rows)), [label for _, label in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, 1.0)
        ax.set_xlabel("reliability: share of runs whose recall at the stop reached the target")
        ax.grid(True, axis="x", color="0.9", lw=0.6)
        handles = [Patch(color=colours[target]) for target in targets]  # not a bar's: that may be hatched
        labels = [f"target {target:g}" for target in targets]
        if never:
            handles.append(Patch(facecolor="white", edgecolor="0.3", hatch=NEVER_FIRED_HATCH))
            labels.append("never fired: the whole review read")
        fig.legend(handles, labels, loc="outside upper center", ncol=len(labels), frameon=False)
        fig.set_layout_engine("constrained")
    return fig


def write_study_figures(table: pd.DataFrame, summary: pd.DataFrame, out: Path, suffix: str = "png") -> list[Path]:
    """The three figures as OUT/stop_<name>.<suffix> (written atomically); returns their paths."""
    plt = _matplotlib()
    paths = []
    group_by = list(summary.columns[: list(summary.columns).index("rule")]) if "rule" in summary else []
    for name, make in (  # the summary's columns before `rule` are its groups (e.g. collection, preset)
        ("recall_cost", lambda: recall_cost_figure(table, group_by)),
        ("missed_unused", lambda: missed_unused_figure(table, group_by)),
        ("reliability", lambda: reliability_figure(summary)),
    ):
        fig = make()
        paths.append(save_figure(fig, Path(out) / f"stop_{name}.{suffix}"))
        plt.close(fig)
    return paths
