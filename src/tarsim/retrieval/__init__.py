"""BM25 retrieval (bm25s) over tarsim collections: preprocessing presets, date filter, k1/b tuning.

bm25s comes with the `legal` extra (`pip install "tarsim[legal]"`); without it this package imports, and tokenising
or indexing says which extra it needs (tarsim.errors.MissingExtraError)."""

from tarsim.retrieval.analysis import ANALYZERS, RAW, Analyzer, get_analyzer, shortening
from tarsim.retrieval.bm25 import DateFilter, PreparedCorpus, check_bm25_parameters, search, top_documents
from tarsim.retrieval.tuning import B_GRID, K1_GRID, TuningResult, tune_bm25

__all__ = [
    "ANALYZERS",
    "B_GRID",
    "K1_GRID",
    "RAW",
    "Analyzer",
    "DateFilter",
    "PreparedCorpus",
    "TuningResult",
    "check_bm25_parameters",
    "get_analyzer",
    "search",
    "shortening",
    "top_documents",
    "tune_bm25",
]
