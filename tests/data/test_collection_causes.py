"""Collection-directory findings of issue 30: a docs.jsonl line naming a key twice (json.loads kept the last value
without a word) and a docs file that is a symlink to nothing (called missing)."""

from __future__ import annotations

import os

import pytest

from tarsim.data.collection import read_collection
from tarsim.data.dataset import find_docs_file
from tarsim.errors import InputError


def test_a_key_named_twice_in_a_docs_line_is_refused(tmp_path):
    """`"text": "first", "text": "second"` read as "second" (only a qrels coverage warning could show it)."""
    path = tmp_path / "docs.jsonl"
    path.write_text(
        '{"docid": "D1", "text": "one"}\n{"docid": "D2", "text": "first", "title": "t", "text": "second"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        read_collection(path)
    assert str(caught.value) == f"{path}:2: the key 'text' appears twice in one JSON object; keep one"


def test_a_key_named_twice_in_a_nested_object_is_refused_too(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"docid": "D1", "text": "a", "meta": {"a": 1, "a": 2}}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r":1: the key 'a' appears twice"):
        read_collection(path)


@pytest.mark.parametrize("name", ["docs.jsonl", "docs.jsonl.gz"])
def test_a_docs_file_linking_to_nothing_is_named(tmp_path, name):
    """It was `no docs.jsonl or docs.jsonl.gz in the collection directory`; beside a working docs.jsonl, a broken
    docs.jsonl.gz was passed over without a word."""
    link = tmp_path / name
    os.symlink(tmp_path / "gone" / name, link)
    if name.endswith(".gz"):
        (tmp_path / "docs.jsonl").write_text('{"docid": "D1", "text": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        find_docs_file(tmp_path)
    assert str(caught.value) == f"{link}: a symlink to {tmp_path / 'gone' / name}, which does not exist"


def test_a_docs_file_that_is_a_symlink_loop_is_named(tmp_path):
    link = tmp_path / "docs.jsonl"
    os.symlink("docs.jsonl", link)
    with pytest.raises(InputError) as caught:
        find_docs_file(tmp_path)
    assert str(caught.value) == f"{link}: a symlink loop (a symlink that leads back to itself)"
