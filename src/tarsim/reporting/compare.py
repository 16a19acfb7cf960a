"""Comparing policies and strategies across topics and seeds: ledger discovery, grouping by configuration, per-run
scores, and a side-by-side table with paired significance tests against a baseline (paired by topic and seed).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tarsim.config.review import normalise_config
from tarsim.data.ledger import Ledger, is_temporary
from tarsim.data.lines import PathLike, wide_encoding
from tarsim.data.qrels import Qrels
from tarsim.data.regular_files import existing_path_problem, open_regular, path_problem
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.interop.order import looks_like_order
from tarsim.interop.reviews import read_review
from tarsim.metrics.insights import given_estimator, tool_of
from tarsim.metrics.recall_effort import GRID_A, GRID_B, recall_curve
from tarsim.reporting.field_names import unknown_fields
from tarsim.reporting.unfinished import unfinished_notices

NOT_GROUPED = ("seed", "prior_seed")
"""Config fields that never separate groups: seeds (prior seeds too) are repetitions. Stopping rules do: they stop
the review online."""


# ---- finding ledgers ------------------------------------------------------------------------------------------
def _is_ledger(path: Path) -> bool:
    """Whether a `*.jsonl` file found in a search is a ledger: every file of a `ledgers` folder is (so a 0-byte or
    damaged one is reported, never skipped); elsewhere, a file whose first line is a ledger header record."""
    if path.parent.name == "ledgers":
        return True
    try:
        with open_regular(path) as handle:  # never blocks: a FIFO swapped in after the search is refused (InputError)
            first = handle.readline(1 << 20)
    except OSError:  # a read error once open
        return False
    if b'"type":"header"' in first:  # a ledger's own encoding, even when the rest of the line is damaged
        return True
    if wide_encoding(first[:64]) is not None:  # a ledger saved as UTF-16: read, so that its reader names it
        return True
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == "header"


def _is_review_file(path: Path) -> bool:
    """Whether a file found in a folder search is a review: a ledger, an ASReview project or an order file."""
    if path.suffix == ".jsonl":
        return _is_ledger(path)
    return path.suffix == ".asreview" or (path.suffix == ".txt" and looks_like_order(path))


REVIEW_SUFFIXES = (".jsonl", ".asreview", ".txt")
"""The names a folder search reads as reviews (a `.jsonl` or `.txt` only when its content says so)."""


def ledger_paths(paths: Iterable[PathLike]) -> list[Path]:
    """Review files among `paths`: files as given; directories searched recursively (hidden folders and names
    included: a topic id or a collection may start with a dot) for ledgers, ASReview projects (.asreview) and order
    files (.txt whose first record reads `docid 0|1`) alike, skipping only tarsim's own partial and temporary files,
    JSONL files that are not ledgers (docs.jsonl) and text files that are not orders, in sorted order.

    A path given, or one with a review's suffix found in a folder, that is no regular file (a FIFO, a device or a
    link to one, a symlink loop or a symlink to nothing) is refused in one line naming what it is, never opened
    (a FIFO would block the read, /dev/zero fill memory) nor skipped (a review left out of the tables unsaid)."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                if is_temporary(candidate.name) or candidate.suffix not in REVIEW_SUFFIXES or candidate.is_dir():
                    continue
                problem = path_problem(candidate)
                if problem is not None:
                    raise InputError(candidate, None, problem)
                if _is_review_file(candidate):
                    found.append(candidate)
        elif path.is_file():
            found.append(path)
        else:  # what it is, when it is something: a FIFO was called "no such ledger file"
            problem = existing_path_problem(path)
            raise InputError(path, None, problem or "no such ledger file or directory")
    if not found:
        raise InputError(", ".join(map(str, paths)) or ".", None, "no complete ledger found")
    return list(dict.fromkeys(found))


def load_ledgers(paths: Iterable[PathLike], qrels: Qrels | None = None) -> list[Ledger]:
    """Read every ledger found under `paths` (see ledger_paths; `qrels` for order files); incomplete ledgers are
    rejected."""
    paths = list(paths)
    ledgers = []
    for path in ledger_paths(paths):
        ledger = read_review(path, qrels)  # a ledger, an ASReview project (.asreview) or an order file
        if not ledger.complete:
            raise InputError(path, None, "ledger has no end record (an unfinished review)")
        ledgers.append(ledger)
    for notice in unfinished_notices(paths, ledgers):  # a folder still being written, or an interrupted sweep's
        warnings.warn(notice, InputWarning, stacklevel=2)
    return ledgers


# ---- grouping -------------------------------------------------------------------------------------------------
def _flatten(config: dict, prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return flat


def is_foreign(ledger: Ledger) -> bool:
    """Whether a review was read from another tool's output (an ASReview project, an order file): its header names
    the tool and its config holds no tarsim settings."""
    return bool(ledger.header.get("tool"))


def _flat_config(ledger: Ledger) -> dict[str, str]:
    """A ledger's settings as flat fields; a review given an estimator object has it as its `learner`."""
    config = ledger.header.get("config", {})
    flat = _flatten(config if is_foreign(ledger) else normalise_config(config))
    estimator = None if is_foreign(ledger) else given_estimator(ledger.header)
    if estimator is not None:
        flat["learner"] = estimator
    return flat


def header_fields(ledger: Ledger) -> dict[str, str]:
    """A review's header fields that can name a group besides its config (`relevant`, `tarsim`, a sweep's
    `sweep.collection`), and `tool`, as `tarsim metrics` names the run (group_by may name any of them)."""
    fields = {"tool": tool_of(ledger)}
    for key, value in ledger.header.items():
        if key == "sweep" and isinstance(value, dict):
            fields.update({f"sweep.{k}": str(v) for k, v in value.items()})
        elif key not in ("config", "type") and not isinstance(value, dict | list):
            fields[key] = str(value)
    return fields


def grouping_keys(ledgers: Sequence[Ledger]) -> list[str]:
    """Config fields whose values differ between tarsim's ledgers (policy and strategy first), seed and stopping
    aside; reviews of other tools are named by their tool (group_label)."""
    flats = [_flat_config(ledger) for ledger in ledgers if not is_foreign(ledger)]
    keys = sorted({key for flat in flats for key in flat} - set(NOT_GROUPED))
    varying = [key for key in keys if len({flat.get(key) for flat in flats}) > 1]
    if "strategy" in varying:  # the strategy names feedback/train_on already
        varying = [key for key in varying if key not in ("feedback", "train_on")]
    front = [key for key in ("policy", "strategy") if key in varying]
    return front + [key for key in varying if key not in front]


def group_label(ledger: Ledger, keys: Sequence[str]) -> str:
    """A readable group name: policy and strategy as bare values, other fields as key=value; a review of another tool
    by what it is (`asreview -c svm -q max -b balanced -e tfidf`, an order file's tool)."""
    if is_foreign(ledger):
        return tool_of(ledger)
    flat = {**header_fields(ledger), **_flat_config(ledger)}
    if not keys:
        return f"{flat.get('policy', '?')}, {flat.get('strategy', '?')}"
    parts = [flat.get(key, "-") if key in ("policy", "strategy") else f"{key}={flat.get(key, '-')}" for key in keys]
    return ", ".join(parts)


def group_ledgers(ledgers: Sequence[Ledger], by: Sequence[str] | None = None) -> dict[str, list[Ledger]]:
    """Ledgers by group label, groups in first-seen order; `by` names the config fields to group on (default: the
    fields that differ between ledgers)."""
    keys = list(by) if by else grouping_keys(ledgers)
    known = (
        set().union(*({**header_fields(ledger), **_flat_config(ledger)} for ledger in ledgers)) if ledgers else set()
    )
    unknown = [key for key in keys if key not in known]
    if unknown:
        raise unknown_fields(unknown, {*known, "collection", "topic"}, grouping_keys(ledgers))  # the CLI takes both
    groups: dict[str, list[Ledger]] = {}
    if not keys and any(is_foreign(ledger) for ledger in ledgers):  # tarsim's runs all alike beside other tools'
        labels = [tool_of(ledger) for ledger in ledgers]
    elif not by and "preset" in keys:  # runs of different presets: named as `tarsim metrics` names them
        labels = _preset_labels(ledgers, keys)
    else:
        labels = [group_label(ledger, keys) for ledger in ledgers]
    for ledger, label in zip(ledgers, labels, strict=True):
        groups.setdefault(label, []).append(ledger)
    return groups


def _preset_labels(ledgers: Sequence[Ledger], keys: Sequence[str]) -> list[str]:
    """Each run's preset and the components overriding it (tool_of), then the fields among `keys` that still differ
    between runs so named (a reviewer count, an oracle), so that no two configurations share a group."""
    names = [tool_of(ledger) for ledger in ledgers]
    flats = [_flat_config(ledger) for ledger in ledgers]
    labels = []
    for name, flat in zip(names, flats, strict=True):
        alike = [other for other, same in zip(flats, names, strict=True) if same == name]
        extra = [key for key in keys if key != "preset" and len({other.get(key) for other in alike}) > 1]
        labels.append(", ".join([name, *(f"{key}={flat.get(key, '-')}" for key in extra)]))
    return labels


def prior_records(ledger: Ledger) -> tuple[str, ...]:
    """The docids of a review's prior records, sorted: where the review started from."""
    return tuple(sorted({docid for docid, prior in zip(ledger.docids, ledger.prior, strict=True) if prior}))


def pair_key(ledger: Ledger) -> tuple[str, str, tuple]:
    """What pairs runs across groups: the collection (its digest), the topic and the replicate (seed, prior seed).

    In a sweep every run has its own derived seed; the replicate it belongs to is the sweep's seed (and prior seed),
    so that is what pairs (and counts as "the seed" in bands over seeds). A review without priors counts its seed
    as its prior seed, so that it pairs with the runs of a preset that draws its priors with the review's seed.
    A review of another tool records no seed: its replicate is (0, 0, its prior records), so two ASReview projects
    of one review from different priors are two replicates.
    """
    collection = ledger.header.get("inputs", {}).get("collection", "")
    sweep = ledger.header.get("sweep")
    config = ledger.header.get("config", {})
    seed = int(sweep["seed"] if sweep else ledger.header.get("seed", config.get("seed", 0)))
    prior = (sweep or {}).get("prior_seed", config.get("prior_seed"))
    replicate: tuple = (seed, seed if prior is None else int(prior))
    if is_foreign(ledger):
        replicate = (*replicate, ",".join(prior_records(ledger)))
    return collection, ledger.topic, replicate


def replicate_name(replicate: tuple) -> str:
    """A replicate as shown in tables: `3`, or `3/p1` when its prior seed differs from its seed; another tool's
    review by its prior records (`priors 329,674`)."""
    if len(replicate) > 2:
        return f"priors {replicate[2]}" if replicate[2] else "no priors"
    seed, prior = replicate
    return str(seed) if prior == seed else f"{seed}/p{prior}"


# ---- scores ---------------------------------------------------------------------------------------------------
def budget_name(a: float, b: float) -> str:
    return f"Recall@{a:g}R+{b:g}"


def _describe(replicate: tuple) -> str:
    if len(replicate) > 2:
        return f"from {'the same priors ' + replicate[2] if replicate[2] else 'no priors'}"
    seed, prior = replicate
    return f"seed {seed}" if prior == seed else f"seed {seed}, prior seed {prior}"


def _same_run(group: str, first: Ledger, second: Ledger, replicate: tuple) -> ConfigError:
    """The one-line refusal of two inputs that would take the same place in a group (one would hide the other)."""
    where = f"{first.source} and {second.source}: two reviews of topic {first.topic!r} in group {group!r}"
    if len(replicate) > 2:
        return ConfigError(
            f"{where} {_describe(replicate)}; another tool's reviews are told apart by their prior records "
            "(their files record no seed): give them in separate calls"
        )
    own, other = _flat_config(first), _flat_config(second)
    differ = sorted(key for key in set(own) | set(other) if own.get(key) != other.get(key) and key != "seed")
    add = "add it to --group-by" if len(differ) == 1 else "add one of them to --group-by"
    hint = f"; they differ in {', '.join(differ)}: {add}" if differ else " (the same run given twice?)"
    return ConfigError(f"{where} with the same collection and {_describe(replicate)}{hint}")


def refuse_repeated_runs(groups: Mapping[str, Sequence[Ledger]]) -> bool:
    """Refuse (ConfigError, one line) two runs of a group that take the same place: the same collection (when every
    review records one), topic and replicate; another tool's reviews: the same topic and prior records. One would
    hide the other in compare's scores. Returns whether runs pair by collection (every review records one)."""
    # Reviews read from other tools (ASReview projects, order files) record no collection digest: then runs pair by
    # topic and seed alone, so that tarsim's runs and theirs can be compared at all.
    by_collection = all(pair_key(ledger)[0] for members in groups.values() for ledger in members)
    for group, members in groups.items():
        seen: dict[tuple, Ledger] = {}
        for ledger in members:
            collection, topic, replicate = pair_key(ledger)
            place = (collection if by_collection else "", topic, replicate)
            if place in seen:
                raise _same_run(group, seen[place], ledger, replicate)
            seen[place] = ledger
    return by_collection


def refuse_identical_runs(groups: Mapping[str, Sequence[Ledger]]) -> None:
    """Refuse (ConfigError, one line) a run given twice to a figure: one folder spelt two ways, or two folders holding
    the same run's ledgers (the same header and judgments), which would count twice in a plotted mean. Distinct runs
    that share a line's place (another tool's replicates, runs that --group-by puts together) are averaged, as a
    line's runs are; compare, which pairs runs, refuses those too (refuse_repeated_runs)."""
    seen: dict[tuple, Ledger] = {}
    for members in groups.values():
        for ledger in members:
            key = (
                json.dumps(ledger.header, sort_keys=True),
                tuple(ledger.docids),
                ledger.sentence.tobytes(),
                ledger.label.tobytes(),
            )
            if key in seen:
                raise ConfigError(
                    f"{seen[key].source} and {ledger.source}: the same header and judgments (the same run given twice?)"
                )
            seen[key] = ledger


def run_place(ledger: Ledger, by_collection: bool) -> dict:
    """Where a run stands in its group, as every paired table names it: collection (the digest's first 12
    characters when runs pair by collection, see refuse_repeated_runs, else ""), topic, seed (replicate_name),
    and what pairs it with another tool's reviews: its prior records and whether it is one (`foreign`)."""
    collection, topic, replicate = pair_key(ledger)
    return {
        "collection": collection[:12] if by_collection else "",
        "topic": topic,
        "seed": replicate_name(replicate),
        "priors": ",".join(prior_records(ledger)),
        "foreign": is_foreign(ledger),
    }


def run_key(place: Mapping) -> str:
    """A run's key within its group (unique there: refuse_repeated_runs) from its run_place."""
    return f"{place['collection']}|{place['topic']}|{place['seed']}"


def run_scores(
    ledgers: Sequence[Ledger],
    effort_model: str = "judge",
    grid_a: Sequence[float] = GRID_A,
    grid_b: Sequence[float] = GRID_B,
    wss_recall: float = 0.95,
    group_by: Sequence[str] | None = None,
    recall: str = "presented",
) -> pd.DataFrame:
    """One row per run x measure: group, collection, topic, seed, measure, value (None: not reached), and what pairs
    the run with other tools' reviews: its prior records (`priors`) and whether it is one (`foreign`).

    Two runs of a group that would take the same place (collection, topic, seed; another tool's review: topic and
    prior records) are refused with ConfigError: one would silently replace the other in every mean."""
    from tarsim.metrics import tar

    rows = []
    level = f"{wss_recall * 100:g}"
    groups = group_ledgers(ledgers, group_by)
    by_collection = refuse_repeated_runs(groups)
    for group, members in groups.items():
        for ledger in members:
            base = {"group": group, **run_place(ledger, by_collection)}
            curve = recall_curve(ledger, effort_model, recall=recall)
            for a in grid_a:
                for b in grid_b:
                    rows.append(
                        {**base, "measure": budget_name(a, b), "value": curve.known_recall_at(a * curve.relevant + b)}
                    )
            wss = tar.wss(ledger, wss_recall, kind=recall)  # as ASReview Insights computes it
            rows.append({**base, "measure": f"WSS@{level}", "value": wss})
            rows.append({**base, "measure": f"effort to {level}% recall", "value": curve.effort_to(wss_recall)})
    columns = ["group", "collection", "topic", "seed", "priors", "foreign", "measure", "value"]
    return pd.DataFrame(rows, columns=columns)


@dataclass
class Comparison:
    """Summary rows (one per group x measure) and the settings they were computed with."""

    rows: list[dict]
    groups: list[str]
    measures: list[str]
    baseline: str
    effort_model: str
    recall: str = "presented"
    priors: bool = False  # whether any run has prior records (the table then says how each measure counts them)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


def _summary(values: list[float]) -> dict:
    """n, mean, sd, min, max and the mean's 95% percentile-bootstrap interval (tarsim.stopping.aggregate's)."""
    from tarsim.stopping.aggregate import mean_interval

    data = np.array(values, dtype=np.float64)
    if not len(data):
        return {"n": 0, "mean": None, "sd": None, "min": None, "max": None, "ci_low": None, "ci_high": None}
    _, low, high = mean_interval(data)
    return {
        "n": len(data),
        "mean": math.fsum(data) / len(data),
        "sd": float(np.std(data, ddof=1)) if len(data) > 1 else None,  # no spread from one value
        "min": float(data.min()),
        "max": float(data.max()),
        "ci_low": low,
        "ci_high": high,
    }


def resolve_baseline(name: str, groups: Sequence[str]) -> str:
    """The group called `name`, or the only group whose label contains it."""
    if name in groups:
        return name
    matches = [g for g in groups if name in [part.strip() for part in g.split(",")]] or [g for g in groups if name in g]
    if len(matches) == 1:
        return matches[0]
    accepted = "; ".join(groups)
    problem = "matches several groups" if matches else "is not a group"
    raise ConfigError(f"baseline {name!r} {problem}; groups: {accepted}")


def compare(
    ledgers: Sequence[Ledger],
    baseline: str,
    effort_model: str = "judge",
    grid_a: Sequence[float] = GRID_A,
    grid_b: Sequence[float] = GRID_B,
    group_by: Sequence[str] | None = None,
    seed: int = 0,
    n_resamples: int = 10000,
    recall: str = "presented",
) -> Comparison:
    """Mean and spread of each measure per group over topics and seeds, and paired tests of each group against
    the baseline on the runs both have (same collection, topic and seed) where both values exist."""
    from tarsim.metrics.significance import paired_tests

    scores = run_scores(ledgers, effort_model, grid_a, grid_b, group_by=group_by, recall=recall)
    groups = list(dict.fromkeys(scores["group"]))
    base = resolve_baseline(baseline, groups)
    measures = list(dict.fromkeys(scores["measure"]))
    runs_of: dict[str, dict[str, tuple[str, str, bool]]] = {}  # group -> run key -> (topic, priors, foreign)
    table: dict[tuple[str, str], dict[str, float]] = {}
    for row in scores.itertuples(index=False):
        key = run_key(row._asdict())  # unique within a group (run_scores refuses repeats)
        runs_of.setdefault(row.group, {})[key] = (row.topic, row.priors, bool(row.foreign))
        if row.value is not None and not (isinstance(row.value, float) and math.isnan(row.value)):
            table.setdefault((row.group, row.measure), {})[key] = float(row.value)
    pairings = {group: run_pairing(runs_of[base], runs_of[group]) for group in groups if group != base}
    rows = []
    for measure in measures:
        for group in groups:
            values = table.get((group, measure), {})
            runs = int(((scores["group"] == group) & (scores["measure"] == measure)).sum())
            row = {"measure": measure, "group": group, "runs": runs, **_summary(list(values.values()))}
            row.update(pairs=None, diff=None, t=None, p_t=None, p_rand=None, p_holm=None)
            if group != base:
                reference, mine = paired_values(pairings[group], table.get((base, measure), {}), values)
                shared = set(mine) & set(reference)
                row["pairs"] = len(shared)
                if len(shared) >= 2:
                    test = paired_tests(reference, mine, seed=seed, n_resamples=n_resamples)
                    row.update(diff=test["diff"], t=test["t"], p_t=test["p_t"], p_rand=test["p_rand"])
                elif shared:  # one pair: its difference, but no test
                    (key,) = shared
                    row["diff"] = mine[key] - reference[key]
            rows.append(row)
    _holm(rows)
    priors = bool((scores["priors"] != "").any())
    return Comparison(rows, groups, measures, base, effort_model, recall, priors)


def _holm(rows: list[dict]) -> None:
    """Each tested row's p_holm: its t-test's p adjusted by Holm's step-down method over the groups tested on the
    same measure (many groups: many chances of a small p)."""
    from tarsim.stopping.aggregate import holm_rows

    for measure in dict.fromkeys(row["measure"] for row in rows):
        holm_rows([row for row in rows if row["measure"] == measure], "p_t")


def run_pairing(
    base: dict[str, tuple[str, str, bool]], other: dict[str, tuple[str, str, bool]]
) -> tuple[dict[str, str], dict[str, str]]:
    """Which runs of two groups pair: run key -> pair key for each. tarsim's runs pair by collection, topic and seed;
    where either group holds another tool's reviews (which record no seed), by topic and prior records (the same
    start), else by topic alone, whichever first names every run of both groups once and pairs at least one;
    otherwise nothing pairs."""
    if not any(foreign for *_, foreign in [*base.values(), *other.values()]):
        return {k: k for k in base}, {k: k for k in other}
    for level in (lambda run: f"{run[0]}|{run[1]}", lambda run: run[0]):
        mapped = [{key: level(run) for key, run in runs.items()} for runs in (base, other)]
        if all(len(set(m.values())) == len(m) for m in mapped) and set(mapped[0].values()) & set(mapped[1].values()):
            return mapped[0], mapped[1]
    return {}, {}


def paired_values(
    pairing: tuple[dict[str, str], dict[str, str]], reference: dict[str, float], mine: dict[str, float]
) -> tuple[dict[str, float], dict[str, float]]:
    """The baseline's and a group's values (by run key) re-keyed by pair key through run_pairing's `pairing`, runs
    it leaves unpaired dropped: the pairs are the keys both results have."""
    left_of, right_of = pairing
    return (
        {left_of[k]: v for k, v in reference.items() if k in left_of},
        {right_of[k]: v for k, v in mine.items() if k in right_of},
    )


# ---- output ---------------------------------------------------------------------------------------------------
def _number(value, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}" if abs(value) < 1000 else f"{value:.0f}"


def priors_line(measures: Sequence[str]) -> str:
    """How the measures count prior judgments, for the caption of a table of reviews that have some: Recall@E and
    effort count them (the whole ledger), WSS leaves them out (Insights'), so numbers differ from `tarsim metrics`."""
    wss = [measure for measure in measures if measure.startswith("WSS@")]
    return (
        f"Recall@E and effort count the prior judgments; {', '.join(wss) or 'WSS'} leaves them out (as Insights and "
        "tarsim metrics by default)"
    )


def with_priors_line(note: str, ledgers: Sequence[Ledger], rows: Sequence[Mapping]) -> str:
    """A per-group table's caption `note`, with priors_line for the measures of `rows` when a run has prior records
    (as the side-by-side table adds it from Comparison.priors)."""
    if not any(prior_records(ledger) for ledger in ledgers):
        return note
    return f"{note}; {priors_line(list(dict.fromkeys(row['measure'] for row in rows)))}"


def format_comparison(result: Comparison) -> str:
    """Side by side: one row per measure, one column per group with mean ± sd, then each group's paired test; runs
    with prior records add a line on how each measure counts them."""
    from tarsim.reporting.table_formats import digits_for, mean_cell

    cells: dict[str, dict[str, str]] = {}
    digits = {m: digits_for([r["mean"] for r in result.rows if r["measure"] == m]) for m in result.measures}
    for row in result.rows:  # shares to 3 decimals, efforts to 1 (121.6 documents, not 121.556)
        cell = mean_cell(row["mean"], row["sd"], row["ci_low"], row["ci_high"], digits[row["measure"]])
        if row["n"] < row["runs"]:
            cell += f" ({row['n']}/{row['runs']})"
        cells.setdefault(row["measure"], {})[row["group"]] = cell
    side = pd.DataFrame.from_dict(cells, orient="index")[result.groups]
    runs = max((row["runs"] for row in result.rows), default=0)
    lines = [
        f"Mean ± sd [95% bootstrap CI] over topics and seeds (effort model {result.effort_model}"
        f"{'' if result.effort_model == 'judge' else ', WSS@95 in documents whatever the effort model'}; "
        f"recall {result.recall}; up to {runs} runs per group; (n/m): measure known in n of m runs: recall level not "
        "reached, or Recall@E beyond a run's effort budget)",
        *([priors_line(result.measures)] if result.priors else []),
        side.to_string(),
        "",
        f"Paired tests against the baseline {result.baseline!r} (pairs: same collection, topic and seed; another "
        "tool's reviews: same topic and priors, else same topic; diff = group - baseline; p_t: paired t-test (- where "
        "every difference is the same: undefined); "
        "p_holm: p_t adjusted by Holm over the groups tested on a measure; p_rand: randomisation test)",
    ]
    tests = pd.DataFrame(
        [
            {k: row[k] for k in ("measure", "group", "pairs", "diff", "p_t", "p_holm", "p_rand")}
            for row in result.rows
            if row["group"] != result.baseline
        ]
    )
    if tests.empty:
        lines.append("(no other group)")
    else:
        formatted = tests.assign(
            diff=[_number(v) for v in tests["diff"]],
            p_t=[_number(v, 4) for v in tests["p_t"]],
            p_holm=[_number(v, 4) for v in tests["p_holm"]],
            p_rand=[_number(v, 4) for v in tests["p_rand"]],
        )
        lines.append(formatted.to_string(index=False))
    return "\n".join(lines)


def comparison_json(result: Comparison) -> dict:
    """A JSON-ready document of the comparison (NaN and infinities as null)."""

    def clean(value):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return None
        if isinstance(value, np.integer):
            return int(value)
        return value

    return {
        "baseline": result.baseline,
        "effort_model": result.effort_model,
        "recall": result.recall,
        "groups": result.groups,
        "measures": result.measures,
        "rows": [{k: clean(v) for k, v in row.items()} for row in result.rows],
    }
