"""The words of a figure: the dataset a title names, what the band is over ("3 seeds", "5 prior seeds"), a legend
label that explains its count ("n = 15 runs"), and which lines are identical to an earlier one (so the later one is
drawn dashed on top and says so, instead of hiding or being hidden).

Shared by the matplotlib figures (tarsim.reporting.plots, tarsim.reporting.insights_plots) and the HTML report, so
that the same study is described in the same words everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.reporting.compare import pair_key

IDENTICAL_DASHES = (0, (4, 3))
"""The line style of a line identical to an earlier one: dashed, so the earlier line shows through its gaps."""


def dataset_name(ledgers: Sequence[Ledger]) -> str:
    """What the reviews were run on, for a title: the sweep's collection names, else the one topic reviewed, else ""
    (a ledger of `tarsim simulate` records its collection only by digest; the title then names the topics' count)."""
    names = sorted({str(ledger.header["sweep"]["collection"]) for ledger in ledgers if ledger.header.get("sweep")})
    topics = sorted({ledger.topic for ledger in ledgers})
    if names:
        return names[0] if len(names) == 1 else f"{len(names)} collections"
    return f"topic {topics[0]}" if len(topics) == 1 else ""


def titled(dataset: str, text: str) -> str:
    """`srd: mean recall ...`, or `Mean recall ...` when the dataset has no name."""
    return f"{dataset}: {text}" if dataset else text[:1].upper() + text[1:]


def replicate_count(ledgers: Sequence[Ledger]) -> tuple[int, str]:
    """How many replicates (what a band is over) and their noun: `seeds`, `prior seeds` when only the prior seed
    varies, or `prior sets` for other tools' reviews told apart by their prior records."""
    replicates = {pair_key(ledger)[2] for ledger in ledgers}
    if any(len(replicate) > 2 for replicate in replicates):
        return len(replicates), "prior sets" if len(replicates) != 1 else "prior set"
    seeds = {replicate[0] for replicate in replicates}
    priors = {replicate[1] for replicate in replicates}
    noun = "prior seed" if len(seeds) == 1 and len(priors) > 1 else "seed"
    return len(replicates), noun + ("s" if len(replicates) != 1 else "")


def band_note(
    ledgers: Sequence[Ledger], lines: Mapping[str, Sequence[Ledger]] | None = None, per_topic: bool = False
) -> str:
    """`band: min-max over 3 seeds`, or "" with a single replicate (no band is drawn). With `lines` (each line's
    runs), also what a line holds when that is more than its replicates (the runs of one seed of a line are averaged:
    over topics, or over a setting the lines do not tell apart): `band: min-max over 2 seeds; a line holds 4 runs`;
    `per_topic`: what a line holds in each panel (topic)."""
    count, noun = replicate_count(ledgers)
    if count <= 1:
        return ""
    held_runs: list[list[Ledger]] = []
    for runs in (lines or {}).values():
        if not per_topic:
            held_runs.append(list(runs))
            continue
        panels: dict[tuple, list[Ledger]] = {}
        for ledger in runs:
            panels.setdefault(pair_key(ledger)[:2], []).append(ledger)
        held_runs.extend(panels.values())
    sizes = sorted({len(runs) for runs in held_runs})
    held = ""
    if sizes and sizes[-1] > count:
        held = f"; a line holds {count_text(sizes)} runs" + (" per panel" if per_topic else "")
    return f"band: min-max over {count} {noun}{held}"


def count_text(counts: Sequence[int]) -> str:
    """`4`, or `2-4` when the counts differ."""
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low}-{high}"


def runs_label(name: str, runs: int | Sequence[int], per: str = "") -> str:
    """A legend entry with its count explained: `relevance (n = 15 runs)`; with `per` (small multiples: the counts
    of the line in each panel), `relevance (n = 3 runs per panel)` or `(n = 2-3 runs per panel)`."""
    counts = [runs] if isinstance(runs, int) else list(runs)
    plural = "s" if max(counts) != 1 or len(set(counts)) > 1 else ""
    return f"{name} (n = {count_text(counts)} run{plural}{f' per {per}' if per else ''})"


def topics_text(lines: Mapping[str, Sequence[Ledger]]) -> str:
    """What a line's mean is over: `over 3 topics` when a line holds several topics (`over up to 3 topics` when lines
    hold different numbers), "" when every line is one topic (a figure grouped by topic, or of one dataset)."""
    counts = [len({pair_key(ledger)[:2] for ledger in runs}) for runs in lines.values()]
    if not counts or max(counts) <= 1:
        return ""
    return f"over {'' if min(counts) == max(counts) else 'up to '}{max(counts)} topics"


def identical_to(curves: Mapping[str, np.ndarray]) -> dict[str, str]:
    """For each line whose values equal an earlier line's everywhere (NaN where it is NaN), that earlier line's name;
    such lines would hide each other when drawn solid."""
    seen: list[tuple[str, np.ndarray]] = []
    same: dict[str, str] = {}
    for name, values in curves.items():
        values = np.asarray(values, dtype=float)
        for other, earlier in seen:
            if earlier.shape == values.shape and np.allclose(earlier, values, equal_nan=True, rtol=0, atol=1e-12):
                same[name] = other
                break
        else:
            seen.append((name, values))
    return same
