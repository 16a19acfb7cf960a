"""The one-line error for a converter source that is not there, naming a symlink loop or a symlink to nothing (a
loop was reported as `no such file or directory`)."""

from __future__ import annotations

import os

from tarsim.data.regular_files import existing_path_problem
from tarsim.errors import InputError


def missing_source(source: str | os.PathLike[str]) -> InputError:
    """The InputError for a source whose `exists()` is False: what it is when a symlink, else no such file."""
    return InputError(source, None, existing_path_problem(source) or "no such file or directory")
