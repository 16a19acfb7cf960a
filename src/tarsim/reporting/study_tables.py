"""Per-group tables of a study (`compare` and `metrics` with `--group-by collection,preset`): for each group (and
dataset) and measure, n, mean ± sd and a 95% interval, and paired tests against a baseline group with Holm's
correction over the comparisons of a measure (compare: t-test and randomisation test; metrics: Wilcoxon's
signed-rank test, as `tarsim stop` tests rules).

Grouping fields: `collection` (a sweep's collection name; else the topic of a collection reviewed for one topic, as a
screening file is; else its digest's first 12 characters), `topic`, `tool` (how `tarsim metrics` names a run), any
configuration field of the ledger header (`preset`, `learner`, `batch`, `features.min_df`, ...), any other header
field (`relevant`, `tarsim`) and a sweep's fields (`sweep.collection`). `collection` and `topic` split the table
into datasets: the groups are compared within each, never across.

Intervals are tarsim.stopping.aggregate's percentile bootstrap (2,000 resamples, a fixed seed: a table prints the
same figures every time; bounded, skewed measures keep their interval inside their range); Holm's step-down
adjustment is its `holm`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.reporting.compare import (
    _flat_config,
    group_ledgers,
    header_fields,
    pair_key,
    paired_values,
    prior_records,
    refuse_repeated_runs,
    replicate_name,
    resolve_baseline,
    run_key,
    run_pairing,
    run_place,
    run_scores,
)
from tarsim.reporting.field_names import unknown_fields
from tarsim.reporting.table_formats import caption, digits_for, mean_cell, number, p_value, render, tidy_text
from tarsim.stopping.aggregate import holm, holm_rows, mean_interval, wilcoxon_p

STRATA = ("collection", "topic")
"""Fields that split a table into datasets (groups are compared within each)."""
COMPARE_SHOWN = ("WSS@95", "Recall@2R+100", "effort to 95% recall")
"""compare's measures in a text table (table, markdown, latex) unless --measure names others; CSV and JSON: all."""
METRICS_HIDDEN = ("N", "R", "judged", "docs_to_80", "docs_to_100")
"""metrics' columns left out of a text table (the dataset's size and the review's length; CSV and JSON keep them)."""


# ---- fields ---------------------------------------------------------------------------------------------------
def collection_names(ledgers: Sequence[Ledger]) -> list[str]:
    """Each review's collection, readable: a sweep's collection name; else, when every review of that collection
    (by digest) is of one topic (a screening file), the topic; else the digest's first 12 characters."""
    digests = [pair_key(ledger)[0] for ledger in ledgers]
    topics: dict[str, set[str]] = {}
    for digest, ledger in zip(digests, ledgers, strict=True):
        topics.setdefault(digest, set()).add(ledger.topic)
    names = []
    for digest, ledger in zip(digests, ledgers, strict=True):
        sweep = ledger.header.get("sweep") or {}
        if sweep.get("collection"):
            names.append(str(sweep["collection"]))
        elif len(topics[digest]) == 1 or not digest:
            names.append(ledger.topic)
        else:
            names.append(digest[:12])
    return names


def field_values(ledgers: Sequence[Ledger], fields: Sequence[str]) -> list[tuple[str, ...]]:
    """Each review's value of each grouping field (see the module docstring); an unknown field is one ConfigError
    naming the fields known."""
    collections = collection_names(ledgers) if "collection" in fields else []
    rows = []
    known: set[str] = {"collection", "topic"}
    for index, ledger in enumerate(ledgers):
        config = _flat_config(ledger)
        header = header_fields(ledger)
        known |= set(config) | set(header)
        values = []
        for field in fields:
            if field == "collection":
                values.append(collections[index])
            elif field == "topic":
                values.append(ledger.topic)
            elif field in config:
                values.append(config[field])
            elif field in header:
                values.append(header[field])
            else:
                values.append("-")
        rows.append(tuple(values))
    unknown = [field for field in fields if field not in known]
    if unknown:
        raise unknown_fields(unknown, {*known, *STRATA})
    return rows


def split_fields(text: str | None) -> tuple[list[str], list[str]]:
    """`--group-by` as (dataset fields: collection, topic; the other fields), each in the order given."""
    fields = [field.strip() for field in (text or "").split(",") if field.strip()]
    return [f for f in fields if f in STRATA], [f for f in fields if f not in STRATA]


CAPTION = "Mean ± sd [95% bootstrap CI] over runs; n = runs per group, (k of n): measure known in k runs"


def _cell(row: Mapping, digits: int) -> str:
    """A group's measure: `mean ± sd [low, high]`, and `(k of n)` when it is known in fewer than all runs."""
    cell = mean_cell(row["mean"], row["sd"], row["ci_low"], row["ci_high"], digits)
    return cell + (f" ({row['n']} of {row['runs']})" if row["n"] < row["runs"] else "")


# ---- statistics -----------------------------------------------------------------------------------------------
def describe(values: Sequence[float]) -> dict:
    """n, mean, sd (n - 1; None for one value) and the 95% bootstrap interval of the finite values."""
    data = np.asarray([v for v in values if v is not None], dtype=np.float64)
    data = data[np.isfinite(data)]
    if not data.size:
        return {"n": 0, "mean": None, "sd": None, "ci_low": None, "ci_high": None}
    mean, low, high = mean_interval(data)
    sd = float(np.std(data, ddof=1)) if data.size > 1 else None
    return {"n": int(data.size), "mean": mean, "sd": sd, "ci_low": low, "ci_high": high}


# ---- compare ---------------------------------------------------------------------------------------------------
def grouped_comparison(
    ledgers: Sequence[Ledger],
    baseline: str,
    effort_model: str = "judge",
    strata: Sequence[str] = (),
    group_by: Sequence[str] | None = None,
    measures: Sequence[str] | None = None,
    recall: str = "presented",
    seed: int = 0,
    n_resamples: int = 10000,
    tests: bool = True,
) -> list[dict]:
    """Tidy rows (one per dataset x measure x group): the dataset fields, group, measure, runs, n, mean, sd, ci_low,
    ci_high, and against the baseline (within the dataset, paired as compare pairs runs): pairs, diff (group -
    baseline), p_t (paired t-test), p_rand (randomisation test) and p_holm (p_t adjusted by Holm over every
    comparison of that measure). Without `tests`, the summaries alone (the baseline is then not looked up)."""
    from tarsim.metrics.significance import paired_tests

    fields = list(group_by) if group_by else None
    scores = run_scores(ledgers, effort_model, group_by=fields, recall=recall)
    wanted = _measures(list(dict.fromkeys(scores["measure"])), measures)
    place = _strata_of_runs(ledgers, fields, strata)
    base = resolve_baseline(baseline, list(dict.fromkeys(scores["group"]))) if tests else None
    values: dict[tuple, dict[str, dict[str, float]]] = {}  # (stratum, measure) -> group -> run key -> value
    runs: dict[tuple, dict[str, dict[str, tuple]]] = {}  # stratum -> group -> run key -> (topic, priors, foreign)
    for row in scores.itertuples(index=False):
        stratum = place[(row.group, row.collection, row.topic, row.seed, row.priors)]
        key = run_key(row._asdict())
        runs.setdefault(stratum, {}).setdefault(row.group, {})[key] = (row.topic, row.priors, bool(row.foreign))
        measured = values.setdefault((stratum, row.measure), {}).setdefault(row.group, {})
        if row.value is not None and not (isinstance(row.value, float) and math.isnan(row.value)):
            measured[key] = float(row.value)
    out = []
    for measure in wanted:
        block = []
        for stratum, groups in runs.items():
            for group in groups:
                mine = values.get((stratum, measure), {}).get(group, {})
                row = {**dict(zip(strata, stratum, strict=True)), "group": group, "measure": measure}
                row.update(runs=len(groups[group]), **describe(list(mine.values())))
                row.update(pairs=None, diff=None, p_t=None, p_rand=None, p_holm=None)
                if group != base and base in groups:
                    reference = values.get((stratum, measure), {}).get(base, {})
                    left, right = paired_values(run_pairing(groups[base], groups[group]), reference, mine)
                    shared = set(left) & set(right)
                    row["pairs"] = len(shared)
                    if len(shared) >= 2:
                        test = paired_tests(left, right, seed=seed, n_resamples=n_resamples)
                        row.update(diff=test["diff"], p_t=test["p_t"], p_rand=test["p_rand"])
                    elif shared:
                        row["diff"] = float(np.mean([right[k] - left[k] for k in shared]))
                block.append(row)
        holm_rows(block, "p_t")
        out.extend(block)
    return out


def _measures(available: list[str], wanted: Sequence[str] | None) -> list[str]:
    if not wanted:
        return available
    unknown = [m for m in wanted if m not in available]
    if unknown:
        raise ConfigError(f"--measure {', '.join(unknown)} unknown; measures: {', '.join(available)}")
    return list(wanted)


def _strata_of_runs(ledgers: Sequence[Ledger], fields: Sequence[str] | None, strata: Sequence[str]) -> dict:
    """(group, collection, topic, seed, priors) as run_scores names a run -> its dataset fields' values."""
    groups = group_ledgers(ledgers, fields)
    by_collection = refuse_repeated_runs(groups)
    members = [(group, ledger) for group, ledgers_of in groups.items() for ledger in ledgers_of]
    values = field_values([ledger for _, ledger in members], list(strata))
    place = {}
    for (group, ledger), stratum in zip(members, values, strict=True):
        collection, topic, replicate = pair_key(ledger)
        run = (group, collection[:12] if by_collection else "", topic, replicate_name(replicate))
        run = (*run, ",".join(prior_records(ledger)))
        place[run] = stratum
    return place


def format_grouped_comparison(
    rows: Sequence[dict], strata: Sequence[str], fmt: str, baseline: str, note: str, shown_all: bool = False
) -> str:
    """The comparison's two tables in `fmt`: per dataset and group, each measure's `mean ± sd [95% CI]` and n;
    then the paired tests against the baseline (only with more than one comparison per measure does Holm's column
    differ from p). Text formats show COMPARE_SHOWN unless `shown_all` (the measures were chosen)."""
    if fmt in ("csv", "json"):
        return tidy_text(rows, fmt)
    measures = list(dict.fromkeys(row["measure"] for row in rows))
    if not shown_all:
        measures = [m for m in measures if m in COMPARE_SHOWN] or measures
    rows = [row for row in rows if row["measure"] in measures]
    digits = {m: digits_for([row["mean"] for row in rows if row["measure"] == m]) for m in measures}
    cells: dict[tuple, dict[str, str]] = {}
    counts: dict[tuple, int] = {}
    for row in rows:
        key = (*(row[s] for s in strata), row["group"])
        counts[key] = max(counts.get(key, 0), row["runs"])
        cells.setdefault(key, {})[row["measure"]] = _cell(row, digits[row["measure"]])
    header = [*strata, "group", "n", *measures]
    body = [[*key, str(counts[key]), *(cells[key].get(m, "-") for m in measures)] for key in cells]
    parts = [
        caption(
            f"{CAPTION}; {note}",
            fmt,
        )
    ]
    parts.append(render(header, body, fmt, numeric_from=len(strata) + 1))
    tests = [row for row in rows if row["pairs"] is not None]
    if tests:
        title = (
            f"Paired tests against {baseline!r} (diff = group - baseline; p: paired t-test, - where every difference "
            "is the same and the t-test is undefined; p_holm: Holm-adjusted over the comparisons of each measure; "
            "p_rand: randomisation test)"
        )
        parts += ["", caption(title, fmt)]
        header = [*strata, "group", "measure", "pairs", "diff", "p", "p_holm", "p_rand"]
        body = [
            [*(row[s] for s in strata), row["group"], row["measure"], str(row["pairs"]),
             number(row["diff"], digits[row["measure"]]), p_value(row["p_t"]), p_value(row["p_holm"]),
             p_value(row["p_rand"])]
            for row in tests
        ]  # fmt: skip
        parts.append(render(header, body, fmt, numeric_from=len(strata) + 3))
    return "\n".join(parts) + "\n"


# ---- metrics ---------------------------------------------------------------------------------------------------
METRICS_SKIPPED = ("topic", "tool", "td", "recall_at_effort", "source", "priors")


def grouped_metrics(
    document: Mapping, ledgers: Sequence[Ledger], fields: Sequence[str], baseline: str | None = None
) -> list[dict]:
    """Tidy rows (one per group x measure) of a `tarsim metrics` document: the grouping fields (default: tool),
    measure, n, mean, sd, ci_low, ci_high; Recall@E budgets as `recall@aR+b`. With a `baseline` (a value of the
    fields other than collection and topic, which name the strategies), each row also has its paired test against
    the baseline's runs of its dataset (metrics_tests)."""
    fields = list(fields) or ["tool"]
    reviews = document["reviews"]
    keys = field_values(ledgers, fields)
    measures: list[str] = []
    table: dict[tuple, dict[str, list]] = {}
    for review, key in zip(reviews, keys, strict=True):
        flat = _review_measures(review)
        measures += [m for m in flat if m not in measures]
        for measure, value in flat.items():
            table.setdefault(key, {}).setdefault(measure, []).append(value)
    tests = metrics_tests(document, ledgers, fields, baseline, measures) if baseline is not None else {}
    rows = []
    for key, by_measure in table.items():
        for measure in measures:
            given = by_measure.get(measure, [])
            row = {**dict(zip(fields, key, strict=True)), "measure": measure, "runs": len(given), **describe(given)}
            if baseline is not None:
                row.update(tests.get((key, measure), dict.fromkeys(TEST_COLUMNS)))
            rows.append(row)
    return rows


TEST_COLUMNS = ("pairs", "diff", "statistic", "p_wilcoxon", "p_holm")
"""metrics' paired-test columns: pairs, mean difference (group - baseline), Wilcoxon's W and p, Holm's p."""


def _review_measures(review: Mapping) -> dict:
    """A review's numeric measures by name (Recall@E budgets as `recall@aR+b`)."""
    flat = {k: v for k, v in review.items() if k not in METRICS_SKIPPED and _numeric(v)}
    flat.update({f"recall@{budget}": value for budget, value in review["recall_at_effort"].items()})
    return flat


def metrics_tests(
    document: Mapping, ledgers: Sequence[Ledger], fields: Sequence[str], baseline: str, measures: Sequence[str]
) -> dict[tuple, dict]:
    """Each group against the baseline, per dataset (collection and topic among `fields` split them; groups are
    never compared across) and measure: (field values, measure) -> pairs, diff (mean of group - baseline over the
    pairs), Wilcoxon's signed-rank statistic and p (stopping.aggregate.wilcoxon_p; two or more pairs), and p_holm,
    Holm-adjusted over every comparison of that measure. Runs pair as `tarsim compare` pairs them (run_place,
    run_pairing: collection, topic and seed; another tool's reviews by topic and prior records)."""
    strata = [f for f in fields if f in STRATA]
    named = [f for f in fields if f not in STRATA] or ["tool"]
    keys = field_values(ledgers, fields)
    labels = [", ".join(values) for values in field_values(ledgers, named)]
    groups: dict[tuple, list[Ledger]] = {}
    for ledger, key in zip(ledgers, keys, strict=True):
        groups.setdefault(key, []).append(ledger)
    by_collection = refuse_repeated_runs({" / ".join(key): members for key, members in groups.items()})
    base = resolve_baseline(baseline, list(dict.fromkeys(labels)))
    at = [fields.index(s) for s in strata]
    runs: dict[tuple, dict[str, dict[str, tuple]]] = {}  # stratum -> label -> run key -> (topic, priors, foreign)
    values: dict[tuple, dict[str, dict[str, float]]] = {}  # (stratum, label) -> measure -> run key -> value
    key_of: dict[tuple, tuple] = {}  # (stratum, label) -> the row's field values
    for ledger, review, key, label in zip(ledgers, document["reviews"], keys, labels, strict=True):
        stratum = tuple(key[i] for i in at)
        place = run_place(ledger, by_collection)
        run = run_key(place)
        runs.setdefault(stratum, {}).setdefault(label, {})[run] = (place["topic"], place["priors"], place["foreign"])
        key_of[(stratum, label)] = key
        for measure, value in _review_measures(review).items():
            if value is not None and math.isfinite(float(value)):
                values.setdefault((stratum, label), {}).setdefault(measure, {})[run] = float(value)
    out: dict[tuple, dict] = {}
    for measure in measures:
        block = []
        for stratum, by_label in runs.items():
            if base not in by_label:
                continue
            reference = values.get((stratum, base), {}).get(measure, {})
            for label in by_label:
                row = dict.fromkeys(TEST_COLUMNS)
                out[(key_of[(stratum, label)], measure)] = row
                if label == base:
                    continue
                mine = values.get((stratum, label), {}).get(measure, {})
                left, right = paired_values(run_pairing(by_label[base], by_label[label]), reference, mine)
                shared = sorted(set(left) & set(right))
                differences = np.asarray([right[k] - left[k] for k in shared], dtype=np.float64)
                row["pairs"] = len(shared)
                row["diff"] = float(differences.mean()) if shared else None
                if len(shared) >= 2:
                    row["statistic"], row["p_wilcoxon"] = wilcoxon_p(differences)
                    block.append(row)
        for row, adjusted in zip(block, holm([row["p_wilcoxon"] for row in block]), strict=True):
            row["p_holm"] = adjusted
    return out


def _metric_title(measure: str) -> str:
    """As the per-review table names a column: wss_95 -> WSS@95, atd -> ATD, docs_to_95 -> to 95%."""
    if measure.split("_")[0] in ("wss", "rrf", "erf"):
        return measure.replace("_", "@").upper()
    if measure.startswith("docs_to_"):
        return f"to {measure.removeprefix('docs_to_')}%"
    return measure.upper() if measure == "atd" else measure


def _numeric(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def format_grouped_metrics(
    rows: Sequence[dict], fields: Sequence[str], fmt: str, note: str, baseline: str | None = None
) -> str:
    """Per group, each measure's `mean ± sd [95% CI]` (one row per group, one column per measure; the text formats
    leave out METRICS_HIDDEN and the Recall@E grid, which CSV and JSON keep); with a `baseline`, then the paired
    tests against it, one row per dataset x group x measure."""
    if fmt in ("csv", "json"):
        return tidy_text(rows, fmt)
    fields = list(fields) or ["tool"]
    measures = list(dict.fromkeys(row["measure"] for row in rows))
    measures = [m for m in measures if m not in METRICS_HIDDEN and not m.startswith("recall@")]
    rows = [row for row in rows if row["measure"] in measures]
    digits = {m: digits_for([row["mean"] for row in rows if row["measure"] == m]) for m in measures}
    cells: dict[tuple, dict[str, str]] = {}
    counts: dict[tuple, int] = {}
    for row in rows:
        key = tuple(row[f] for f in fields)
        counts[key] = max(counts.get(key, 0), row["runs"])
        cells.setdefault(key, {})[row["measure"]] = _cell(row, digits[row["measure"]])
    titles = [_metric_title(m) for m in measures]
    header = [*fields, "n", *titles]
    body = [[*key, str(counts[key]), *(cells[key].get(m, "-") for m in measures)] for key in cells]
    text = caption(f"{CAPTION}; {note}", fmt) + "\n" + render(header, body, fmt, numeric_from=len(fields)) + "\n"
    tested = [row for row in rows if baseline is not None and row.get("pairs") is not None]
    if not tested:
        return text
    title = (
        f"Paired tests against {baseline!r} (runs paired by collection, topic and seed; diff = group - baseline; W "
        "and p: Wilcoxon signed-rank test; p_holm: Holm-adjusted over the comparisons of each measure)"
    )
    strata = [f for f in fields if f in STRATA]
    named = [f for f in fields if f not in STRATA]
    header = [*strata, *named, "measure", "pairs", "diff", "W", "p", "p_holm"]
    body = [
        [*(row[f] for f in strata), *(row[f] for f in named), _metric_title(row["measure"]), str(row["pairs"]),
         number(row["diff"], digits[row["measure"]]), number(row["statistic"], 1), p_value(row["p_wilcoxon"]),
         p_value(row["p_holm"])]
        for row in tested
    ]  # fmt: skip
    return text + "\n" + caption(title, fmt) + "\n" + render(header, body, fmt, numeric_from=len(fields) + 1) + "\n"
