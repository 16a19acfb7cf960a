"""Comparison studies: every combination of collection x topic x preset x varied setting x policy x strategy x seed
as one simulation, run locally with joblib or on a Dask distributed cluster, with one ledger per run and a tidy
results table."""

from tarsim.sweep.config import SweepConfig, load_sweep_config, parse_sweep_config
from tarsim.sweep.plan import RunSpec, derive_seed, expand_plan
from tarsim.sweep.run import SweepOutcome, run_sweep

__all__ = [
    "RunSpec",
    "SweepConfig",
    "SweepOutcome",
    "derive_seed",
    "expand_plan",
    "load_sweep_config",
    "parse_sweep_config",
    "run_sweep",
]
