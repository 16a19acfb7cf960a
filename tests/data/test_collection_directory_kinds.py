"""`--collection X` where X is a FIFO, a device link, a symlink loop or a symlink to nothing names what X is, as
`--docs` does (issue 30): all four were called `collection directory does not exist`."""

from __future__ import annotations

import os

import pytest

from tarsim.data.dataset import find_docs_file
from tarsim.errors import InputError


def _fifo(path):
    os.mkfifo(path)


def _zero(path):
    path.symlink_to("/dev/zero")


def _loop(path):
    path.symlink_to(path)


def _broken(path):
    path.symlink_to(path.parent / "nothing" / "x")


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (_fifo, "a named pipe (FIFO), not a folder"),
        (_zero, "a symlink to /dev/zero, a character device, not a folder"),
        (_loop, "a symlink loop"),
        (_broken, "which does not exist"),
    ],
    ids=["fifo", "dev-zero", "loop", "broken"],
)
def test_a_collection_that_is_no_folder_is_named(tmp_path, make, named):
    path = tmp_path / "c"
    make(path)
    with pytest.raises(InputError) as caught:
        find_docs_file(path)
    assert named in str(caught.value) and "does not exist" not in str(caught.value).replace(named, "")


def test_a_missing_collection_still_says_so(tmp_path):
    with pytest.raises(InputError, match="collection directory does not exist"):
        find_docs_file(tmp_path / "absent")
