"""tarsim: simulate and evaluate high-recall (technology-assisted) review."""

from __future__ import annotations

import importlib

from tarsim.version import __version__

__all__ = ["SimulationResult", "__version__", "review_rounds", "simulate"]


def __getattr__(name: str):
    # The API pulls in scikit-learn and SimPy; import it on first use so `tarsim --help` stays fast.
    if name in ("simulate", "SimulationResult"):
        from tarsim.api import review as api

        return getattr(api, name)
    if name == "review_rounds":
        from tarsim.api.rounds import review_rounds

        return review_rounds
    if name.startswith("__"):
        raise AttributeError(f"module 'tarsim' has no attribute {name!r}")
    try:  # `import tarsim` then `tarsim.datasets.load_dataset(...)`: subpackages load on first use too
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module 'tarsim' has no attribute {name!r}")
