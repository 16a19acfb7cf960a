"""tarsim: simulate and evaluate high-recall (technology-assisted) review."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["SimulationResult", "__version__", "simulate"]


def __getattr__(name: str):
    # The API pulls in scikit-learn and SimPy; import it on first use so `tarsim --help` stays fast.
    if name in ("simulate", "SimulationResult"):
        from tarsim import api

        return getattr(api, name)
    raise AttributeError(f"module 'tarsim' has no attribute {name!r}")
