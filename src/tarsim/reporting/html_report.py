"""One self-contained HTML page of a study (`tarsim report OUT --html FILE`): its configuration and the versions
that produced it, the per-group tables (mean +/- sd over runs, and per topic), interactive figures (recall by
effort, WSS, ERF, stopping; tarsim.reporting.html_charts) and the commands that reproduce it.

The page needs no network when viewed: the Vega, Vega-Lite and vega-embed JavaScript is inlined once (the bundle
vl-convert ships, as altair's `inline=True` uses), and each figure's spec and data are inlined beside it. Charts
are drawn as SVG; a script records any error into `window.tarsimErrors` and sets `data-rendered` on the body once
every figure is drawn (what the browser test waits for).
"""

from __future__ import annotations

import html
import json
import platform
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.reporting.compare import _flat_config, pair_key, run_scores
from tarsim.reporting.figure_text import dataset_name, replicate_count
from tarsim.reporting.html_charts import Figure, insights_figure, recall_effort_figure, stopping_figure
from tarsim.reporting.line_groups import line_groups
from tarsim.reporting.reproduce import group_commands, sweep_command
from tarsim.reporting.study_tables import collection_names, split_fields
from tarsim.reporting.vega_bundle import Bundling

MEASURES = ("Recall@1R+100", "Recall@2R+100", "Recall@4R+100", "WSS@95", "effort to 95% recall")
HEADLINE = "Recall@2R+100"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; }
td { overflow-wrap: anywhere; }
.strata td { white-space: pre-line; }
.strata th:nth-child(2), .strata td:nth-child(2) { text-align: left; }
.strata td:nth-child(n+3) { white-space: pre; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.figure { margin: 1em 0 2em; min-height: 360px; }
.note { color: #555; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
"""


def versions() -> dict[str, str]:
    """The versions that produced the page: tarsim, Python, the numeric libraries, altair and Vega-Lite."""
    from importlib.metadata import PackageNotFoundError, version

    from tarsim.version import __version__

    found = {"tarsim": __version__, "python": platform.python_version(), "platform": platform.platform()}
    for package in ("numpy", "scipy", "scikit-learn", "pandas", "altair", "vl-convert-python"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:  # pragma: no cover - every one is a dependency or of the report extra
            found[package] = "not installed"
    import altair

    found["vega-lite"] = altair.SCHEMA_VERSION.lstrip("v")
    return found


def _table(header: Sequence[str], rows: Sequence[Sequence], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    table = f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f'<div class="scroll">{table}</div>'  # a wide table scrolls inside the page, never widens it


def configuration_section(groups: Mapping[str, Sequence[Ledger]]) -> str:
    """The settings every run shares, then those that tell the groups apart (one row per group)."""
    flat = {name: [_flat_config(ledger) for ledger in ledgers] for name, ledgers in groups.items()}
    everyone = [config for configs in flat.values() for config in configs]
    keys = sorted({key for config in everyone for key in config})
    shared = [key for key in keys if len({config.get(key) for config in everyone}) == 1]
    differ = [key for key in keys if key not in shared and key not in ("seed", "prior_seed")]
    parts = ["<h2>Configuration</h2>", f"<details><summary>Settings of every run ({len(shared)})</summary>"]
    parts.append(_table(["setting", "value"], [(key, everyone[0].get(key, "")) for key in shared]) + "</details>")
    if differ:
        parts.append("<h3>Settings that differ between groups</h3>")
        rows = [
            (name, *(" / ".join(sorted({c.get(key, "") for c in configs})) for key in differ))
            for name, configs in flat.items()
        ]
        parts.append(_table(["group", *differ], rows))
    return "\n".join(parts)


def _cell(values) -> str:
    values = [float(v) for v in values if v is not None and v == v]
    if not values:
        return "-"
    import numpy as np

    mean = float(np.mean(values))
    digits = 3 if abs(mean) <= 1 else 1
    sd = f" ± {np.std(values, ddof=1):.{digits}f}" if len(values) > 1 else ""
    return f"{mean:.{digits}f}{sd}"


def tables_section(ledgers: Sequence[Ledger], group_by, effort_model: str, recall: str) -> str:
    """Per group: mean ± sd over its runs of the headline measures; then per group and topic, Recall@2R+100."""
    scores = run_scores(ledgers, effort_model, grid_a=(1, 2, 4), grid_b=(100,), group_by=group_by, recall=recall)
    groups = list(dict.fromkeys(scores["group"]))
    rows = []
    for group in groups:
        mine = scores[scores["group"] == group]
        runs = len(mine[["topic", "seed", "collection"]].drop_duplicates())
        rows.append((group, runs, *(_cell(mine.loc[mine["measure"] == m, "value"]) for m in MEASURES)))
    parts = [
        "<h2>Tables</h2>",
        f"<p class='note'>Mean ± sd over each group's runs; effort in {html.escape(effort_model)} units, recall "
        f"{html.escape(recall)}; Recall@aR+b is recall after aR+b effort (R: the topic's relevant documents); WSS@95 "
        "is ASReview Insights' work saved over sampling at 95% recall; '-': never reached.</p>",
        _table(["group", "runs", *MEASURES], rows),
    ]
    topics = list(dict.fromkeys(scores["topic"]))
    headline = scores[scores["measure"] == HEADLINE]
    per_topic = [
        (
            topic,
            *(_cell(headline.loc[(headline["group"] == g) & (headline["topic"] == topic), "value"]) for g in groups),
        )
        for topic in topics
    ]
    _, noun = replicate_count(ledgers)  # "prior seeds" when only the prior seed varies, as the figures say
    heading = f"{HEADLINE} per topic (mean ± sd over each group's runs of the topic: its {noun})"
    parts += [f"<h3>{html.escape(heading)}</h3>", _table(["topic", *groups], per_topic)]
    return "\n".join(parts)


def collections_section(ledgers: Sequence[Ledger], group_by, effort_model: str, recall: str) -> str:
    """Runs of several collections: per collection and group, mean ± sd [95% CI] of the headline measures, as
    `tarsim compare --group-by collection` prints them (reporting.study_tables); "" for one collection."""
    if len(set(collection_names(ledgers))) < 2:
        return ""
    from tarsim.reporting.study_tables import grouped_comparison
    from tarsim.reporting.table_formats import digits_for, mean_cell

    rows = grouped_comparison(ledgers, "", effort_model, ["collection"], group_by, None, recall, tests=False)
    measures = [m for m in MEASURES if any(row["measure"] == m for row in rows)]
    digits = {m: digits_for([row["mean"] for row in rows if row["measure"] == m]) for m in measures}
    cells: dict[tuple, dict[str, str]] = {}
    runs: dict[tuple, int] = {}
    for row in rows:
        if row["measure"] in measures:
            key = (row["collection"], row["group"])
            runs[key] = max(runs.get(key, 0), row["runs"])
            cell = mean_cell(row["mean"], row["sd"], row["ci_low"], row["ci_high"], digits[row["measure"]])
            cell = cell.replace(" [", "\n[")  # the interval on its own line: the table fits the page
            cells.setdefault(key, {})[row["measure"]] = cell + (
                f" ({row['n']} of {row['runs']})" if row["n"] < row["runs"] else ""
            )
    body = [(*key, runs[key], *(cells[key].get(m, "-") for m in measures)) for key in cells]
    return "\n".join(
        [
            "<h3>Per collection</h3>",
            "<p class='note'>The runs span several collections: per collection and group, mean ± sd [95% bootstrap "
            "CI] over its runs, as <code>tarsim compare --group-by collection</code> prints them; (k of n): the "
            "measure is known in k of the n runs. The table above pools the collections.</p>",
            _table(["collection", "group", "runs", *measures], body, "strata"),
        ]
    )


def reproduce_section(groups: Mapping[str, Sequence[Ledger]], replay, commands: Sequence[str]) -> str:
    """The commands that reproduce the reviews, per run group (derived from the ledger headers: reproduce.py), then
    those that reproduce this page."""
    parts = [
        "<h2>Reproduce</h2>",
        "<p class='note'>Each command below writes the same ledgers, byte for byte, into a new folder (the same "
        "tarsim version); they are derived from the settings every ledger records.</p>",
    ]
    for entry in group_commands(groups, replay):
        parts.append(f"<h3>{html.escape(entry.group)}</h3>")
        parts.append("<pre class='reproduce'>" + html.escape("\n".join(entry.lines)) + "</pre>" if entry.lines else "")
        parts += [f"<p class='note'>{html.escape(note)}</p>" for note in entry.notes]
    swept = sweep_command([ledger for ledgers in groups.values() for ledger in ledgers], replay)
    if swept is not None and not swept.toml:
        parts += ["<h3>The sweep</h3>", *(f"<p class='note'>{html.escape(note)}</p>" for note in swept.notes)]
    elif swept is not None:
        parts += [
            "<h3>The sweep</h3>",
            "<p class='note'>Save this file as study.toml, then run the command below it (the file is derived from "
            "the runs' headers: a sweep keeps no copy of its own).</p>",
            "<pre class='reproduce-sweep'>" + html.escape(swept.toml) + "</pre>",
            "<pre class='reproduce'>" + html.escape(swept.command) + "</pre>",
            *(f"<p class='note'>{html.escape(note)}</p>" for note in swept.notes),
        ]
    if commands:
        parts += ["<h3>This page</h3>", "<pre>" + html.escape("\n".join(commands)) + "</pre>"]
    return "\n".join(part for part in parts if part)


def unique_ids(figures: Sequence[Figure]) -> list[Figure]:
    """The figures with ids unique on the page (a repeated id gets `-2`, `-3`, ...): each is drawn in its own
    element."""
    from dataclasses import replace

    seen: set[str] = set()
    unique = []
    for figure in figures:
        name, count = figure.id, 1
        while name in seen:
            count += 1
            name = f"{figure.id}-{count}"
        seen.add(name)
        unique.append(replace(figure, id=name))
    return unique


def _script_json(value) -> str:
    """JSON safe inside a <script> element (no `</` can close it)."""
    return json.dumps(value).replace("</", "<\\/")


def _figures_section(figures: Sequence[Figure]) -> str:
    parts = [
        "<h2>Figures</h2>",
        "<p class='note'>Hover a line or point for its run and values; click a legend entry "
        "to show that group alone (shift-click for several, double-click to show all).</p>",
    ]
    for figure in figures:
        parts.append(f"<h3>{html.escape(figure.heading)}</h3>")
        parts.append(
            f'<div class="figure" id="{figure.id}" data-marks="{html.escape(json.dumps(figure.marks))}"></div>'
        )
        if figure.note:
            parts.append(f"<p class='note'>{html.escape(figure.note)}</p>")
    return "\n".join(parts)


EMBED = """
window.tarsimErrors = [];
window.addEventListener("error", (event) => window.tarsimErrors.push(String(event.message)));
const figures = %s;
Promise.all(figures.map((figure) => vegaEmbed(document.getElementById(figure.id), figure.spec,
                                              {renderer: "svg", actions: false})))
  .then(() => { document.body.dataset.rendered = String(figures.length); })
  .catch((error) => { window.tarsimErrors.push(String(error)); console.error(error);
                      document.body.dataset.rendered = "error"; });
"""


def build_report(
    ledgers: Sequence[Ledger],
    *,
    effort_models: Sequence[str] = ("judge",),
    recall: str = "presented",
    stopping: Sequence[str] = (),
    group_by: Sequence[str] | None = None,
    replay=None,
    commands: Sequence[str] = (),
    found_rules: Sequence[str] = (),
) -> tuple[str, list[Figure]]:
    """The page's HTML and its figures (with the marks each must render). `stopping`: the rules asked for (each must
    replay); else the rules the ledgers recorded and `found_rules` (a sweep's stopping study), those that cannot be
    replayed without the collection left out with a note."""
    if not ledgers:
        raise ConfigError("nothing to report: no ledgers")
    with Bundling() as bundling:  # vl-convert's JavaScript, bundled in a child process while the page is built
        body, figures = _body(ledgers, effort_models, recall, stopping, group_by, replay, commands, found_rules)
        bundle = bundling.result()
    return _page(body, figures, bundle), figures


def _body(ledgers, effort_models, recall, stopping, group_by, replay, commands, found_rules) -> tuple[list, list]:
    """The page's body parts and figures (build_report's arguments)."""
    groups = line_groups(ledgers, group_by)  # collection and topic may name groups, as in `tarsim plot`
    _, fields = split_fields(",".join(group_by or ()))
    replay = replay or (lambda ledger: {})
    figures = [recall_effort_figure(groups, model, recall) for model in dict.fromkeys(effort_models)]
    figures += [insights_figure(groups, kind, recall) for kind in ("wss", "erf")]
    rules = list(stopping) or sorted(
        {rule for ledger in ledgers for rule in ledger.header.get("config", {}).get("stopping", [])}
    )
    rules += [rule for rule in found_rules if rule not in rules]
    skipped: dict[str, str] = {}  # rules found (not asked for) that these ledgers alone cannot replay: left out
    stops = stopping_figure(groups, rules, replay, None if stopping else skipped) if rules else None
    figures += [stops] if stops else []
    figures = unique_ids(figures)
    notes = [f"Stopping rule {rule} left out: {reason}" for rule, reason in skipped.items()]
    if rules and not stops:
        notes.append(f"No stopping rule ({', '.join(rules)}) stopped any run: no stopping figure.")
    unfired = " ".join(notes)
    topics = len({pair_key(ledger)[:2] for ledger in ledgers})
    name = dataset_name(ledgers) or f"{topics} topic{'s' if topics != 1 else ''}"
    runs = f"{len(ledgers)} run{'s' if len(ledgers) != 1 else ''}"
    title = f"tarsim report: {name}, {runs} in {len(groups)} group{'s' if len(groups) != 1 else ''}"
    found = versions()
    body = [
        f"<h1>{html.escape(title)}</h1>",
        "<h2>Versions</h2>",
        _table(["software", "version"], sorted(found.items())),
        configuration_section(groups),
        tables_section(ledgers, fields or None, effort_models[0], recall),
        collections_section(ledgers, fields or None, effort_models[0], recall),
        _figures_section(figures),
        f"<p class='note'>{html.escape(unfired)}</p>" if unfired else "",
        reproduce_section(groups, replay, commands),
        f"<p class='note'>Python {html.escape(sys.version.split()[0])}; this page needs no network.</p>",
    ]
    return [title, *body], figures


def _page(body: Sequence[str], figures: Sequence[Figure], bundle: str) -> str:
    """The whole page: its title (body's first item), the bundle inlined, the body, and the script that draws."""
    title, *parts = body
    specs = [{"id": figure.id, "spec": figure.spec} for figure in figures]
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style>"
        f"<script>{bundle}</script></head>\n<body>\n"
        + "\n".join(part for part in parts if part)
        + f"\n<script>{EMBED % _script_json(specs)}</script>\n</body></html>\n"
    )


def write_report(path: str | Path, page: str) -> Path:
    """Write the page atomically (a reader never sees half a page)."""
    path = Path(path)
    with atomic_write(path) as handle:
        handle.write(page)
    return path
