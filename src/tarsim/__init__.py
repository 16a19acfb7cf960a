"""tarsim: simulate and evaluate high-recall (technology-assisted) review."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
