"""The interactive figures of the HTML report as Vega-Lite specs (built with altair): recall by effort, WSS and
ERF by share screened (ASReview Insights'), and where stopping rules stop. Each hovers to the run and its values
(group, topic, seed) and each strategy's lines can be toggled by clicking its legend entry. Every figure is returned
with the number of marks it must render (`Figure.marks`), which the report's browser test checks.

The data are thinned before they reach the page: a run's recall-effort curve keeps only the points where recall
rises (and its last), Insights' curves are read on a 101-point grid, so that a study of hundreds of runs stays a
page of a few megabytes.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model
from tarsim.metrics.recall_effort import recall_curve
from tarsim.reporting.compare import pair_key, replicate_name
from tarsim.reporting.figure_text import band_note, dataset_name, identical_to, runs_label, titled
from tarsim.reporting.plots import PALETTE, _x_limit

WIDTH, HEIGHT = 640, 320
INSIGHTS_POINTS = 101
MEAN_POINTS = 300


@dataclass(frozen=True)
class Figure:
    """One figure of the page: its id (the element it is drawn in), heading, Vega-Lite spec and expected marks:
    per Vega mark type (`line`, `symbol`), how many paths the SVG renderer draws."""

    id: str
    heading: str
    spec: dict
    marks: dict[str, int]
    note: str = ""


LABEL_LIMIT = 420
"""Pixels a legend label may take (Vega-Lite cuts at 160: groups that differ only at the end looked the same)."""


def _group_colour(alt, names):
    """The colour channel of the groups: the CLI's colours, a legend that toggles them, labels shown whole."""
    legend = alt.Legend(labelLimit=LABEL_LIMIT)
    return alt.Color("group:N", scale=_colour_scale(alt, names), title="group (click to show one)", legend=legend)


def _altair():
    from tarsim.errors import require

    return require("altair", "report", "tarsim report --html")


def _colour_scale(alt, groups: Sequence[str]):
    return alt.Scale(domain=list(groups), range=[PALETTE[i % len(PALETTE)] for i in range(len(groups))])


def _run_fields(ledger: Ledger, group: str) -> dict:
    _, topic, replicate = pair_key(ledger)
    return {
        "group": group,
        "topic": topic,
        "seed": replicate_name(replicate),
        "run": f"{group.split(' (n = ')[0]} | {topic} | seed {replicate_name(replicate)}",
    }


def recall_effort_figure(groups: Mapping[str, Sequence[Ledger]], effort_model: str, recall: str) -> Figure:
    """Every run's recall-effort curve (thin, hover: the run, its effort and recall) and each group's mean over its
    runs (thick); a click on a legend entry shows that group alone."""
    alt = _altair()
    import pandas as pd

    model = make_effort_model(effort_model)
    everyone = [ledger for ledgers in groups.values() for ledger in ledgers]
    limit = _x_limit(everyone, model, recall)  # as the PNG figures: just past the slowest run's last relevant
    grid = np.linspace(0.0, limit, MEAN_POINTS)  # every mean on one grid up to the axis end
    runs, means = [], []
    mean_curves: dict[str, np.ndarray] = {}
    group_runs: dict[str, int] = {}
    for name, ledgers in groups.items():
        group = runs_label(name, len(ledgers))  # the legend says how many runs each line is
        group_runs[group] = len(ledgers)
        curves = [recall_curve(ledger, model, recall=recall) for ledger in ledgers]
        for ledger, curve in zip(ledgers, curves, strict=True):
            keep = np.flatnonzero(np.diff(np.concatenate([[0.0], curve.recall])) > 0)
            keep = np.unique(np.concatenate([keep, [len(curve.effort) - 1]])) if len(curve.effort) else keep
            fields = _run_fields(ledger, group)
            runs.append({**fields, "effort": 0.0, "recall": 0.0})
            runs.extend(
                {**fields, "effort": float(curve.effort[i]), "recall": round(float(curve.recall[i]), 4)} for i in keep
            )
        with warnings.catch_warnings():  # where no run's recall is known (budget-stopped runs): no mean point
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean([curve.known_recall_on(grid) for curve in curves], axis=0)
        mean_curves[group] = mean
    same = identical_to(mean_curves)  # a mean equal to an earlier one is dashed over it, so that both show
    for group, mean in mean_curves.items():
        means.extend(
            {
                "group": group,
                "effort": float(x),
                "recall": round(float(y), 4),
                "runs": int(group_runs[group]),
                "identical to": same.get(group, ""),
                "dashed": group in same,
            }
            for x, y in zip(grid, mean, strict=True)
            if np.isfinite(y)
        )
    names = list(mean_curves)
    pick = alt.selection_point(fields=["group"], bind="legend")
    colour = _group_colour(alt, names)
    unit = f"{model.name}: {model.unit}" if model.name.startswith("lambda") else model.unit  # as the PNG figures
    x = alt.X("effort:Q", title=f"Effort ({unit})", scale=alt.Scale(domain=[0, limit], clamp=True))
    y = alt.Y("recall:Q", title=f"Recall ({recall})", scale=alt.Scale(domain=[0, 1]))
    thin = (
        alt.Chart(pd.DataFrame(runs))
        .mark_line(strokeWidth=0.8, interpolate="step-after", clip=True)
        .encode(
            x=x,
            y=y,
            color=colour,
            detail="run:N",
            opacity=alt.condition(pick, alt.value(0.35), alt.value(0.03)),
            tooltip=["run:N", "topic:N", "seed:N", alt.Tooltip("effort:Q", format=".1f"), "recall:Q"],
        )
    )
    thick = (
        alt.Chart(pd.DataFrame(means))
        .mark_line(strokeWidth=2.6, clip=True)
        .encode(
            x=x,
            y=y,
            color=colour,
            strokeDash=alt.StrokeDash(
                "dashed:N", scale=alt.Scale(domain=[False, True], range=[[1, 0], [6, 4]]), legend=None
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.1)),
            tooltip=[
                "group:N",
                "runs:Q",
                "identical to:N",
                alt.Tooltip("effort:Q", format=".1f"),
                alt.Tooltip("recall:Q", title="mean recall"),
            ],
        )
    )
    topics = len({pair_key(ledger)[:2] for ledger in everyone})
    heading = titled(dataset_name(everyone), f"recall by {unit}, {topics} topic{'s' if topics != 1 else ''}")
    chart = alt.layer(thin, thick).add_params(pick).properties(width=WIDTH, height=HEIGHT, title=heading)
    note = (
        "thin: one line per run; thick: the mean of each group's runs ("
        + ", ".join(runs_label(name, len(ledgers)) for name, ledgers in groups.items())
        + ")"
        + "".join(f"; {later} is identical to {earlier} (dashed over it)" for later, earlier in same.items())
    )
    return Figure(
        element_id(f"recall-{model.name}"),
        heading,
        chart.to_dict(),
        {"line": len(runs_of(groups)) + len(groups)},
        note,
    )


def element_id(text: str) -> str:
    """An HTML id that is also a plain CSS selector: letters, digits, `-` and `_` only, starting with a letter
    (`recall-lambda:0.5` -> `recall-lambda-0-5`); the page makes repeated ids unique (html_report)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return safe if safe[:1].isalpha() else f"figure-{safe}"


def runs_of(groups: Mapping[str, Sequence[Ledger]]) -> list[Ledger]:
    return [ledger for ledgers in groups.values() for ledger in ledgers]


def insights_figure(groups: Mapping[str, Sequence[Ledger]], kind: str, recall: str) -> Figure:
    """ASReview Insights' WSS (by recall) or ERF (by share screened): each group's mean over its runs, with a
    min-max band over its replicates (seeds or prior seeds); hover: the group and values."""
    alt = _altair()
    import pandas as pd

    from tarsim.reporting.insights_plots import insights_groups, replicate_curves

    grid = np.linspace(0.0, 1.0, INSIGHTS_POINTS)
    rows = []
    group_of = {id(ledger): name for name, ledgers in groups.items() for ledger in ledgers}
    screens = insights_groups(runs_of(groups), kind, "exclude", None, recall)
    regrouped: dict[str, list] = {}
    for runs in screens.values():
        for ledger, screen in runs:
            regrouped.setdefault(group_of[id(ledger)], []).append((ledger, screen))
    regrouped = {runs_label(name, len(runs)): runs for name, runs in regrouped.items()}
    for name, runs in regrouped.items():
        curves, _ = replicate_curves(runs, kind, grid)
        with warnings.catch_warnings():  # a recall level no replicate reached is NaN there, and left out below
            warnings.simplefilter("ignore", RuntimeWarning)
            low, mean, high = np.nanmin(curves, axis=0), np.nanmean(curves, axis=0), np.nanmax(curves, axis=0)
        for x, lo, m, hi in zip(grid, low, mean, high, strict=True):
            if np.isfinite(m):
                rows.append(
                    {
                        "group": name,
                        "x": float(x),
                        "value": round(float(m), 4),
                        "low": float(lo),
                        "high": float(hi),
                        "runs": len(runs),
                    }
                )
    names = list(regrouped)
    pick = alt.selection_point(fields=["group"], bind="legend")
    colour = _group_colour(alt, names)
    xtitle = f"Recall ({recall})" if kind == "wss" else "Proportion of labeled records"
    ytitle = "WSS" if kind == "wss" else "ERF"
    base = alt.Chart(pd.DataFrame(rows)).encode(x=alt.X("x:Q", title=xtitle), color=colour)
    band = base.mark_area(opacity=0.18).encode(
        y="low:Q", y2="high:Q", opacity=alt.condition(pick, alt.value(0.18), alt.value(0.02))
    )
    line = base.mark_line(strokeWidth=2.2).encode(
        y=alt.Y("value:Q", title=ytitle),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.1)),
        tooltip=[
            "group:N",
            "runs:Q",
            alt.Tooltip("x:Q", title=xtitle, format=".2f"),
            alt.Tooltip("value:Q", title=ytitle),
        ],
    )
    everyone = [ledger for runs in regrouped.values() for ledger, _ in runs]
    what = "Work Saved over Sampling by recall" if kind == "wss" else "Extra Relevant records Found by share screened"
    band_text = band_note(everyone, {name: [ledger for ledger, _ in runs] for name, runs in regrouped.items()})
    heading = titled(dataset_name(everyone), what) + (f" ({band_text})" if band_text else "")
    chart = alt.layer(band, line).add_params(pick).properties(width=WIDTH, height=HEIGHT, title=heading)
    return Figure(f"insights-{kind}", heading, chart.to_dict(), {"line": len(names)})


def stopping_figure(
    groups: Mapping[str, Sequence[Ledger]], rules: Sequence[str], replay, skipped: dict[str, str] | None = None
) -> Figure | None:
    """Where each stopping rule stops each run: judgments at the stop against recall at the stop, one colour per
    group and one shape per rule; hover: the run, the rule and its values. None when no rule fired in any run.

    With `skipped` (a dict), a rule that cannot be replayed on these ledgers (target:T without the collection) is
    left out and recorded there with the reason; without it, that is an error."""
    alt = _altair()
    import pandas as pd

    from tarsim.errors import TarsimError
    from tarsim.stopping import evaluate_stopping

    rows = []
    for group, ledgers in groups.items():
        for ledger in ledgers:
            for rule in rules:
                if skipped is not None and rule in skipped:
                    continue
                try:
                    outcome = evaluate_stopping(ledger, rule, effort_models=["judge"], **replay(ledger))
                except TarsimError as error:
                    if skipped is None:
                        raise
                    skipped[rule] = str(error)
                    continue
                if outcome.stopped:
                    rows.append(
                        {
                            **_run_fields(ledger, runs_label(group, len(ledgers))),
                            "rule": rule,
                            "judgments": float(outcome.effort["judge"]),
                            "recall": round(float(outcome.recall), 4),
                        }
                    )
    if not rows:
        return None
    names = [runs_label(name, len(ledgers)) for name, ledgers in groups.items()]
    pick = alt.selection_point(fields=["group"], bind="legend")
    chart = (
        alt.Chart(pd.DataFrame(rows))
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X("judgments:Q", title="Judgments at the stop"),
            y=alt.Y("recall:Q", title="Recall at the stop", scale=alt.Scale(domain=[0, 1])),
            color=_group_colour(alt, names),
            shape=alt.Shape("rule:N", title="stopping rule"),
            opacity=alt.condition(pick, alt.value(0.85), alt.value(0.08)),
            tooltip=["run:N", "rule:N", "judgments:Q", "recall:Q"],
        )
        .add_params(pick)
        .properties(width=WIDTH, height=HEIGHT, title="Where the stopping rules stop (one point per run and rule)")
    )
    return Figure(
        "stopping", "Stopping", chart.to_dict(), {"symbol": len(rows)}, stopping_caption(rules, rows, skipped)
    )


def stopping_caption(rules: Sequence[str], rows: Sequence[dict], skipped: Mapping[str, str] | None) -> str:
    """The stopping figure's caption: the rules replayed, one point per run where a rule stopped it, and the rules
    that never fired in any run (not drawn: they have no stopping point) or were left out."""
    fired = list(dict.fromkeys(row["rule"] for row in rows))
    left_out = [rule for rule in rules if skipped and rule in skipped]
    never = [rule for rule in rules if rule not in fired and rule not in left_out]
    text = (
        f"Stopping rules replayed on every run: {', '.join(r for r in rules if r not in left_out)}. One point per run "
        "and rule where the rule stopped the review (shape: the rule; colour: the group); a run a rule never stopped "
        "has no point."
    )
    if never:
        text += f" Not drawn, as they stopped no run: {', '.join(never)}."
    if left_out:
        text += f" Left out (see below): {', '.join(left_out)}."
    return text
