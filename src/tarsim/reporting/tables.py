"""Recall@E and summary tables from ledgers, and the files `tarsim simulate` and `tarsim report` write."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.effort_models import DEFAULT_EFFORT_MODELS, make_effort_model  # the one definition, re-exported here
from tarsim.metrics import tar
from tarsim.metrics.recall_effort import check_recall_kind, recall_at_effort, recall_curve, summary_row
from tarsim.version import __version__

if TYPE_CHECKING:  # pandas is imported where a table is made: `tarsim simulate` starts without it
    import pandas as pd

RECALL_COLUMNS = ["topic", "strategy", "effort_model", "a", "b", "effort", "recall"]
TIME_MODELS = ("seconds", "clock")
"""Effort models in seconds: shown as hours to 80/95/100% recall, where an aR+b budget of seconds means nothing."""
HOURS_LEVELS = (0.8, 0.95, 1.0)
RECALL_MEANING = {
    "presented": "relevant documents presented",
    "found": "relevant documents presented and labelled relevant by the reviewer",
}


SENTENCE_MODELS = ("sent", "lambda")
"""Effort models that count sentences read: what the sentence oracle decides (where a document is read to)."""
SCREENING_EFFORT_MODELS = ("judge",)
"""What a screening file's review (titles and abstracts) prints and writes by default: judgments, the unit of
screening; the sentence and time models are there with --effort."""


def uses_sentences(ledgers: Iterable[Ledger], effort_models: Sequence[str] | None = None) -> bool:
    """Whether the sentence oracle means something for these tables: a review shows or trains on sentences, or an
    effort model counts sentences read (None: the default models, which do)."""
    models = DEFAULT_EFFORT_MODELS if effort_models is None else effort_models
    if any(make_effort_model(spec).name in SENTENCE_MODELS for spec in models):
        return True
    return any(
        "sentence" in str(ledger.header.get("config", {}).get(key, ""))
        for ledger in ledgers
        for key in ("strategy", "feedback", "train_on", "rank_by")
    )


def default_effort_models(collection: object) -> tuple[str, ...]:
    """The effort models a review prints and writes when --effort is not given: judgments alone for a screening
    file (.csv .tsv .xlsx .ris: titles and abstracts, no sentence-level reading), every default model otherwise."""
    from tarsim.interop.screening import is_screening_file

    if isinstance(collection, (str, Path)) and is_screening_file(collection):
        return SCREENING_EFFORT_MODELS
    return tuple(DEFAULT_EFFORT_MODELS)


def caption(ledgers: Iterable[Ledger], recall: str = "presented", effort_models: Sequence[str] | None = None) -> str:
    """The caption line every recall table carries: which recall, and the sentence oracle(s) of the ledgers where
    it means something (uses_sentences)."""
    ledgers = list(ledgers)
    text = f"recall {check_recall_kind(recall)} ({RECALL_MEANING[recall]})"
    if not uses_sentences(ledgers, effort_models):
        return text
    oracles = sorted({str(ledger.header.get("config", {}).get("sentence_oracle", "inherit")) for ledger in ledgers})
    return f"{text}; sentence oracle: {', '.join(oracles)}"


PRIORS_COUNTED = "prior judgments counted (as tarsim compare does; tarsim metrics leaves them out by default)"
"""The caption line of the Recall@E and hours tables of reviews with priors: their numbers differ from metrics'."""


def has_priors(ledgers: Iterable[Ledger]) -> bool:
    """Whether any of the reviews started from prior records (then tables say how they count them)."""
    return any(bool(ledger.prior.any()) for ledger in ledgers)


def recall_at_effort_frame(
    ledgers: Iterable[Ledger], effort_models: Sequence[str] = DEFAULT_EFFORT_MODELS, recall: str = "presented"
) -> pd.DataFrame:
    """One row per topic x effort model x (a, b): the tidy Recall@E table (recall `presented` or `found`)."""
    import pandas as pd

    rows = [
        row for ledger in ledgers for model in effort_models for row in recall_at_effort(ledger, model, recall=recall)
    ]
    return pd.DataFrame(rows, columns=RECALL_COLUMNS)


def summary_frame(ledgers: Iterable[Ledger], recall: str = "presented") -> pd.DataFrame:
    """One row per topic: R, judgments, documents to 80/95/100% recall, WSS@95 (ASReview Insights', as the printed
    per-topic table), final recall."""
    import pandas as pd

    rows = [{**summary_row(ledger, recall=recall), "wss_95": tar.wss(ledger, 0.95, kind=recall)} for ledger in ledgers]
    return pd.DataFrame(rows)


def mean_recall_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean Recall@E over topics: rows aR+b, one column per effort model (and strategy when several)."""
    import pandas as pd

    if table.empty:
        return pd.DataFrame()
    frame = table.assign(budget=[f"{a:g}R+{b:g}" for a, b in zip(table["a"], table["b"], strict=True)])
    order = list(dict.fromkeys(frame["budget"]))
    columns = ["strategy", "effort_model"] if frame["strategy"].nunique() > 1 else ["effort_model"]
    # A cell is unknown (NaN, shown as n/a) when any topic's Recall@E is: averaging the others would mislead.
    pivot = frame.pivot_table(
        index="budget",
        columns=columns,
        values="recall",
        aggfunc=lambda v: v.mean(skipna=False),
        sort=False,
        dropna=False,
    )
    return pivot.reindex(order)


def format_recall_table(table: pd.DataFrame, note: str = "") -> str:
    """The mean Recall@E table as aligned text for a terminal (`note`: the caption line, see `caption`)."""
    pivot = mean_recall_table(table)
    if pivot.empty:
        return "no topic was reviewed"
    topics = table["topic"].nunique()
    header = f"Mean Recall@E over {topics} topic(s), E = aR+b in each effort model's units"
    if note:
        header += f"\n{note}"
    text = pivot.to_string(float_format=lambda v: f"{v:.3f}", na_rep="n/a")
    if pivot.isna().to_numpy().any():
        text += "\nn/a: beyond the effort budget (--max-effort) of at least one topic"
    return header + "\n" + text


def _clean(value):
    if isinstance(value, float) and value != value:
        return None
    return value


REPORT_FILES = ("recall_at_effort.csv", "summary.json")
"""The files write_simulation_reports (re)writes in an output folder."""


def write_simulation_reports(
    out: Path,
    ledgers: Sequence[Ledger],
    effort_models: Sequence[str],
    skipped: Mapping[str, str] | None = None,
    recall: str = "presented",
) -> pd.DataFrame:
    """Write OUT/recall_at_effort.csv and OUT/summary.json (atomically); return the Recall@E table."""
    out = Path(out)
    table = recall_at_effort_frame(ledgers, effort_models, recall)
    with atomic_write(out / REPORT_FILES[0]) as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
    summary = summary_frame(ledgers, recall)
    pivot = mean_recall_table(table)
    means = {
        str(column if isinstance(column, str) else "/".join(column)): {
            budget: None if value != value else round(float(value), 6) for budget, value in pivot[column].items()
        }
        for column in pivot.columns
    }
    document = {
        "tarsim": __version__,
        "effort_models": list(effort_models),
        "recall": recall,
        "topics": {row["topic"]: {k: _clean(v) for k, v in row.items()} for row in summary.to_dict("records")},
        "skipped": dict(skipped or {}),
        "mean_recall_at_effort": means,
    }
    if ledgers:
        document["config"] = ledgers[0].header["config"]
    with atomic_write(out / REPORT_FILES[1]) as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
        handle.write("\n")
    return table


def _number(value, digits: int = 3, fixed: bool = False) -> str:
    """A cell: n/a for a missing value, floats with `digits` decimals when not whole or when `fixed` (a column of
    fractions: 1.000 beside 0.989, not 1), whole floats as integers otherwise (counts, efforts)."""
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if isinstance(value, float) and (fixed or not value.is_integer()):
        return f"{value:.{digits}f}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _is_fraction(value) -> bool:
    return isinstance(value, float) and value == value and not value.is_integer()


def _text_table(header: Sequence[str], rows: Sequence[Sequence], fractions: Collection[str] = ()) -> str:
    """Rows under a header, aligned; the columns named in `fractions` (and any column with a non-whole value) print
    3 decimals, so that a fraction reads 1.000 even when every row's is whole (one topic, all recall reached)."""
    fixed = [header[i] in fractions or any(_is_fraction(row[i]) for row in rows) for i in range(len(header))]
    cells = [list(header)] + [
        [v if isinstance(v, str) else _number(v, fixed=fixed[i]) for i, v in enumerate(row)] for row in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in cells
    ]
    return "\n".join(line.rstrip() for line in lines)


def topic_table_rows(ledgers: Iterable[Ledger], recall: str = "presented") -> list[dict]:
    """Per topic: R, judged, documents to 95% recall, WSS@95 (Insights', priors excluded), Recall@2R+100 (judge)."""
    rows = []
    for ledger in ledgers:
        curve = recall_curve(ledger, "judge", recall=recall)
        reached = curve.effort_to(0.95)
        rows.append(
            {
                "topic": ledger.topic,
                "R": ledger.relevant,
                "judged": len(ledger),
                "docs_to_95": None if reached is None else int(reached),
                "wss_95": tar.wss(ledger, 0.95, kind=recall),
                "recall_2R+100": next(  # None (n/a) beyond what a budget-stopped review spent, as in the grid
                    row["recall"]
                    for row in recall_at_effort(ledger, "judge", grid_a=(2,), grid_b=(100,), recall=recall)
                ),
            }
        )
    return rows


def format_topic_table(ledgers: Iterable[Ledger], recall: str = "presented") -> str:
    """The per-topic table printed before the mean Recall@E table."""
    rows = topic_table_rows(ledgers, recall)
    header = ["topic", "R", "judged", "docs to 95%", "WSS@95", "Recall@2R+100"]
    note = (  # two conventions side by side (two new users asked why they disagree)
        "docs to 95%: judgments, priors included, to find ceil(0.95 R) relevant (as Recall@E counts);\n"
        "WSS@95: ASReview Insights', priors excluded, at its floor(0.95 R)-th relevant"
    )
    return "Per topic\n" + _text_table(header, [list(row.values()) for row in rows], fractions=header[4:]) + "\n" + note


def hours_to_recall(ledgers: Sequence[Ledger], effort_models: Sequence[str], recall: str = "presented") -> pd.DataFrame:
    """Mean hours to reach 80/95/100% recall under each time-based effort model (NaN when a topic never does)."""
    import pandas as pd

    frame = {}
    for spec in effort_models:
        model = make_effort_model(spec)
        column = []
        curves = [recall_curve(ledger, model, recall=recall) for ledger in ledgers]
        for level in HOURS_LEVELS:
            times = [curve.effort_to(level) for curve in curves]
            column.append(float("nan") if any(t is None for t in times) else sum(times) / len(times) / 3600.0)
        frame[model.name] = column
    return pd.DataFrame(frame, index=[f"{round(level * 100)}%" for level in HOURS_LEVELS])


def format_review_tables(
    ledgers: Iterable[Ledger], effort_models: Sequence[str] = DEFAULT_EFFORT_MODELS, recall: str = "presented"
) -> str:
    """What `tarsim simulate` and `tarsim report` print: the per-topic table, the mean Recall@E table of the
    count-based effort models (judge, sent, lambda) and the mean hours to 80/95/100% recall of `seconds`/`clock`,
    under a caption naming the recall kind and the sentence oracle; reviews with priors say that those two count
    them (the per-topic table's note says it for its own columns)."""
    ledgers = list(ledgers)
    if not ledgers:
        return "no topic was reviewed"
    counted = [spec for spec in effort_models if make_effort_model(spec).name not in TIME_MODELS]
    timed = [spec for spec in effort_models if make_effort_model(spec).name in TIME_MODELS]
    note = PRIORS_COUNTED if has_priors(ledgers) else ""
    parts = [caption(ledgers, recall, effort_models), format_topic_table(ledgers, recall)]
    if counted:
        parts.append(format_recall_table(recall_at_effort_frame(ledgers, counted, recall), note))
    if timed:
        hours = hours_to_recall(ledgers, timed, recall)
        text = hours.to_string(float_format=lambda v: f"{v:.2f}", na_rep="n/a")
        header = f"Mean hours to reach recall over {len(ledgers)} topic(s)" + (f"\n{note}" if note else "")
        parts.append(f"{header}\n{text}")
    return "\n\n".join(parts)


def format_metrics_table(document: Mapping) -> str:
    """`tarsim metrics --format table`: one row per review and the mean per tool, then the mean Recall@E grid."""
    levels = [key for key in (document["reviews"] or [{}])[0] if key.split("_")[0] in ("wss", "rrf", "erf")]
    columns = [
        ("topic", "topic"),
        ("tool", "tool"),
        ("N", "N"),
        ("R", "R"),
        ("judged", "judged"),
        *((key, key.replace("_", "@").upper()) for key in levels),  # wss_95 -> WSS@95, as --wss/--rrf/--erf ask
        ("atd", "ATD"),
        ("docs_to_80", "to 80%"),
        ("docs_to_95", "to 95%"),
        ("docs_to_100", "to 100%"),
    ]
    rows = [[row[key] for key, _ in columns] for row in document["reviews"]]
    for tool, mean in document["mean"].items():  # a tool's one review is its own mean: no "mean (1)" row
        if mean["runs"] > 1:  # counts' means to one decimal (118.7 relevant), not 118.667
            cells = [_mean_count(mean[key]) if key in _COUNTS else mean[key] for key, _ in columns[2:]]
            rows.append([f"mean of {mean['runs']}", tool, *cells])
    recall = document.get("recall", "presented")
    priors, grid_note = _metrics_priors(document)
    text = f"Measures as ASReview Insights' `asreview metrics` ({priors}; recall {recall})\n"
    titles = [title for _, title in columns]
    text += _text_table(titles, rows, fractions=[title for key, title in columns if key in levels])
    budgets = list(next(iter(document["mean"].values()))["recall_at_effort"]) if document["mean"] else []
    grid = [[budget] + [mean["recall_at_effort"][budget] for mean in document["mean"].values()] for budget in budgets]
    tools = list(document["mean"])
    heading = f"Mean Recall@E, E = aR+b records screened{grid_note}"
    text += f"\n\n{heading}\n" + _text_table(["E", *tools], grid, fractions=tools)
    return text


_COUNTS = ("N", "R", "judged", "docs_to_80", "docs_to_95", "docs_to_100")
"""Columns of counts: their means print to one decimal (a whole number as it is)."""


def _mean_count(value: float | None) -> str | float | None:
    if value is None or float(value).is_integer():
        return value if value is None else int(value)
    return f"{value:.1f}"


def _metrics_priors(document: Mapping) -> tuple[str, str]:
    """The priors convention in the metrics table's caption, and the grid's note: spelled out only when a review has
    prior records (then the numbers differ from compare's and simulate's, which count them)."""
    if not any(row.get("priors") for row in document["reviews"]):
        return f"priors {document['priors']}d", ""
    if document["priors"] == "exclude":
        return "priors excluded: Insights' default, --priors include counts them", (
            ", priors excluded (tarsim compare and simulate count them)"
        )
    return "priors included: --priors include, as Insights' --priors; the default leaves them out", (
        ", priors counted (as tarsim compare and simulate)"
    )


def metrics_frame(document: Mapping) -> pd.DataFrame:
    """`tarsim metrics --format csv`: one row per review, the Recall@E grid as `recall@aR+b` columns, no TD."""
    import pandas as pd

    rows = []
    for row in document["reviews"]:
        flat = {k: v for k, v in row.items() if k not in ("td", "recall_at_effort")}
        flat.update({f"recall@{budget}": value for budget, value in row["recall_at_effort"].items()})
        rows.append(flat)
    return pd.DataFrame(rows)
