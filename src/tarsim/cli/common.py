"""Helpers every CLI module may import (and no other CLI module's internals): argument types and checks of paths
given as options."""

from __future__ import annotations

import argparse
import math
import os
import stat
from pathlib import Path
from typing import Any

from tarsim.components.params import NotPlainNumber, plain_number
from tarsim.data.paths import symlink_problem
from tarsim.errors import ConfigError


def _plain(text: str, kind: type, what: str) -> Any:
    try:
        return plain_number(text, kind)
    except NotPlainNumber as exc:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} ({exc})") from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def plain_int(text: str) -> int:
    """An integer option written plainly (int() alone also reads '١' and '1_0': a value the user did not type)."""
    return _plain(text, int, "a whole number")


def plain_float(text: str) -> float:
    """A number option written plainly (as plain_int)."""
    return _plain(text, float, "a number")


def float_list(text: str) -> list[float]:
    """Parse `0.6,0.9,1.2` (finite numbers only: a NaN grid point would silently win or lose every comparison)."""
    values = [_plain(part, float, "comma-separated numbers") for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError("empty list")
    bad = [value for value in values if not math.isfinite(value)]
    if bad:
        raise argparse.ArgumentTypeError(f"expected finite numbers, got {bad[0]!r} in {text!r}")
    return values


def check_out_folder(text: str, option: str = "--out") -> None:
    """Refuse an output folder that cannot be made because of a symlink on its way (a loop, a dangling link), in
    one line naming the link, before any work."""
    problem = symlink_problem(Path(text))
    if problem is not None:
        raise ConfigError(f"{option} {text}: {problem}")


def check_input_file(text: str, option: str, what: str = "a file") -> None:
    """Refuse an input file given as an option that exists but is no regular file (/dev/null, a FIFO, a folder) or
    sits behind a symlink loop, naming what it is; a missing file is left to the reader to name."""
    from tarsim.data.regular_files import not_regular_problem

    path = Path(text)
    problem = symlink_problem(path)
    if problem is None and path.exists():
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            problem = f"{not_regular_problem(path, mode)}; give {what}"
    if problem is not None:
        raise ConfigError(f"{option} {text}: {problem}")
