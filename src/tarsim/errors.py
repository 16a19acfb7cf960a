"""Errors that tarsim reports to users as one line (the CLI prints them and exits with status 2)."""

from __future__ import annotations

import importlib
import os
from types import ModuleType


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


class MissingExtraError(TarsimError, ImportError):
    """An optional dependency is not installed: names what needs it and the extra that installs it."""


EXTRAS = {
    "dask": "dask[distributed]: `tarsim sweep --backend dask`",
    "legal": "bm25s: BM25 retrieval, `tarsim retrieve`, `tarsim bench`, tarsim.retrieval, tarsim.legal's baselines",
    "plot": "matplotlib: `tarsim plot`, tarsim.reporting.plots",
    "report": "altair and vl-convert-python: `tarsim report OUT --html FILE`, tarsim.reporting.html_report",
    "xlsx": "openpyxl: Excel .xlsx screening files",
}
"""tarsim's optional extras (`pip install "tarsim[NAME]"`, or `tarsim[all]`) and what each is for."""


def require(module: str, extra: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import the optional dependency `module` (installed by the extra `extra`), or raise MissingExtraError, one
    line: `{purpose} needs {package}: pip install "tarsim[{extra}]" (from a checkout: pip install ".[{extra}]")`."""
    try:
        return importlib.import_module(module)
    except ImportError:
        name = package or module
        raise MissingExtraError(
            f'{purpose} needs {name}: pip install "tarsim[{extra}]" (from a checkout: pip install ".[{extra}]")'
        ) from None


class InputWarning(UserWarning):
    """Suspicious but usable input (for example a qrels topic absent from topics.tsv)."""
