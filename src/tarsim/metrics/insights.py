"""The measures of ASReview Insights' `asreview metrics` (1.6.1), on one review's label sequence.

A review is seen as Insights sees it: the 0/1 labels of the records in screening order, padded with zeros to the
N records of the collection (an unfinished review never finds the rest). By default the prior records are left out
(Insights' default; `--priors` there, priors="include" here): the sequence then starts after them, N and R are
counted without them. With x = k/N the share of records screened and found(k) the relevant found in the first k:

- RRF@p ("recall" in Insights): found(k)/R at the largest k with k/N <= p (0 when p < 1/N).
- ERF@p: (found(k) - round(linspace(0, R, N))[k-1]) / R at the same k: relevant found beyond screening in random
  order (numpy rounding, half to even).
- WSS@r: with the recall levels j/R, take the largest j with j/R <= r (so WSS@95 with R = 10 is read at 90%
  recall; below 1/R, at j = R); WSS = (t_random(j) - t(j)) / N where t(j) and t_random(j) count the records
  before the j-th relevant is found in screening order and in random order (round(linspace(0, R, N))).
- TD of a relevant record: its 1-based position in the sequence; ATD: the mean TD.

R is the topic's R (from the ledger or the data), not the relevant found: Insights takes the sum of the padded
labels, which is the same whenever the review found every relevant record (as `asreview simulate` does).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.qrels import Qrels
from tarsim.errors import ConfigError, InputError, TarsimError
from tarsim.metrics.recall_effort import GRID_A, GRID_B, first_relevant_presentations, relevant_count

PRIORS = ("exclude", "include")
WSS_LEVELS = (0.95, 1.0)
RRF_PERCENTS = (5.0, 10.0)
ERF_PERCENTS = (10.0,)
RECALL_LEVELS = (0.8, 0.95, 1.0)
LEVEL_KINDS = ("wss", "rrf", "erf")
"""Measures computed at levels (`tarsim metrics --wss/--rrf/--erf`, Insights' --wss/--recall/--erf): shares 0-1."""


@dataclass(frozen=True)
class Levels:
    """The levels each level measure is computed at: WSS at recall levels, RRF and ERF at shares screened (0-1)."""

    wss: tuple[float, ...] = WSS_LEVELS
    rrf: tuple[float, ...] = tuple(p / 100 for p in RRF_PERCENTS)
    erf: tuple[float, ...] = tuple(p / 100 for p in ERF_PERCENTS)

    @classmethod
    def given(cls, **levels: Sequence[float] | None) -> Levels:
        """Levels from options: each measure's given levels replace its defaults (as in Insights); each level a
        share in (0, 1], repeats dropped; ConfigError naming the option otherwise."""
        chosen = {}
        for kind_name, values in levels.items():
            if kind_name not in LEVEL_KINDS:
                raise ConfigError(f"unknown level measure {kind_name!r}; accepted: {', '.join(LEVEL_KINDS)}")
            if not values:
                continue
            for value in values:
                if not (isinstance(value, (int, float)) and 0 < value <= 1):  # NaN fails too
                    shown = f"{value:g}" if isinstance(value, float) else repr(value)
                    raise ConfigError(
                        f"--{kind_name} {shown}: give a share from 0 (excluded) to 1, e.g. 0.9 for 90% "
                        "(as `asreview metrics` takes it)"
                    )
            chosen[kind_name] = tuple(dict.fromkeys(float(v) for v in values))
        return cls(**chosen)


def level_name(kind_name: str, level: float) -> str:
    """A level measure's key: `wss_95`, `rrf_5`, `erf_12.5` (the level in percent)."""
    return f"{kind_name}_{round(level * 100, 6):g}"


@dataclass(frozen=True)
class Screening:
    """One review as a label sequence: screened records in order, labels padded with zeros to n records."""

    topic: str
    tool: str
    docids: list[str]  # the screened records in order (first presentations; priors left out when excluded)
    labels: np.ndarray  # int64 0/1, length n
    relevant: int  # R counted as the sequence counts it
    priors: int  # prior records in the review (left out of the sequence when excluded)

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def judged(self) -> int:
        return len(self.docids)


COMPONENTS = {"learner": "learner", "extractor": "features", "policy": "policy", "batch": "batch"}
"""The settings a preset bundles that name a component spec (field -> component kind); compared as resolved specs."""


def tool_of(ledger: Ledger) -> str:
    """Who produced a review and with what: the header's `tool` (readers of other tools' output set it: an ASReview
    project's model, an order file's name), else `tarsim` and its preset (or strategy when it has none), followed by
    every component its settings override (`tarsim asreview-default; learner nb:alpha=3.822; extractor tfidf`), so
    that a run with other components is never averaged with the preset's own runs."""
    header = ledger.header
    if header.get("tool"):
        return str(header["tool"])
    config = header.get("config", {})
    name = f"tarsim {config.get('preset') or config.get('strategy', '')}".strip()
    estimator = given_estimator(header)
    return "; ".join([name, *overrides(config), *([f"learner {estimator}"] if estimator else [])])


def given_estimator(header: dict) -> str | None:
    """The estimator object a review was given instead of a named learner, as its header records it (`learner` is
    then the object's repr, not the named learner's record; the config still names the default)."""
    recorded, config = header.get("learner"), header.get("config", {})
    if not recorded or "learner" not in config:
        return None
    from tarsim.learners.named import LEARNER_RECORDS

    try:
        expected = LEARNER_RECORDS[str(config["learner"])]
    except (KeyError, TarsimError):  # a plugin's learner this installation does not have: nothing to compare
        return None
    return None if recorded == expected else " ".join(str(recorded).split())  # a Pipeline's repr spans lines


def overrides(config: dict) -> list[str]:
    """`learner nb:alpha=3.822`, ...: each setting of a ledger header's config that its preset does not give."""
    return [f"{field.rstrip('_')} {_text(config[field])}" for field in overridden(config)]


def overridden(config: dict) -> list[str]:
    """The fields of a ledger header's config that differ from its preset (tarsim's defaults where the preset does
    not set a field, or without a preset): the components it names, the bmi learner's lambda and bmi's features."""
    settings = _preset_settings(config.get("preset"))
    if settings is None:
        return []  # a preset this installation does not know: its own name is all that can be said
    reference = {**_defaults(), **settings}
    names = [*COMPONENTS, "presumed_nonrelevant"]
    if str(config.get("learner", reference["learner"])).split(":")[0] == "bmi":
        names.append("lambda_")
    if str(config.get("extractor", "bmi")) == "bmi":
        names.append("features")
    return [name for name in names if name in config and not _same(name, config[name], reference.get(name))]


@functools.cache
def _defaults() -> dict:
    """tarsim's default settings as a ledger header records them."""
    from tarsim.config.review import ReviewConfig

    return {**ReviewConfig().to_dict(), "extractor": "bmi"}


def _preset_settings(name: object) -> dict | None:
    if not name:
        return {}
    from tarsim.components import kind
    from tarsim.errors import TarsimError

    try:
        cls, _ = kind("preset").resolve(str(name))
    except TarsimError:
        return None
    return dict(cls.settings)


def _same(field: str, value: object, reference: object) -> bool:
    """Whether a recorded setting is the reference one: component specs compared as resolved (parameter order and
    spelled-out defaults aside), other values as they are."""
    if value == reference:
        return True
    if field not in COMPONENTS or not isinstance(value, str) or not isinstance(reference, str):
        return False
    from tarsim.components import kind
    from tarsim.errors import TarsimError

    try:
        return kind(COMPONENTS[field]).resolve(value) == kind(COMPONENTS[field]).resolve(reference)
    except TarsimError:
        return False


def _text(value: object) -> str:
    if isinstance(value, dict):
        return ",".join(f"{key}={_text(item)}" for key, item in sorted(value.items()))
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def check_priors(priors: str) -> str:
    """Validate a priors convention name."""
    if priors not in PRIORS:
        raise ConfigError(f"priors must be one of {', '.join(PRIORS)}, got {priors!r}")
    return priors


def screening(
    ledger: Ledger, priors: str = "exclude", qrels: Qrels | None = None, recall: str = "presented"
) -> Screening:
    """The ledger's label sequence: documents in order of first presentation, label 1 where relevant (truth > 0,
    or the qrels when given; with `recall="found"` only where the reviewer labelled it relevant at some presentation,
    as first_relevant_presentations counts it); prior records dropped when `priors` is "exclude"."""
    check_priors(priors)
    seen: set[str] = set()
    order: list[int] = []
    for index, docid in enumerate(ledger.docids):
        if docid not in seen:
            seen.add(docid)
            order.append(index)
    # a record counts where first_relevant_presentations counts it, at any of its presentations (`found`: the first
    # the reviewer labelled relevant), and takes its place in the sequence at its first presentation
    counted = {ledger.docids[i] for i in np.flatnonzero(first_relevant_presentations(ledger, qrels, recall))}
    relevant_flags = np.array([docid in counted for docid in ledger.docids], dtype=bool)
    total_relevant = relevant_count(ledger, qrels)
    is_prior = np.asarray(ledger.prior, dtype=bool)
    prior_idx = [i for i in order if is_prior[i]]
    n = ledger.collection_size
    if priors == "exclude":
        order = [i for i in order if not is_prior[i]]
        n -= len(prior_idx)
        total_relevant -= sum(int(relevant_flags[i]) for i in prior_idx)
    if len(order) > n:
        raise InputError(ledger.source, None, f"{len(order)} records screened but the collection has only {n}")
    labels = np.zeros(n, dtype=np.int64)
    labels[: len(order)] = relevant_flags[order]
    return Screening(
        topic=ledger.topic,
        tool=tool_of(ledger),
        docids=[ledger.docids[i] for i in order],
        labels=labels,
        relevant=int(total_relevant),
        priors=len(prior_idx),
    )


def _k_screened(n: int, fraction: float) -> int:
    """Records screened at share `fraction`: the largest k with k/n <= fraction (as Insights' slice on x = k/n)."""
    return int(np.searchsorted(np.arange(1, n + 1) / n, fraction, side="right"))


def _random_found(relevant: int, n: int) -> np.ndarray:
    return np.round(np.linspace(0, relevant, n))


def rrf(labels: Sequence[int], percent: float, relevant: int | None = None) -> float | None:
    """Relevant records found after screening `percent`% of the records, as a share of R (Insights' recall@p)."""
    return rrf_at(labels, percent / 100.0, relevant)


def rrf_at(labels: Sequence[int], share: float, relevant: int | None = None) -> float | None:
    """RRF at a share (0-1) of the records screened, as Insights' `--recall 0.2` takes it."""
    labels = np.asarray(labels)
    r = int(labels.sum()) if relevant is None else relevant
    if not r or not len(labels):
        return None
    k = _k_screened(len(labels), share)
    return float(labels[:k].sum()) / r


def erf(labels: Sequence[int], percent: float, relevant: int | None = None) -> float | None:
    """Extra relevant records found after screening `percent`% over screening in random order, as a share of R."""
    return erf_at(labels, percent / 100.0, relevant)


def erf_at(labels: Sequence[int], share: float, relevant: int | None = None) -> float | None:
    """ERF at a share (0-1) of the records screened, as Insights' `--erf 0.05` takes it."""
    labels = np.asarray(labels)
    r = int(labels.sum()) if relevant is None else relevant
    if not r or not len(labels):
        return None
    k = _k_screened(len(labels), share)
    if not k:
        return 0.0  # less than one record screened: nothing found either way
    found = np.cumsum(labels)
    return float(found[k - 1] - _random_found(r, len(labels))[k - 1]) / r


def wss(labels: Sequence[int], recall: float, relevant: int | None = None) -> float | None:
    """Work saved over sampling at recall level `recall` as Insights computes it (None if never reached)."""
    labels = np.asarray(labels)
    r = int(labels.sum()) if relevant is None else relevant
    if not r or not len(labels):
        return None
    levels = np.arange(1, r + 1)
    j = int(levels[np.searchsorted(levels / r, recall, side="right") - 1])
    found = np.cumsum(labels)
    when = int(np.searchsorted(found, j))
    if when >= len(labels):
        return None
    when_random = int(np.searchsorted(_random_found(r, len(labels)), j))
    return (when_random - when) / len(labels)


def time_to_discovery(screen: Screening) -> list[tuple[str, int]]:
    """(docid, 1-based position in the sequence) of every relevant record screened, in order."""
    positions = np.flatnonzero(screen.labels[: screen.judged]) + 1
    return [(screen.docids[p - 1], int(p)) for p in positions]


def docs_to_recall(labels: Sequence[int], level: float, relevant: int | None = None) -> int | None:
    """Records screened when recall first reaches `level` (None if never)."""
    labels = np.asarray(labels)
    r = int(labels.sum()) if relevant is None else relevant
    if not r:
        return None
    reached = np.flatnonzero(np.cumsum(labels) / r >= level - 1e-12)
    return int(reached[0]) + 1 if reached.size else None


def recall_grid(screen: Screening, grid_a=GRID_A, grid_b=GRID_B) -> dict[str, float | None]:
    """Recall@E at E = aR+b records screened ("2R+100" -> recall), R and records as the sequence counts them."""
    found = np.cumsum(screen.labels)
    grid: dict[str, float | None] = {}
    for a in grid_a:
        for b in grid_b:
            effort = min(math.floor(a * screen.relevant + b), screen.n)
            grid[f"{a:g}R+{b:g}"] = (
                float(found[effort - 1]) / screen.relevant if screen.relevant and effort > 0 else None
            )
    return grid


def measures(screen: Screening, with_td: bool = True, levels: Levels | None = None) -> dict:
    """Every measure of one review as a flat dict (names as in `tarsim metrics --format json`), the level measures
    at `levels` (default: WSS@95/100, RRF@5/10, ERF@10)."""
    labels, r = screen.labels, screen.relevant
    levels = levels or Levels()
    row: dict = {
        "topic": screen.topic,
        "tool": screen.tool,
        "N": screen.n,
        "R": r,
        "judged": screen.judged,
        "priors": screen.priors,
    }
    for level in levels.wss:
        row[level_name("wss", level)] = wss(labels, level, r)
    for share in levels.rrf:
        row[level_name("rrf", share)] = rrf_at(labels, share, r)
    for share in levels.erf:
        row[level_name("erf", share)] = erf_at(labels, share, r)
    td = time_to_discovery(screen)
    row["atd"] = math.fsum(p for _, p in td) / len(td) if td else None
    for level in RECALL_LEVELS:
        row[f"docs_to_{round(level * 100)}"] = docs_to_recall(labels, level, r)
    row["recall_at_effort"] = recall_grid(screen)
    if with_td:
        row["td"] = [[docid, position] for docid, position in td]
    return row


def mean_measures(rows: Sequence[dict]) -> dict:
    """Mean of every numeric measure over rows (None when any row lacks it: a mean over fewer would mislead)."""
    keys = [k for k in rows[0] if k not in ("topic", "tool", "td", "recall_at_effort", "source")] if rows else []
    mean: dict = {"topics": len({row["topic"] for row in rows}), "runs": len(rows)}
    for key in keys:
        values = [row[key] for row in rows]
        mean[key] = None if any(v is None for v in values) else math.fsum(values) / len(values)
    grid_keys = list(rows[0]["recall_at_effort"]) if rows else []
    mean["recall_at_effort"] = {}
    for key in grid_keys:
        values = [row["recall_at_effort"][key] for row in rows]
        mean["recall_at_effort"][key] = None if any(v is None for v in values) else math.fsum(values) / len(values)
    return mean


def metrics_document(
    ledgers: Sequence[Ledger],
    priors: str = "exclude",
    qrels: Qrels | None = None,
    version: str = "",
    recall: str = "presented",
    levels: Levels | None = None,
) -> dict:
    """`tarsim metrics --format json`: every review's measures (with TD) and their mean per tool."""
    rows = []
    for ledger in ledgers:
        row = measures(screening(ledger, priors, qrels, recall), levels=levels)
        row["source"] = ledger.source
        rows.append(row)
    tools = list(dict.fromkeys(row["tool"] for row in rows))
    return {
        "tarsim": version,
        "priors": check_priors(priors),
        "recall": recall,
        "reviews": rows,
        "mean": {tool: mean_measures([row for row in rows if row["tool"] == tool]) for tool in tools},
    }
