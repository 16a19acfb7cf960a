"""Aggregates of a stopping study's tidy table (tarsim.stopping.study): per rule and target, means with 95%
confidence intervals, reliability with its binomial interval, and paired tests against a baseline rule.

- Means: percentile bootstrap intervals (scipy.stats.bootstrap, 2,000 resamples, a fixed seed, so a study prints
  the same figures every time). A bootstrap rather than a t-interval because the measures are bounded and skewed
  (recall piles up at 1, costs have long tails): its interval stays inside the values' range, where a t-interval
  of a recall mean near 1 can reach past it. The runs are resampled as independent; seeds of one review are not,
  so the interval speaks of the mean over these reviews and seeds.
- Reliability (the share of runs whose recall at the stop reached the target): Wilson's score interval
  (scipy.stats.binomtest(...).proportion_ci(method="wilson")), sound also at shares of 0 or 1.
- Paired tests: each rule against the baseline on the same reviews (the same ledgers: topic and seed), within each
  group when the study is grouped (e.g. per collection and preset), Wilcoxon's signed-rank test
  (scipy.stats.wilcoxon, two-sided, zero differences dropped as Wilcoxon did) on each measure, with Holm's
  step-down correction over every comparison (group x rule) made at one target and measure.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 0
SUMMARY_MEASURES = (
    "recall",
    "documents",
    "cost_judge",
    "excess_judge",
    "relative_judge",
    "shortfall",
    "loss_er",
    "wss",
    "tnr",
    "missed_share",
    "unused_saving",
)
"""Measures whose means (with intervals) the summary reports, when the table has them."""
TEST_MEASURES = ("recall", "documents")
"""Measures the paired tests compare by default: recall and documents judged at the stop."""


def mean_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of the finite values and its percentile-bootstrap 95% interval (NaN when there
    is no value; the mean itself when all are equal or there is one)."""
    from scipy.stats import bootstrap

    data = np.asarray(values, dtype=np.float64)
    data = data[np.isfinite(data)]
    if not data.size:
        return math.nan, math.nan, math.nan
    mean = float(data.mean())
    if data.size < 2 or np.all(data == data[0]):
        return mean, mean, mean
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bootstrap(
            (data,),
            np.mean,
            n_resamples=RESAMPLES,
            confidence_level=CONFIDENCE,
            method="percentile",
            vectorized=True,
            random_state=np.random.default_rng(SEED),
        )
    low, high = result.confidence_interval
    return mean, float(low), float(high)


def proportion_interval(successes: int, trials: int) -> tuple[float, float, float]:
    """(share, low, high): Wilson's 95% interval of a binomial proportion (NaN without trials)."""
    from scipy.stats import binomtest

    if trials <= 0:
        return math.nan, math.nan, math.nan
    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return successes / trials, float(interval.low), float(interval.high)


def summarise(
    table: pd.DataFrame, measures: Sequence[str] = SUMMARY_MEASURES, group_by: Sequence[str] = ()
) -> pd.DataFrame:
    """One row per group (the columns `group_by`, e.g. collection), rule and target (in the table's order): runs, the
    share that fired, reliability with its interval, and each measure's mean with its interval (`<measure>`,
    `<measure>_low`, `<measure>_high`)."""
    if table.empty:
        return pd.DataFrame()
    measures = [measure for measure in measures if measure in table]
    rows = []
    keys = [*group_by, "rule", "target"]
    for values, group in table.groupby(keys, sort=False, dropna=False):  # a missing value is a group too
        *groups, rule, target = values
        row: dict = dict(zip(group_by, groups, strict=True))
        row.update({"rule": rule, "rule_given": group["rule_given"].iloc[0], "target": target, "runs": len(group)})
        row["stopped"] = float(group["stopped"].mean())
        met = group["target_met"].astype(bool)
        row["reliability"], row["reliability_low"], row["reliability_high"] = proportion_interval(
            int(met.sum()), len(met)
        )
        for measure in measures:
            mean, low, high = mean_interval(group[measure].to_numpy(dtype=np.float64))
            row[measure], row[f"{measure}_low"], row[f"{measure}_high"] = mean, low, high
        rows.append(row)
    return pd.DataFrame(rows)


def _review_keys(table: pd.DataFrame, pair_on: Sequence[str]) -> pd.Series:
    """One key per review (the columns `pair_on`, e.g. ledger, topic, policy, seed), to pair two rules' runs."""
    columns = [column for column in pair_on if column in table]
    values = zip(*(table[column].tolist() for column in columns), strict=True)
    return pd.Series(["|".join(map(str, row)) for row in values], index=table.index)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and is not counted)."""
    values = np.asarray(pvalues, dtype=np.float64)
    adjusted = np.full(values.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(values))
    order = finite[np.argsort(values[finite], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return adjusted.tolist()


def holm_rows(rows: Sequence[dict], p: str) -> None:
    """Set `p_holm` on each row whose `p` is a finite number: that p adjusted by Holm over those rows (the other rows
    keep their p_holm)."""
    tested = [row for row in rows if row[p] is not None and math.isfinite(row[p])]
    for row, adjusted in zip(tested, holm([row[p] for row in tested]), strict=True):
        row["p_holm"] = adjusted


def wilcoxon_p(differences: np.ndarray) -> tuple[float, float]:
    """(statistic, two-sided p) of Wilcoxon's signed-rank test; (0, 1) when every difference is zero."""
    from scipy.stats import wilcoxon

    nonzero = differences[differences != 0]
    if not nonzero.size:
        return 0.0, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = wilcoxon(nonzero)
    return float(result.statistic), float(result.pvalue)


def paired_tests(
    table: pd.DataFrame,
    baseline: str,
    measures: Sequence[str] = TEST_MEASURES,
    pair_on: Sequence[str] = ("ledger", "run_id", "topic", "policy", "seed"),
    group_by: Sequence[str] = (),
) -> pd.DataFrame:
    """Each rule against `baseline` (a rule of the table, as replayed or as given) at each target, paired on the
    same reviews within each group (the columns `group_by`, e.g. collection and preset: runs of two presets never
    pair): the group values, pairs, the mean and median difference (rule - baseline), Wilcoxon's p and Holm's
    adjusted p (over every comparison made at that target and measure: each group's rules)."""
    from tarsim.errors import ConfigError

    if table.empty:
        return pd.DataFrame()
    known = list(dict.fromkeys(table["rule"]))
    given = list(dict.fromkeys(table["rule_given"]))
    if baseline not in known and baseline not in given:
        raise ConfigError(f"baseline rule {baseline!r} is not among the rules of the study: {', '.join(given)}")
    column = "rule" if baseline in known else "rule_given"
    table = table.assign(_review=_review_keys(table, pair_on))
    measures = [measure for measure in measures if measure in table]
    group_by = list(group_by)
    parts = table.groupby(group_by, sort=False, dropna=False) if group_by else [((), table)]
    families: dict[tuple, list[dict]] = {}  # (target, measure): its comparisons, over all groups
    for values, group in parts:
        groups = dict(zip(group_by, values if isinstance(values, tuple) else (values,), strict=True))
        for row in _group_tests(group, baseline, column, measures):
            families.setdefault((row["target"], row["measure"]), []).append({**groups, **row})
    rows = []
    for block in families.values():
        for row, adjusted in zip(block, holm([row["p"] for row in block]), strict=True):
            row["p_holm"] = adjusted
        rows.extend(block)
    return pd.DataFrame(rows)


def _group_tests(table: pd.DataFrame, baseline: str, column: str, measures: Sequence[str]) -> list[dict]:
    """The unadjusted tests of one group's runs: each rule against the baseline per target and measure."""
    rows = []
    for target, at_target in table.groupby("target", sort=False):
        is_base = at_target[column] == baseline
        base = at_target[is_base].drop_duplicates("_review").set_index("_review")
        others = list(dict.fromkeys(at_target.loc[~is_base, "rule"]))
        for measure in measures:
            wide = at_target[~is_base].pivot_table(index="_review", columns="rule", values=measure, aggfunc="first")
            for rule in others:
                values = wide[rule] if rule in wide else pd.Series(dtype=float)
                paired = pd.concat([values.rename("rule"), base[measure].rename("base")], axis=1, join="inner")
                difference = (paired.dropna()["rule"] - paired.dropna()["base"]).to_numpy(dtype=np.float64)
                statistic, p = wilcoxon_p(difference) if difference.size else (math.nan, math.nan)
                rows.append(
                    {
                        "rule": rule,
                        "baseline": baseline,
                        "target": target,
                        "measure": measure,
                        "pairs": int(difference.size),
                        "mean_difference": float(difference.mean()) if difference.size else math.nan,
                        "median_difference": float(np.median(difference)) if difference.size else math.nan,
                        "statistic": statistic,
                        "p": p,
                    }
                )
    return rows


def default_baseline(table: pd.DataFrame) -> str:
    """The rule the paired tests compare with when none is named: the first rule (as given) that fired in some run,
    since one that never fired is a review of everything, no stopping rule to compare with; the first rule when none
    fired."""
    rules = list(dict.fromkeys(table["rule_given"]))  # in the order given (the table is by review, then rule)
    silent = set(never_fired(table))
    return str(next((rule for rule in rules if rule not in silent), rules[0]))


def never_fired(table: pd.DataFrame) -> list[str]:
    """The rules (as given) that fired in no run of the table."""
    fired = set(table.loc[table["stopped"].astype(bool), "rule_given"])
    return [rule for rule in dict.fromkeys(table["rule_given"]) if rule not in fired]


def baseline_line(table: pd.DataFrame, baseline: str, named: bool, group_by: Sequence[str] = ()) -> str:
    """The paired tests' title: the baseline, within which groups runs pair and over what Holm corrects, and why the
    baseline is that rule when it was chosen (not named by --baseline)."""
    line = f"paired Wilcoxon signed-rank tests against {baseline} (Holm)"
    if group_by:
        line = (
            f"paired Wilcoxon signed-rank tests against {baseline}, runs paired within each {' x '.join(group_by)} "
            "group (Holm over all the groups' comparisons at each target and measure)"
        )
    if named:
        return line
    skipped = [rule for rule in never_fired(table) if rule != baseline]
    first = str(table["rule_given"].iloc[0])
    if baseline == first:
        return f"{line}; baseline: the first rule"
    why = f"; {', '.join(skipped)} fired in no run" if skipped else ""
    return f"{line}; baseline: the first rule that fired in some run{why} (--baseline names another)"


NEVER_FIRED = "never fired"
"""The note of a summary row whose rule fired in no run of its group."""
EXCESS_CAPTION = (
    "excess_judge: judgments after the oracle stop (the fewest that reach the target; negative: stopped early)"
)
NEVER_FIRED_CAPTION = (
    "never fired: the rule stopped in no run of the group, so each review counts as read to its end (as the stopping "
    "papers count it): its recall, documents and reliability are those of reviewing everything, not of a stop"
)


def summary_caption(
    summary: pd.DataFrame, measures: Sequence[str] = ("recall", "documents", "excess_judge")
) -> list[str]:
    """The lines under a summary table: what excess_judge is (when shown) and what `never fired` means (when a row
    has it)."""
    lines = [EXCESS_CAPTION] if "excess_judge" in measures and "excess_judge" in summary else []
    if not summary.empty and (summary["stopped"] == 0).any():
        lines.append(NEVER_FIRED_CAPTION)
    return lines


def summary_text(
    summary: pd.DataFrame,
    measures: Sequence[str] = ("recall", "documents", "excess_judge"),
    group_by: Sequence[str] = (),
) -> str:
    """The summary as a text table: the group columns, then `mean [low, high]` per measure, reliability as a share
    with its interval, a `never fired` note on a rule that stopped in no run; then its caption lines."""
    if summary.empty:
        return "(no runs)"
    table = summary_cells(summary, measures, group_by).to_string(index=False)
    return "\n".join([table, *summary_caption(summary, measures)])


def summary_cells(
    summary: pd.DataFrame,
    measures: Sequence[str] = ("recall", "documents", "excess_judge"),
    group_by: Sequence[str] = (),
) -> pd.DataFrame:
    """The summary's cells as text (`mean [low, high]`), one column per group field, rule, target and measure, and a
    `note` (NEVER_FIRED) when a rule fired in no run of a group."""
    shown = pd.DataFrame(
        {
            **{column: summary[column] for column in group_by},
            "rule": summary["rule"],
            "target": summary["target"].map(lambda v: f"{v:g}"),
            "runs": summary["runs"],
            "fired": summary["stopped"].map(lambda v: f"{v:.2f}"),
            "reliability": [
                _interval(row.reliability, row.reliability_low, row.reliability_high, 2) for row in summary.itertuples()
            ],
        }
    )
    for measure in measures:
        if measure not in summary:
            continue
        digits = 3 if measure in ("recall", "shortfall", "loss_er", "wss", "tnr") else 1
        shown[measure] = [
            _interval(row[measure], row[f"{measure}_low"], row[f"{measure}_high"], digits)
            for _, row in summary.iterrows()
        ]
    if (summary["stopped"] == 0).any():  # its reliability 1.00 is that of reviewing everything (summary_caption)
        shown["note"] = [NEVER_FIRED if stopped == 0 else "" for stopped in summary["stopped"]]
    return shown


def paired_tests_text(tests: pd.DataFrame, group_by: Sequence[str] = ()) -> str:
    """The paired tests as a text table (the group columns first)."""
    if tests.empty:
        return "(no paired tests)"
    columns = ["rule", "baseline", "target", "measure", "pairs", "median_difference", "p", "p_holm"]
    shown = tests[[*group_by, *columns]].copy()
    shown["target"] = shown["target"].map(lambda v: f"{v:g}")
    return shown.to_string(
        index=False,
        formatters={
            "median_difference": lambda v: f"{v:.3f}",
            "p": lambda v: "n/a" if not np.isfinite(v) else f"{v:.3g}",
            "p_holm": lambda v: "n/a" if not np.isfinite(v) else f"{v:.3g}",
        },
    )


def _interval(mean: float, low: float, high: float, digits: int) -> str:
    if not np.isfinite(mean):
        return "n/a"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
