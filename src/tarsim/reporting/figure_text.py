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


def band_note(ledgers: Sequence[Ledger]) -> str:
    """`band: min-max over 3 seeds`, or "" with a single replicate (no band is drawn)."""
    count, noun = replicate_count(ledgers)
    return f"band: min-max over {count} {noun}" if count > 1 else ""


def runs_label(name: str, runs: int) -> str:
    """A legend entry with its count explained: `relevance (n = 15 runs)`."""
    return f"{name} (n = {runs} run{'s' if runs != 1 else ''})"


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
