"""Errors that tarsim reports to users as one line (the CLI prints them and exits with status 2)."""

from __future__ import annotations

import os


class TarsimError(Exception):
    """Base class of every error tarsim reports to a user without a traceback."""


class InputError(TarsimError):
    """Malformed input: names the file, the line (when there is one) and what is wrong."""

    def __init__(self, path: str | os.PathLike[str], line: int | None, problem: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


class ConfigError(TarsimError):
    """An invalid parameter or configuration value: names the parameter and the accepted values."""


class InputWarning(UserWarning):
    """Suspicious but usable input (for example a qrels topic absent from topics.tsv)."""
