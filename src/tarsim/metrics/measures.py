"""Ranked-list measures as small declarative objects, named and parsed as ir_measures names them.

`R@100`, `nDCG@20`, `RPrec`, `AP@100`, `RR@10`, `Success@5`, with an optional relevance threshold
written ir_measures-style: `R(rel=2)@100` counts only documents judged 2 or higher as relevant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tarsim.errors import ConfigError

FAMILIES: dict[str, str] = {
    "R": "recall: relevant documents in the top k / all relevant documents",
    "Success": "hit rate: 1 if a relevant document is in the top k, else 0",
    "P": "precision: relevant documents in the top k / k",
    "nDCG": "normalised discounted cumulative gain (graded gains, log2 discount)",
    "RPrec": "R-precision: precision at rank |relevant|",
    "AP": "average precision (sum of precision at each relevant rank <= k, / |relevant|)",
    "RR": "reciprocal rank of the first relevant document (within the top k)",
}
"""Every measure family tarsim computes, with a one-line meaning."""

NEEDS_CUTOFF = frozenset({"R", "Success", "P"})
NO_CUTOFF = frozenset({"RPrec"})

ALIASES: dict[str, str] = {
    **{name.lower(): name for name in FAMILIES},
    "map": "AP",
    "mrr": "RR",
    "recall": "R",
    "rprec": "RPrec",
    "r-prec": "RPrec",
    "ndcg_cut": "nDCG",
    "map_cut": "AP",
    "recip_rank": "RR",
    "hitrate": "Success",
    "hits": "Success",
}

_TREC_EVAL = re.compile(r"^(?P<family>[A-Za-z][A-Za-z_-]*?)[._](?P<cutoff>[0-9]+)$")
"""trec_eval's names with a cutoff: `-m ndcg_cut.10`, `P.10`, `map_cut.100` as given, `P_10` as it prints them."""

_PATTERN = re.compile(r"^(?P<family>[A-Za-z][A-Za-z_-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[^@]+))?$")


@dataclass(frozen=True, slots=True)
class Measure:
    """One ranked-list measure: a family, an optional rank cutoff and a relevance threshold."""

    family: str
    cutoff: int | None = None
    rel: int = 1

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ConfigError(f"measure family {self.family!r} is unknown; accepted: {', '.join(FAMILIES)}")
        if self.cutoff is not None and (isinstance(self.cutoff, bool) or self.cutoff < 1):
            raise ConfigError(f"{self.family}: cutoff must be an integer >= 1, got {self.cutoff!r}")
        if self.family in NEEDS_CUTOFF and self.cutoff is None:
            raise ConfigError(f"{self.family} needs a cutoff, for example {self.family}@10")
        if self.family in NO_CUTOFF and self.cutoff is not None:
            raise ConfigError(f"{self.family} takes no cutoff (it is precision at rank |relevant|)")
        if isinstance(self.rel, bool) or self.rel < 1:
            raise ConfigError(f"{self.family}: rel must be an integer >= 1, got {self.rel!r}")

    @property
    def name(self) -> str:
        """The canonical name, as ir_measures prints it: `R(rel=2)@100`, `nDCG@20`, `RPrec`."""
        params = f"(rel={self.rel})" if self.rel != 1 else ""
        cutoff = f"@{self.cutoff}" if self.cutoff is not None else ""
        return f"{self.family}{params}{cutoff}"

    def __str__(self) -> str:
        return self.name


def _parse_int(text: str, what: str, measure: str) -> int:
    """A cutoff or rel as written in `measure`: an integer >= 1, or a ConfigError naming the measure as given."""
    text = text.strip()
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise ConfigError(f"measure {measure!r}: {what} must be an integer >= 1, got {text!r}")
    return int(text)


def parse_measure(text: str | Measure) -> Measure:
    """Parse a measure name such as `R@100`, `nDCG@20`, `RPrec`, `AP(rel=2)@100` (ir_measures syntax), or trec_eval's
    `ndcg_cut.10`, `P_10`, `recall.100`, `map_cut.100`, `recip_rank`, `Rprec`."""
    if isinstance(text, Measure):
        return text
    raw = text
    text = text.strip()
    dotted = _TREC_EVAL.match(text)
    if dotted is not None and dotted["family"].lower() in ALIASES:
        text = f"{dotted['family']}@{dotted['cutoff']}"
    match = _PATTERN.match(text)
    if match is None:
        raise ConfigError(
            f"cannot parse measure {raw!r}; expected NAME[(rel=N)][@K] with NAME one of {', '.join(FAMILIES)}"
        )
    family = ALIASES.get(match["family"].lower())
    if family is None:
        raise ConfigError(f"unknown measure {match['family']!r} in {raw!r}; accepted: {', '.join(FAMILIES)}")
    rel = 1
    if match["params"] is not None:
        for item in filter(None, (part.strip() for part in match["params"].split(","))):
            key, sep, value = item.partition("=")
            if not sep or key.strip() != "rel":
                raise ConfigError(f"measure {raw!r}: unknown parameter {item!r}; accepted: rel=N")
            rel = _parse_int(value, "rel", raw)
    cutoff = _parse_int(match["cutoff"], "cutoff", raw) if match["cutoff"] is not None else None
    return Measure(family, cutoff, rel)


def parse_measures(texts: list[str] | tuple[str, ...]) -> list[Measure]:
    """Parse several measure names, dropping repeats while keeping the order given."""
    measures: list[Measure] = []
    for text in texts:
        measure = parse_measure(text)
        if measure not in measures:
            measures.append(measure)
    return measures


DEFAULT_MEASURES: tuple[Measure, ...] = tuple(
    parse_measure(name) for name in ("R@100", "R@20", "nDCG@20", "RPrec", "AP@100", "RR@100", "Success@5", "Success@1")
)
"""The measures `tarsim evaluate` reports when none is given (those the legal benchmarks report)."""
