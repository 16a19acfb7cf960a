"""Recall-effort figures from ledgers (matplotlib, Agg backend): one line per group (policy/strategy), the mean
over seeds with a min-max band over seeds, markers at E = aR+b, reference lines for random and perfect review,
stopping points, averaged over topics or as a grid of small multiples (one panel per topic). Each panel's effort
axis reaches past its last relevant found and its furthest stop; a stop beyond an explicit xmax sits on the edge.

Averaging over topics: each run's recall is read on a common effort grid (a step function; after a ledger's
end, recall stays at its final value), averaged over topics per seed; the line is the mean of those seed curves
and the band their min-max. Reference lines are exact in judgments: random review finds E/N of the relevant
documents in expectation, a perfect review min(1, E/R). In other effort models random review is an estimate that
converts effort to judgments with each topic's mean cost per judgment in the plotted ledgers (labelled "est."), and
the perfect review is drawn only as a bound: min(1, E/(R c)) with c the cheapest judgment of the topic's plotted
runs (no run can find k relevant documents for less than k c), left out when a judgment cost nothing.

The effort axis is linear (its right end just past where the slowest plotted run found its last relevant document,
or `xmax`) or logarithmic (`xscale="log"`: strategies whose effort differs by orders of magnitude both show). A line
identical to an earlier one is drawn dashed on top of it and its legend entry says so; legend entries give each
line's number of runs; the title names the dataset, the effort unit and what the band is over.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import GRID_A, RecallCurve, check_recall_kind, recall_curve
from tarsim.reporting.compare import pair_key, refuse_identical_runs
from tarsim.reporting.figure_text import (
    IDENTICAL_DASHES,
    band_note,
    dataset_name,
    identical_to,
    runs_label,
    titled,
    topics_text,
)
from tarsim.reporting.line_groups import line_groups

if TYPE_CHECKING:
    from tarsim.stopping.replay_inputs import ReplayInputs

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
"""Okabe-Ito colours (distinguishable with colour-vision deficiencies)."""
MARKS = tuple((a, 100.0) for a in GRID_A)
"""Default aR+b markers: 1R+100, 2R+100, 4R+100."""
FORMATS = ("png", "svg", "pdf")
XSCALES = ("linear", "log")
GRID_POINTS = 400
LINESTYLES = ("-", (0, (5, 1.5)), "-.", (0, (1, 1)))
STOP_MARKERS = ("X", "P", "D", "v", "^", "s")
"""One marker per stopping rule, in the order the rules were given."""

STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "tarsim",
    "svg.fonttype": "none",
}


def _per_ledger(replay: Mapping | ReplayInputs | None) -> ReplayInputs:
    """`replay` as a function of the ledger: a mapping (docids and qrels of one collection) serves every ledger."""
    if callable(replay):
        return replay
    shared = dict(replay or {})
    return lambda ledger: shared


@dataclass(frozen=True)
class StopMark:
    """Where one run stopped under a rule: effort and recall."""

    effort: float
    recall: float


def _matplotlib():
    from tarsim.errors import require

    matplotlib = require("matplotlib", "plot", "plotting")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _x_limit(ledgers: Sequence[Ledger], model, recall: str = "presented") -> float:
    """Up to a little past the effort at which the slowest run found its last relevant document."""
    ends = []
    for ledger in ledgers:
        curve = recall_curve(ledger, model, recall=recall)
        if len(curve.effort):
            final = curve.effort_to(float(curve.recall[-1])) or float(curve.effort[-1])
            ends.append(max(final, float(curve.effort[0])))
    return 1.05 * max(ends) if ends else 1.0


def _judgment_costs(ledgers: Sequence[Ledger], model) -> np.ndarray:
    # the clock model reads each judgment's clock time beside the effort increments (as recall_curve)
    return np.concatenate([model.costs(ledger.effort_columns) for ledger in ledgers]) if ledgers else np.ones(1)


def _cost_per_judgment(ledgers: Sequence[Ledger], model) -> float:
    costs = _judgment_costs(ledgers, model)
    return float(costs.mean()) if costs.size and costs.mean() > 0 else 1.0


def _cheapest_judgment(ledgers: Sequence[Ledger], model) -> float:
    """The least a judgment cost in these runs (0 when one cost nothing: then no perfect-review bound is drawn)."""
    costs = _judgment_costs(ledgers, model)
    return float(costs.min()) if costs.size else 0.0


def _x_start(ledgers: Sequence[Ledger], model, recall: str) -> float:
    """The left end of a log effort axis: the least effort of any run's first judgment (at least a tiny positive)."""
    firsts = [float(recall_curve(ledger, model, recall=recall).effort[0]) for ledger in ledgers]
    positive = [first for first in firsts if first > 0]
    return min(positive) if positive else 1.0


def _seed_curves(runs: Sequence[Ledger], curves: Sequence[RecallCurve], grid: np.ndarray) -> np.ndarray:
    """Rows: one per seed, the recall averaged over the topics that seed reviewed (each run's recall on the grid, NaN
    where it is unknown: RecallCurve.known_recall_on)."""
    by_seed: dict[int, list[np.ndarray]] = {}
    for ledger, curve in zip(runs, curves, strict=True):
        by_seed.setdefault(pair_key(ledger)[2], []).append(curve.known_recall_on(grid))
    return np.array([np.mean(curves, axis=0) for _, curves in sorted(by_seed.items())])


def _stop_marks(runs: Sequence[Ledger], rule: str, model, replay: ReplayInputs) -> list[StopMark]:
    from tarsim.stopping import evaluate_stopping

    marks = []
    for ledger in runs:
        outcome = evaluate_stopping(ledger, rule, effort_models=[model.name], **replay(ledger))
        if outcome.stopped:  # a rule that never fired has no stopping point to mark
            marks.append(StopMark(outcome.effort[model.name], outcome.recall))
    return marks


@dataclass
class Drawn:
    """What panels drew, for the legend (which lists only that): the aR+b marks drawn inside the axes, the indices
    of the rules with a stop mark inside them and of those with one beyond an explicit xmax (hollow, on its edge)."""

    marks: set[tuple[float, float]] = field(default_factory=set)
    inside: set[int] = field(default_factory=set)
    beyond: set[int] = field(default_factory=set)
    identical: dict[str, str] = field(default_factory=dict)
    perfect: bool = False

    def __ior__(self, other: Drawn) -> Drawn:
        self.marks |= other.marks
        self.inside |= other.inside
        self.beyond |= other.beyond
        self.identical |= other.identical
        self.perfect |= other.perfect
        return self


PanelStops = dict[str, list[list[StopMark]]]
"""A panel's stop marks: per group, one list per stopping rule (in the order the rules were given)."""


def _panel_stops(
    groups: Mapping[str, Sequence[Ledger]], stopping: Sequence[str], model, replay: ReplayInputs, average: bool
) -> PanelStops:
    """Each group's stop marks per rule (with `average`, the mean over the runs where the rule fired), computed once
    per panel: they both stretch the axis and are drawn, and evaluate_stopping can be slow."""
    stops: PanelStops = {}
    for group, runs in groups.items():
        stops[group] = []
        for rule in stopping:
            marks = _stop_marks(runs, rule, model, replay)
            if average and marks:
                marks = [StopMark(float(np.mean([s.effort for s in marks])), float(np.mean([s.recall for s in marks])))]
            stops[group].append(marks)
    return stops


def _plot_panel(
    ax,
    groups: Mapping[str, Sequence[Ledger]],
    styles: Mapping[str, tuple],
    model,
    xmax: float | None,
    marks: Sequence[tuple[float, float]],
    stopping: Sequence[str],
    replay: ReplayInputs,
    average: bool,
    recall: str,
    xscale: str = "linear",
) -> Drawn:
    """One panel: its stop marks computed once, its axis limit from them and from its runs, then drawn."""
    stops = _panel_stops(groups, stopping, model, replay, average)
    ledgers = [run for runs in groups.values() for run in runs]
    limit = _panel_limit(ledgers, model, recall, stops, xmax)
    start = _x_start(ledgers, model, recall) if xscale == "log" else 0.0
    return _draw_panel(ax, groups, styles, model, limit, marks, stops, recall, start)


def _panel_limit(ledgers: Sequence[Ledger], model, recall: str, stops: PanelStops, xmax: float | None) -> float:
    """The panel's right edge: `xmax` when given; else a little past both the effort at which the slowest run found
    its last relevant document and the furthest stop mark (a target:T stop may lie far beyond the former)."""
    if xmax:
        return xmax
    furthest = max((mark.effort for per_rule in stops.values() for marks in per_rule for mark in marks), default=0.0)
    return max(_x_limit(ledgers, model, recall), 1.05 * furthest)


def group_styles(groups: Sequence[str]) -> dict[str, tuple[str, object]]:
    """Colour and line style per group: with two or more grouping fields ("policy, strategy"), the colour follows the
    first field and the line style the rest, so that overlapping curves stay distinguishable."""
    parts = [group.split(", ", 1) for group in groups]
    if all(len(p) == 2 for p in parts) and len({p[1] for p in parts}) > 1:
        firsts = list(dict.fromkeys(p[0] for p in parts))
        rests = list(dict.fromkeys(p[1] for p in parts))
        return {
            group: (PALETTE[firsts.index(p[0]) % len(PALETTE)], LINESTYLES[rests.index(p[1]) % len(LINESTYLES)])
            for group, p in zip(groups, parts, strict=True)
        }
    return {group: (PALETTE[i % len(PALETTE)], "-") for i, group in enumerate(groups)}


def _draw_panel(
    ax,
    groups: Mapping[str, Sequence[Ledger]],
    styles: Mapping[str, tuple],
    model,
    xmax: float,
    marks: Sequence[tuple[float, float]],
    stops: PanelStops,
    recall: str = "presented",
    start: float = 0.0,
) -> Drawn:
    """Draw one panel up to effort `xmax` (from `start` > 0 on a log axis); a stop mark beyond it (an explicit
    --xmax) is drawn hollow at the right edge (gid `stop-beyond`). Returns what was drawn (aR+b marks inside the
    axes, rules with stop marks inside and beyond, lines identical to another, the perfect-review line), for the
    legend."""
    log = start > 0
    grid = np.geomspace(start, max(xmax, start * 1.01), GRID_POINTS) if log else np.linspace(0.0, xmax, GRID_POINTS)
    everyone = [ledger for runs in groups.values() for ledger in runs]
    topics: dict[tuple, Ledger] = {}
    for ledger in everyone:
        topics.setdefault(pair_key(ledger)[:2], ledger)
    exact = model.name == "judge"
    random_line, perfect_line = [], []
    for key, ledger in topics.items():
        same_topic = [other for other in everyone if pair_key(other)[:2] == key]
        per = 1.0 if exact else _cost_per_judgment(same_topic, model)
        random_line.append(np.minimum(1.0, grid / per / ledger.collection_size))
        cheapest = 1.0 if exact else _cheapest_judgment(same_topic, model)  # a bound, not an estimate
        if cheapest > 0:
            perfect_line.append(np.minimum(1.0, grid / cheapest / max(ledger.relevant, 1)))
    drawn = Drawn(perfect=len(perfect_line) == len(topics))
    if drawn.perfect:
        label = "perfect review" if exact else "perfect review (bound: cheapest judgment)"
        ax.plot(grid, np.mean(perfect_line, axis=0), ls="--", lw=1.0, color="0.35", gid="perfect", label=label)
    suffix = "" if exact else " (est.)"
    ax.plot(
        grid, np.mean(random_line, axis=0), ls=":", lw=1.2, color="0.35", gid="random", label=f"random review{suffix}"
    )
    run_curves = {g: [recall_curve(ledger, model, recall=recall) for ledger in runs] for g, runs in groups.items()}
    seed_curves = {g: _seed_curves(runs, run_curves[g], grid) for g, runs in groups.items()}  # once: line and marks
    drawn.identical = identical_to({g: curves.mean(axis=0) for g, curves in seed_curves.items()})
    for group, runs in groups.items():
        colour, linestyle = styles[group]
        curves = seed_curves[group]
        mean = curves.mean(axis=0)
        if len(curves) > 1:
            ax.fill_between(grid, curves.min(axis=0), curves.max(axis=0), color=colour, alpha=0.18, lw=0, gid="band")
        label = runs_label(group, len(runs))
        if group in drawn.identical:  # dashed on top of the line it equals, so that both show
            linestyle, label = IDENTICAL_DASHES, f"{label}, identical to {drawn.identical[group]}"
        ax.plot(grid, mean, color=colour, ls=linestyle, lw=1.8, gid="policy", label=label)
        xs, ys = [], []
        for a, b in marks:
            budgets = [a * ledger.relevant + b for ledger in runs]
            recalls = [curve.known_recall_at(e) for curve, e in zip(run_curves[group], budgets, strict=True)]
            x = float(np.mean(budgets))
            if x <= xmax and None not in recalls:  # no mark where a run's budget leaves its recall unknown
                xs.append(x)
                ys.append(float(np.mean(recalls)))
                drawn.marks.add((a, b))
        if xs:
            ax.plot(xs, ys, ls="none", marker="o", ms=5, mfc="white", mec=colour, mew=1.4, gid="marks")
        for index, rule_marks in enumerate(stops[group]):
            marker = STOP_MARKERS[index % len(STOP_MARKERS)]
            inside = [s for s in rule_marks if s.effort <= xmax]
            beyond = [s for s in rule_marks if s.effort > xmax]
            if inside:
                drawn.inside.add(index)
            ax.plot(
                [s.effort for s in inside],
                [s.recall for s in inside],
                ls="none",
                marker=marker,
                ms=7,
                color=colour,
                mec="white",
                mew=0.6,
                gid="stop",
            )
            if beyond:  # not silently lost past the axis: hollow, on its right edge, at the stop's recall
                drawn.beyond.add(index)
                ax.plot(
                    [xmax] * len(beyond),
                    [s.recall for s in beyond],
                    ls="none",
                    marker=marker,
                    ms=7,
                    mfc="white",
                    mec=colour,
                    mew=1.4,
                    clip_on=False,
                    gid="stop-beyond",
                )
    if log:
        ax.set_xscale("log")
    ax.set_xlim(start if log else 0, xmax)
    ax.set_ylim(0, 1.04)
    ax.grid(True, color="0.9", lw=0.6)
    return drawn


def _legend_handles(stopping: Sequence[str], marks: Sequence[tuple[float, float]], average: bool, drawn: Drawn):
    """Legend entries of the aR+b marks and stop marks that some panel drew (none for a mark past the axis), and a
    text-only entry for a rule that never fired: the legend lists what the figure shows and what it cannot."""
    from matplotlib.lines import Line2D

    handles = []
    shown = [(a, b) for a, b in marks if (a, b) in drawn.marks]
    if shown:
        label = ", ".join(f"{a:g}R+{b:g}" for a, b in shown)
        handles.append(
            Line2D(
                [],
                [],
                ls="none",
                marker="o",
                mfc="white",
                mec="0.2",
                mew=1.4,
                label=f"Recall@{label}" + (" (mean)" if average else ""),
            )
        )
    for index, rule in enumerate(stopping):
        marker = STOP_MARKERS[index % len(STOP_MARKERS)]
        if index in drawn.inside:  # filled, as drawn inside the axis
            label = f"stop: {rule}" + (" (mean where fired)" if average else "")
            handles.append(Line2D([], [], ls="none", marker=marker, color="0.2", ms=7, label=label))
        if index in drawn.beyond:  # hollow, as drawn on the right edge
            label = f"stop: {rule} beyond the axis (at its right edge)"
            handles.append(Line2D([], [], ls="none", marker=marker, mfc="white", mec="0.2", mew=1.4, ms=7, label=label))
        if index not in drawn.inside and index not in drawn.beyond:  # asked for, so say why nothing is drawn
            handles.append(Line2D([], [], ls="none", marker="none", label=f"stop: {rule} did not stop in any run"))
    return handles


def plot_recall_effort(
    ledgers: Sequence[Ledger],
    effort_model: str = "judge",
    *,
    per_topic: bool = False,
    stopping: Sequence[str] = (),
    marks: Sequence[tuple[float, float]] = MARKS,
    group_by: Sequence[str] | None = None,
    xmax: float | None = None,
    columns: int | None = None,
    title: str | None = None,
    replay: Mapping | ReplayInputs | None = None,
    recall: str = "presented",
    xscale: str = "linear",
):
    """Recall-effort curves, averaged over topics (one panel) or per topic (small multiples); returns the Figure.

    `replay` holds what some stopping rules need (docids and qrels for target:T; see tarsim.stopping): one mapping
    for every ledger, or a function of the ledger (replay_inputs: ledgers of several collections). `recall`:
    `presented` (the paper's) or `found` (presented and labelled relevant); the y axis names it. `xscale`: `linear`
    or `log` effort axis.
    """
    if not ledgers:
        raise ConfigError("nothing to plot: no ledgers")
    if xscale not in XSCALES:
        raise ConfigError(f"x scale {xscale!r} unknown; accepted: {', '.join(XSCALES)}")
    ylabel = f"Recall ({check_recall_kind(recall)})"
    plt = _matplotlib()
    model = make_effort_model(effort_model)
    replay = _per_ledger(replay)
    groups = line_groups(ledgers, group_by)
    refuse_identical_runs(groups)  # the same run given twice would count twice in every mean
    styles = group_styles(list(groups))
    unit = model.unit if not model.name.startswith("lambda") else f"{model.name}: {model.unit}"
    xlabel = f"Effort ({unit})" + (", log scale" if xscale == "log" else "")
    band = band_note(ledgers, groups, per_topic)
    with plt.rc_context(STYLE):
        if not per_topic:
            fig, ax = plt.subplots(figsize=(7.0, 4.2), layout="constrained")
            drawn = _plot_panel(ax, groups, styles, model, xmax, marks, stopping, replay, True, recall, xscale)
            over = topics_text(groups)
            ax.set_title(
                title
                or titled(dataset_name(ledgers), f"mean recall{' ' + over if over else ''} by {unit}")
                + (f"\n({band})" if band else "")
            )
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            handles, _ = ax.get_legend_handles_labels()
            handles += _legend_handles(stopping, marks, True, drawn)
            fit_legend(fig, handles, base_height=3.5)
            return fig
        keys = sorted({pair_key(ledger)[:2] for ledger in ledgers}, key=lambda k: (k[1], k[0]))
        n = len(keys)
        ncols = columns or min(n, max(1, math.ceil(math.sqrt(n))))
        nrows = math.ceil(n / ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(max(3.1 * ncols + 0.4, 6.0), 2.6 * nrows + 0.9), squeeze=False, layout="constrained"
        )
        drawn = Drawn(perfect=True)
        for ax, key in zip(axes.flat, keys, strict=False):
            subset = {g: [run for run in runs if pair_key(run)[:2] == key] for g, runs in groups.items()}
            subset = {g: runs for g, runs in subset.items() if runs}
            panel = _plot_panel(ax, subset, styles, model, xmax, marks, stopping, replay, False, recall, xscale)
            drawn |= panel
            drawn.perfect &= panel.perfect
            sample = next(iter(subset.values()))[0]
            ax.set_title(f"{key[1]}\nR={sample.relevant}, N={sample.collection_size}", fontsize="medium")
        for ax in axes.flat[n:]:
            ax.remove()
        for column in range(ncols):
            used = [axes[row, column] for row in range(nrows) if row * ncols + column < n]
            if used:
                used[-1].set_xlabel(xlabel)
        for ax in axes[:, 0]:
            ax.set_ylabel(ylabel)
        handles = _per_topic_handles(groups, styles, model, drawn, keys) + _legend_handles(
            stopping, marks, False, drawn
        )
        fit_legend(fig, handles, 2 if ncols < 3 else 3, base_height=2.6 * nrows + 0.6)
        fig.suptitle(
            title or titled(dataset_name(ledgers), f"recall per topic by {unit}") + (f" ({band})" if band else "")
        )
        return fig


def panel_counts(runs: Sequence[Ledger], keys: Sequence[tuple]) -> list[int]:
    """A line's runs in each panel (topic key) where it is drawn: what its legend entry counts."""
    counts = [sum(1 for run in runs if pair_key(run)[:2] == key) for key in keys]
    return [count for count in counts if count] or [0]


def fit_legend(fig, handles, ncols: int = 2, base_height: float = 0.0) -> None:
    """The figure's legend below its axes (constrained layout reserves the room), with fewer columns while it is
    wider than the figure, and in one column the longest labels wrapped (long labels used to squeeze the axes to make
    room for the legend); with `base_height` (inches: the axes and their labels), the figure is made taller by the
    legend's height rather than its axes flatter."""
    renderer = fig.canvas.get_renderer()
    limit = 0.98 * fig.bbox.width
    for columns in range(ncols, 0, -1):
        legend = fig.legend(handles=handles, loc="outside lower center", ncols=columns, frameon=False)
        width = legend.get_window_extent(renderer).width
        if width <= limit:
            break
        legend.remove()
    else:
        legend = _wrapped_legend(fig, handles, limit, width)
    if base_height:
        height = legend.get_window_extent(renderer).height / fig.dpi
        fig.set_figheight(max(fig.get_figheight(), base_height + height + 0.15))


def _wrapped_legend(fig, handles, limit: float, width: float):
    """One column with labels wrapped to about the figure's width."""
    import textwrap

    longest = max(len(handle.get_label()) for handle in handles)
    chars = max(30, int(longest * limit / width) - 4)
    for handle in handles:
        handle.set_label(textwrap.fill(handle.get_label(), chars, subsequent_indent="  "))
    return fig.legend(handles=handles, loc="outside lower center", ncols=1, frameon=False)


def _per_topic_handles(
    groups: Mapping[str, Sequence[Ledger]], styles: Mapping[str, tuple], model, drawn: Drawn, keys: Sequence[tuple]
):
    """The small multiples' shared legend: each line with its runs per panel, the reference lines drawn, and a note
    when some panel drew a line dashed because it equals another there."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D(
            [], [], color=styles[g][0], ls=styles[g][1], lw=1.8, label=runs_label(g, panel_counts(runs, keys), "panel")
        )
        for g, runs in groups.items()
    ]
    exact = model.name == "judge"
    if drawn.perfect:
        label = "perfect review" if exact else "perfect review (bound: cheapest judgment)"
        handles.append(Line2D([], [], ls="--", color="0.35", label=label))
    handles.append(Line2D([], [], ls=":", color="0.35", label="random review" + ("" if exact else " (est.)")))
    if drawn.identical:
        handles.append(
            Line2D([], [], ls=IDENTICAL_DASHES, color="0.2", label="dashed: identical to another line in its panel")
        )
    return handles


LOG_ADVISED_RATIO = 10.0
"""When the axis end is this many times the effort at which the fastest line found its last relevant document, that
line sits in the leftmost 10% of a linear axis: `tarsim plot` then suggests --xscale log."""


def log_scale_advised(ledgers: Sequence[Ledger], effort_model: str, group_by=None, recall: str = "presented") -> bool:
    """Whether a linear effort axis would squeeze some line against its left edge (see LOG_ADVISED_RATIO)."""
    model = make_effort_model(effort_model)
    groups = line_groups(ledgers, group_by)
    ends = [_x_limit(runs, model, recall) for runs in groups.values() if runs]
    return len(ends) > 1 and min(ends) > 0 and max(ends) / min(ends) >= LOG_ADVISED_RATIO


def save_figure(fig, path) -> Path:
    """Write a figure atomically; the format follows the suffix (png, svg or pdf); PNG at 200 dpi."""
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ConfigError(
            f"figure file {str(path)!r}: format {suffix or '(none)'!r} unknown; accepted: {', '.join(FORMATS)}"
        )
    metadata = (
        {"Software": None} if suffix == "png" else ({"Date": None} if suffix == "svg" else {"CreationDate": None})
    )
    plt = _matplotlib()
    with atomic_write(path, "wb") as handle, plt.rc_context({"svg.hashsalt": "tarsim", "svg.fonttype": "none"}):
        fig.savefig(handle, format=suffix, dpi=200, metadata=metadata, bbox_inches="tight", pad_inches=0.05)
    return path
