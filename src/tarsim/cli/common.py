"""Helpers every CLI module may import (and no other CLI module's internals): argument types."""

from __future__ import annotations

import argparse
import math


def float_list(text: str) -> list[float]:
    """Parse `0.6,0.9,1.2` (finite numbers only: a NaN grid point would silently win or lose every comparison)."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("empty list")
    bad = [value for value in values if not math.isfinite(value)]
    if bad:
        raise argparse.ArgumentTypeError(f"expected finite numbers, got {bad[0]!r} in {text!r}")
    return values
