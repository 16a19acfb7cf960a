"""The BM25 baseline of each benchmark as a named preset: preprocessing, k1/b (or tuning), date filter, measures.

Sources: EU2UK/UK2EU (Chalkidis et al. 2021): full-text queries, stop words, punctuation, digits and low-IDF
terms removed, k1/b tuned on dev, candidates dated compatibly with the query, R@100 (pre-fetching) and
R@20, nDCG@20, R-Precision (re-ranking). bBSARD (Lotfi et al. 2024, after BSARD): k1=1.0, b=0.6,
preprocessing as the release code's default (lower case, punctuation, numbers and stop words removed, no
lemmatisation: the `-unstemmed` analyzers; docs/legal.md names what still differs), R@k, MAP@k, MRR@k, nDCG@k for k in
{10, 100, 200, 500}. PD (Stammbach et al. 2026): recall@5 and recall@1 in the hit-rate sense (Success@k), and the
release code's evaluator's figures beside them (tarsim.legal.irevaluator). The PD and bBSARD seed recipes average over
all test queries (`average="all"`), the doc2doc papers as trec_eval does (`judged`). bBSARD's BM25 row is the
official BSARD code's BM25 (`bm25="bsard"`), figures in percent.
"""

from __future__ import annotations

from dataclasses import dataclass

from tarsim.errors import ConfigError
from tarsim.retrieval import DateFilter

DOC2DOC_MEASURES = ("R@100", "R@20", "nDCG@20", "RPrec")
BBSARD_CUTOFFS = (10, 100, 200, 500)
BBSARD_MEASURES = ("R@100", "R@200", "R@500", "AP@100", "RR@100", "nDCG@10", "nDCG@100")
"""What bBSARD's official evaluator reports (R@100/200/500, MAP@100, MRR@100, nDCG@10/100), in percent."""
_EVERY_CUTOFF = (f"{family}@{k}" for family in ("R", "AP", "RR", "nDCG") for k in BBSARD_CUTOFFS)
BBSARD_ALL_MEASURES = tuple(dict.fromkeys([*BBSARD_MEASURES, *_EVERY_CUTOFF]))
"""`tarsim bench bbsard --all-measures`: every family at every cut-off as well."""
PD_MEASURES = ("Success@5", "Success@1")
BM25_VARIANTS = ("bm25s", "bsard")
"""bm25s's Lucene BM25, or BSARD's official BM25 (tarsim.retrieval.bsard)."""


@dataclass(frozen=True)
class Preset:
    """How a benchmark's BM25 baseline is run and reported."""

    name: str
    analyzer: str
    k1: float = 1.2
    b: float = 0.75
    tune: str | None = None
    tune_split: str = "dev"
    eval_split: str = "test"
    date_filter: DateFilter | None = None
    depth: int = 1000
    measures: tuple[str, ...] = DOC2DOC_MEASURES
    doc2doc: bool = False
    all_measures: tuple[str, ...] = ()  # printed with --all-measures (after `measures`)
    bm25: str = "bm25s"  # one of BM25_VARIANTS
    average: str = "judged"  # over the queries in the qrels (trec_eval -c), or "all" queries
    percent: bool = False  # the paper prints figures in percent
    evaluator: bool = False  # also the release code's sentence-transformers evaluator figures (PD)


PRESETS: dict[str, Preset] = {
    "eu2uk": Preset("eu2uk", "english-long", tune="R@100", date_filter=DateFilter("not_before"), doc2doc=True),
    "uk2eu": Preset("uk2eu", "english-long", tune="R@100", date_filter=DateFilter("not_after"), doc2doc=True),
    "reuters-doc2doc": Preset(
        "reuters-doc2doc",
        "english-long",
        tune="R@100",
        date_filter=DateFilter("not_after", strict=True),
        doc2doc=True,
    ),
    **{
        f"bbsard-{language}": Preset(
            f"bbsard-{language}",
            analyzer,
            k1=1.0,
            b=0.6,
            depth=500,
            measures=BBSARD_MEASURES,
            all_measures=BBSARD_ALL_MEASURES,
            bm25="bsard",
            average="all",
            percent=True,
        )
        for language, analyzer in (("fr", "french-unstemmed"), ("nl", "dutch-unstemmed"))
    },
    "pd": Preset("pd", "english", depth=100, measures=PD_MEASURES, average="all", evaluator=True),
    "default": Preset("default", "raw", depth=1000),
}
"""Named presets; k1/b of a preset with `tune` are the untuned defaults (Lucene's 1.2 / 0.75)."""


def get_preset(name: str) -> Preset:
    """The named preset (ConfigError listing the names otherwise)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}") from None
