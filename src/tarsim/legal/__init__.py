"""Legal retrieval benchmarks: loaders for bBSARD, EU2UK/UK2EU and the PD set, a Reuters doc2doc builder,
the benchmarks' BM25 presets and their measure tables."""

from tarsim.legal.bbsard import load_bbsard
from tarsim.legal.benchmark import Benchmark, load_benchmark, save_benchmark
from tarsim.legal.pd import load_pd
from tarsim.legal.presets import PRESETS, Preset, get_preset
from tarsim.legal.regir import load_regir
from tarsim.legal.reuters import build_reuters_doc2doc

__all__ = [
    "PRESETS",
    "Benchmark",
    "Preset",
    "build_reuters_doc2doc",
    "get_preset",
    "load_bbsard",
    "load_benchmark",
    "load_pd",
    "load_regir",
    "save_benchmark",
]
