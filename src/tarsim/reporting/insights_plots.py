"""ASReview Insights' figures (recall, WSS, ERF by share screened) from ledgers, one line per tool, in tarsim's
colours: the mean over a tool's reviews with a min-max band over its replicates (seeds or prior seeds, each
averaged over topics, as the recall-effort figures band), legend entries that give each line's runs, a line equal
to an earlier one drawn dashed on top of it ("identical to"), and a title naming the dataset; averaged over topics
in one panel, or one panel per topic (`per_topic`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
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
from tarsim.reporting.plots import STYLE, _matplotlib, fit_legend, group_styles, panel_counts

INSIGHTS_KINDS = ("recall", "wss", "erf")
INSIGHTS_GRID = 1001


def _insights_curve(screen, kind: str, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One review's curve on `grid` (share screened, or recall for wss) and its random-screening reference."""
    from tarsim.metrics.insights import _random_found

    n, r = screen.n, screen.relevant
    found = np.cumsum(screen.labels)
    if kind == "wss":
        levels = np.arange(1, r + 1)
        when = np.searchsorted(found, levels).astype(float)
        when[when >= n] = np.nan  # a level never reached has no WSS
        values = (np.searchsorted(_random_found(r, n), levels) - when) / n
        index = np.searchsorted(levels / r, grid, side="right") - 1
        return np.where(index >= 0, values[np.maximum(index, 0)], np.nan), np.zeros_like(grid)
    k = np.searchsorted(np.arange(1, n + 1) / n, grid, side="right")  # records screened at each share
    got = np.where(k > 0, found[np.maximum(k - 1, 0)], 0) / r
    random = np.where(k > 0, _random_found(r, n)[np.maximum(k - 1, 0)], 0) / r
    if kind == "recall":
        return got, random
    return got - random, np.zeros_like(grid)


def insights_groups(
    ledgers: Sequence[Ledger], kind: str, priors: str, group_by: Sequence[str] | None, recall: str
) -> dict[str, list[tuple[Ledger, object]]]:
    """The runs of each line (tool, or `group_by` fields) with their screening sequences, those with a relevant
    record only; refuses an unknown kind and the same run given twice."""
    from tarsim.metrics.insights import screening, tool_of

    if kind not in INSIGHTS_KINDS:
        raise ConfigError(f"plot kind {kind!r} unknown; accepted: effort, {', '.join(INSIGHTS_KINDS)}")
    if not ledgers:
        raise ConfigError("nothing to plot: no ledgers")
    groups: dict[str, list[Ledger]] = {}
    if group_by:
        groups = line_groups(ledgers, group_by)
    else:
        for ledger in ledgers:
            groups.setdefault(tool_of(ledger), []).append(ledger)
    refuse_identical_runs(groups)
    screens = {
        name: [(ledger, screening(ledger, priors, recall=recall)) for ledger in runs] for name, runs in groups.items()
    }
    screens = {name: [(ledger, s) for ledger, s in runs if s.relevant > 0] for name, runs in screens.items()}
    screens = {name: runs for name, runs in screens.items() if runs}
    if not screens:
        raise ConfigError("nothing to plot: no review has a relevant record")
    return screens


def replicate_curves(runs: Sequence[tuple[Ledger, object]], kind: str, grid: np.ndarray) -> tuple[np.ndarray, list]:
    """Rows: one per replicate (seed or prior seed), its curve averaged over the topics it reviewed; and every
    run's random-screening reference."""
    by_replicate: dict[tuple, list[np.ndarray]] = {}
    references = []
    for ledger, screen in runs:
        curve, reference = _insights_curve(screen, kind, grid)
        by_replicate.setdefault(pair_key(ledger)[2], []).append(curve)
        references.append(reference)
    rows = [np.mean(curves, axis=0) for _, curves in sorted(by_replicate.items(), key=lambda item: str(item[0]))]
    return np.array(rows), references


def _draw(ax, screens: Mapping[str, list], styles: Mapping[str, tuple], kind: str, grid: np.ndarray) -> dict:
    """One panel: per line its mean (dashed when identical to an earlier line) and band; the reference lines.
    Returns the lines identical to another (name -> the earlier line's name)."""
    curves = {name: replicate_curves(runs, kind, grid) for name, runs in screens.items()}
    means = {name: rows.mean(axis=0) for name, (rows, _) in curves.items()}
    identical = identical_to(means)
    references = []
    for name, (rows, refs) in curves.items():
        references.extend(refs)
        colour, style = styles[name]
        label = runs_label(name, len(screens[name]))
        if name in identical:
            style, label = IDENTICAL_DASHES, f"{label}, identical to {identical[name]}"
        if len(rows) > 1:
            ax.fill_between(
                grid, rows.min(axis=0), rows.max(axis=0), step="post", color=colour, alpha=0.18, lw=0, gid="band"
            )
        ax.step(grid, means[name], where="post", color=colour, ls=style, lw=1.8, label=label, gid="tool")
    ax.step(grid, np.mean(references, axis=0), where="post", color="black", lw=1.0, label="random screening")
    if kind == "recall":
        reviews = [screen for runs in screens.values() for _, screen in runs]
        perfect = np.mean([np.minimum(1.0, np.floor(grid * s.n + 1e-9) / s.relevant) for s in reviews], axis=0)
        ax.step(grid, perfect, where="post", color="grey", lw=1.0, label="perfect review")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("Recall" if kind == "wss" else "Proportion of labeled records")
    return identical


def plot_insights(
    ledgers: Sequence[Ledger],
    kind: str = "recall",
    *,
    priors: str = "exclude",
    group_by: Sequence[str] | None = None,
    title: str | None = None,
    recall: str = "presented",
    per_topic: bool = False,
    columns: int | None = None,
):
    """ASReview Insights' recall, WSS or ERF figure, one line per tool (tarsim preset or strategy, "asreview", an
    order file's name; or per `group_by` fields), averaged over its reviews, with a band over replicates; the
    reference lines are Insights': random screening (and, for recall, a perfect review); WSS and ERF are 0 for
    random screening. `per_topic`: one panel per topic."""
    screens = insights_groups(ledgers, kind, priors, group_by, recall)
    styles = group_styles(list(screens))
    grid = np.linspace(0.0, 1.0, INSIGHTS_GRID)
    labels = {
        "recall": ("recall", f"Recall ({recall})"),
        "wss": (f"Work Saved over Sampling (WSS) by recall ({recall})", "WSS"),
    }
    heading, ylabel = labels.get(kind, ("Extra Relevant records Found (ERF)", "ERF"))
    used = [ledger for runs in screens.values() for ledger, _ in runs]
    lines = {name: [ledger for ledger, _ in runs] for name, runs in screens.items()}
    band = band_note(used, lines, per_topic)
    topics = sorted({pair_key(ledger)[:2] for ledger in used}, key=lambda k: (k[1], k[0]))
    plt = _matplotlib()
    with plt.rc_context(STYLE):
        if not per_topic:
            fig, ax = plt.subplots(figsize=(6.4, 4.6), layout="constrained")
            _draw(ax, screens, styles, kind, grid)
            ax.set_ylabel(ylabel)
            over = topics_text(lines)  # "" when each line is one topic (grouped by topic)
            what = f"mean {heading} {over}" if over else heading
            ax.set_title(title or titled(dataset_name(used), what) + (f"\n({band})" if band else ""))
            if len(screens) > 4:  # a long legend below the axes, so that it hides no line and keeps their width
                handles, _ = ax.get_legend_handles_labels()
                fit_legend(fig, handles, base_height=4.0)
            else:
                ax.legend(loc="best", frameon=False)
            return fig
        ncols = columns or min(len(topics), max(1, math.ceil(math.sqrt(len(topics)))))
        nrows = math.ceil(len(topics) / ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(max(3.4 * ncols + 0.4, 6.0), 2.8 * nrows + 1.2), squeeze=False, layout="constrained"
        )
        identical = False
        for ax, key in zip(axes.flat, topics, strict=False):
            subset = {n: [(lg, s) for lg, s in runs if pair_key(lg)[:2] == key] for n, runs in screens.items()}
            identical |= bool(_draw(ax, {n: runs for n, runs in subset.items() if runs}, styles, kind, grid))
            ax.set_title(key[1], fontsize="medium")
            ax.set_ylabel(ylabel)
        for ax in axes.flat[len(topics) :]:
            ax.remove()
        handles = _shared_handles(screens, styles, kind, identical, topics)
        fit_legend(fig, handles, base_height=2.8 * nrows + 0.9)
        fig.suptitle(title or titled(dataset_name(used), f"{heading} per topic") + (f" ({band})" if band else ""))
        return fig


def _shared_handles(
    screens: Mapping[str, list], styles: Mapping[str, tuple], kind: str, identical: bool, topics: Sequence[tuple]
):
    """The small multiples' one legend: each line with its runs per panel, the reference lines, and a note when some
    panel drew a line dashed because it equals another there."""
    from matplotlib.lines import Line2D

    handles = []
    for name, runs in screens.items():
        label = runs_label(name, panel_counts([ledger for ledger, _ in runs], topics), "panel")
        handles.append(Line2D([], [], color=styles[name][0], ls=styles[name][1], lw=1.8, label=label))
    handles.append(Line2D([], [], color="black", lw=1.0, label="random screening"))
    if kind == "recall":
        handles.append(Line2D([], [], color="grey", lw=1.0, label="perfect review"))
    if identical:
        handles.append(
            Line2D([], [], ls=IDENTICAL_DASHES, color="0.2", label="dashed: identical to another line in its panel")
        )
    return handles
