"""Reliability of inputs: the verified feature cache, the unambiguous collection digest, collection reading checks."""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import re
import shutil
import struct
import threading
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarsim.cli import main
from tarsim.data import write_collection, write_qrels, write_topics
from tarsim.data.collection import Collection, Document, read_collection
from tarsim.data.dataset import find_docs_file
from tarsim.data.digests import collection_digest
from tarsim.errors import InputError, InputWarning
from tarsim.features.build import build_features
from tarsim.features.cache import CacheError, arrays_checksum, cache_path, cached_features, load_features, save_features
from tarsim.features.matrices import FeatureSettings

WORDS = ["oil", "gold", "bank", "rates", "prices", "traders", "output", "zebra", "wheat", "cocoa", "coffee", "sugar"]


def _documents(n: int = 24, offset: int = 0) -> list[Document]:
    """Small documents with overlapping words (deterministic), so every one has terms kept by min_df=2."""
    docs = []
    for i in range(n):
        k = i + offset
        words = [WORDS[(k * 7 + j * 3) % len(WORDS)] for j in range(6)]
        docs.append(Document(f"d{i}", f"{' '.join(words[:3])} rose. {' '.join(words[3:])} fell sharply.", f"T {k}"))
    return docs


COLLECTION = Collection(_documents())
OTHER = Collection(_documents(offset=5))
SETTINGS = FeatureSettings()


def _same_features(a, b) -> bool:
    return (
        a.vocabulary == b.vocabulary
        and a.settings == b.settings
        and all(
            np.array_equal(getattr(getattr(a, m), p), getattr(getattr(b, m), p))
            for m in ("documents", "sentences")
            for p in ("data", "indices", "indptr")
        )
        and all(np.array_equal(getattr(a, n), getattr(b, n)) for n in ("sentence_offsets", "sentence_words", "idf"))
    )


# ---- damaging a cache file -------------------------------------------------------------------------------------


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write_members(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _replace_arrays(path: Path, recompute_checksum: bool, **replacements: np.ndarray) -> None:
    """Rewrite the archive with some arrays replaced (a well-formed zip), optionally with a matching checksum."""
    members = _members(path)
    for name, array in replacements.items():
        members[f"{name}.npy"] = _npy(array)
    if recompute_checksum:
        arrays = {n[:-4]: np.load(io.BytesIO(b)) for n, b in members.items() if n != "meta.npy"}
        meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"]))))
        meta["arrays"] = arrays_checksum(arrays)
        members["meta.npy"] = _npy(np.array(json.dumps(meta)))
    _write_members(path, members)


def _stored(path: Path, name: str) -> np.ndarray:
    return np.load(io.BytesIO(_members(path)[f"{name}.npy"]))


def _truncate_half(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _truncate_tail(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-10])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not a zip archive\n" * 20)


def _plain_npy(path: Path) -> None:
    path.write_bytes(_npy(np.arange(10)))


def _flip_in_idf(path: Path) -> None:
    """Flip one bit inside the idf array's stored bytes (a CRC-32 mismatch)."""
    data = bytearray(path.read_bytes())
    idf = _stored(path, "idf").tobytes()
    at = data.find(idf) + len(idf) // 2
    data[at] ^= 0x10
    path.write_bytes(bytes(data))


def _missing_member(path: Path) -> None:
    members = _members(path)
    del members["idf.npy"]
    _write_members(path, members)


def _changed_values(path: Path) -> None:
    _replace_arrays(path, False, idf=_stored(path, "idf") * 2)


def _wrong_dtype(path: Path) -> None:
    _replace_arrays(path, True, idf=_stored(path, "idf").astype(np.float64))


def _wrong_shape(path: Path) -> None:
    _replace_arrays(path, True, idf=_stored(path, "idf")[:-1])


def _bad_indices(path: Path) -> None:
    indices = _stored(path, "documents_indices").copy()
    indices[0] = 10**6
    _replace_arrays(path, True, documents_indices=indices)


def _old_format(path: Path) -> None:
    members = _members(path)
    meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"]))))
    meta["format"] = 1
    members["meta.npy"] = _npy(np.array(json.dumps(meta)))
    _write_members(path, members)


def _other_collection(path: Path) -> None:
    source = path.parent / "other-collection.npz"
    save_features(source, build_features(OTHER, SETTINGS), collection_sha=collection_digest(OTHER))
    shutil.copyfile(source, path)


def _other_settings(path: Path) -> None:
    source = path.parent / "other-settings.npz"
    other = FeatureSettings(stem=False)
    save_features(source, build_features(COLLECTION, other), collection_sha=collection_digest(COLLECTION))
    shutil.copyfile(source, path)


DAMAGE = {
    "truncated half": (_truncate_half, r"BadZipFile|EOF|bad CRC"),
    "truncated tail": (_truncate_tail, r"BadZipFile"),
    "0 bytes": (_empty, r"BadZipFile"),
    "not a zip": (_garbage, r"BadZipFile"),
    "plain .npy": (_plain_npy, r"BadZipFile"),
    "bit flip": (_flip_in_idf, r"bad CRC-32 for idf\.npy"),
    "missing array": (_missing_member, r"missing idf"),
    "changed values": (_changed_values, r"checksum mismatch"),
    "wrong dtype": (_wrong_dtype, r"idf has dtype float64"),
    "wrong shape": (_wrong_shape, r"disagree on the number of terms"),
    "index out of range": (_bad_indices, r"ValueError"),
    "old format": (_old_format, r"format 1, expected"),
    "other collection": (_other_collection, r"made for another collection"),
    "other settings": (_other_settings, r"made with other feature settings"),
}


# ---- the cache ---------------------------------------------------------------------------------------------------


def test_a_damaged_whole_entry_beside_a_good_document_entry_is_removed_once(tmp_path):
    cached_features(COLLECTION, tmp_path, SETTINGS, sentences=False)  # the document-only entry
    cached_features(COLLECTION, tmp_path, SETTINGS)  # the whole entry, beside it
    whole = cache_path(tmp_path, COLLECTION, SETTINGS)
    assert len(list(tmp_path.glob("features-*.npz"))) == 2, sorted(p.name for p in tmp_path.iterdir())
    _flip_in_idf(whole)
    with pytest.warns(InputWarning) as caught:
        cached_features(COLLECTION, tmp_path, SETTINGS, sentences=False)  # served by the document-only entry
    assert [str(w.message) for w in caught] == [f"cache {whole} is unreadable (bad CRC-32 for idf.npy): removed"]
    assert not whole.exists()
    with warnings.catch_warnings():  # it used to warn "rebuilding" on every run and rebuild nothing
        warnings.simplefilter("error")
        cached_features(COLLECTION, tmp_path, SETTINGS, sentences=False)


def test_an_entry_that_fails_to_read_for_want_of_memory_is_kept(tmp_path, monkeypatch):
    import tarsim.features.cache

    cached_features(COLLECTION, tmp_path, SETTINGS, sentences=False)
    cached_features(COLLECTION, tmp_path, SETTINGS)
    whole = cache_path(tmp_path, COLLECTION, SETTINGS)
    read = tarsim.features.cache._read_cache

    def out_of_memory(path):
        if Path(path) == whole:
            raise MemoryError
        return read(path)

    monkeypatch.setattr(tarsim.features.cache, "_read_cache", out_of_memory)
    with pytest.warns(InputWarning) as caught:
        cached_features(COLLECTION, tmp_path, SETTINGS, sentences=False)
    assert [str(w.message) for w in caught] == [f"cache {whole} is unreadable (MemoryError: ): not used"]
    assert whole.exists()  # a good entry, hours to rebuild on a large collection: not deleted


def test_a_verified_cache_entry_is_reused_without_a_warning(tmp_path, monkeypatch):
    fresh = build_features(COLLECTION, SETTINGS)
    cached_features(COLLECTION, tmp_path, SETTINGS)
    monkeypatch.setattr(
        "tarsim.features.cache.build_features", lambda *a, **k: pytest.fail("rebuilt a good cache entry")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _same_features(cached_features(COLLECTION, tmp_path, SETTINGS), fresh)
    assert [p.name for p in tmp_path.iterdir()] == [cache_path(tmp_path, COLLECTION, SETTINGS).name]


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_cache_entry_warns_in_one_line_and_is_rebuilt(tmp_path, damage):
    spoil, reason = DAMAGE[damage]
    cached_features(COLLECTION, tmp_path, SETTINGS)
    path = cache_path(tmp_path, COLLECTION, SETTINGS)
    spoil(path)
    with pytest.warns(InputWarning) as caught:
        features = cached_features(COLLECTION, tmp_path, SETTINGS)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "\n" not in message
    assert message.startswith(f"cache {path} is unreadable (") and message.endswith("): rebuilding")
    assert re.search(reason, message), message
    assert _same_features(features, build_features(COLLECTION, SETTINGS))
    with warnings.catch_warnings():  # the rebuilt entry is good again
        warnings.simplefilter("error")
        assert _same_features(load_features(path, collection_sha=collection_digest(COLLECTION)), features)


@pytest.mark.parametrize("damage", ["truncated half", "bit flip", "changed values"])
def test_load_features_refuses_a_damaged_file_in_one_line(tmp_path, damage):
    path = tmp_path / "features.npz"
    save_features(path, build_features(COLLECTION, SETTINGS), collection_sha=collection_digest(COLLECTION))
    DAMAGE[damage][0](path)
    with pytest.raises(CacheError) as caught:
        load_features(path)  # a sweep worker's read: no expectations, but still verified
    assert str(caught.value).startswith(f"{path}: unusable feature cache (") and "\n" not in str(caught.value)
    assert str(pickle.loads(pickle.dumps(caught.value))) == str(caught.value)  # as it comes back from a worker


def test_any_single_bit_flip_gives_the_right_features(tmp_path):
    """Flips anywhere (headers, data, central directory) are caught or harmless, never a wrong result."""
    good = tmp_path / "good.npz"
    save_features(good, build_features(COLLECTION, SETTINGS), collection_sha=collection_digest(COLLECTION))
    original = good.read_bytes()
    fresh = build_features(COLLECTION, SETTINGS)
    path = cache_path(tmp_path / "cache", COLLECTION, SETTINGS)
    path.parent.mkdir()
    caught = 0
    for at in np.linspace(0, len(original) - 1, 40).astype(int):
        data = bytearray(original)
        data[at] ^= 1 << int(at % 8)
        path.write_bytes(bytes(data))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            features = cached_features(COLLECTION, path.parent, SETTINGS)
        assert _same_features(features, fresh), f"flip at byte {at}"
        assert all(issubclass(w.category, InputWarning) for w in seen)
        caught += bool(seen)
    assert caught >= 30  # most bytes are array data under a CRC-32 and a SHA-256


def test_two_writers_of_one_entry_leave_one_complete_file(tmp_path):
    features = build_features(COLLECTION, SETTINGS)
    digest = collection_digest(COLLECTION)
    path = cache_path(tmp_path, COLLECTION, SETTINGS)
    save_features(path, features, collection_sha=digest)
    failures: list[Exception] = []

    def write() -> None:
        for _ in range(15):
            save_features(path, features, collection_sha=digest)

    def read() -> None:
        for _ in range(30):
            try:
                load_features(path, collection_sha=digest, settings=SETTINGS)
            except CacheError as error:  # pragma: no cover - the failure this test looks for
                failures.append(error)

    threads = [threading.Thread(target=write), threading.Thread(target=write), threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind


def _tiny_dataset(directory: Path, documents: list[Document]) -> Path:
    write_collection(directory / "docs.jsonl", documents)
    write_topics(directory / "topics.tsv", {"t1": "oil gold"})
    write_qrels(directory / "qrels.txt", {"t1": {"d1": 1, "d3": 1, "d8": 1, "d2": 0}})
    return directory


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    """A tiny collection, the simulate arguments and the ledger of a run whose features were built (no cache)."""
    base = tmp_path_factory.mktemp("clean")
    data = _tiny_dataset(base / "c", _documents())
    args = ["simulate", "--collection", str(data), "--topic", "t1", "--max-effort", "2R+10", "--effort", "judge"]
    assert main([*args, "--out", str(base / "out"), "--cache-dir", str(base / "out" / "cache")]) == 0
    return args, base / "out"


@pytest.mark.parametrize("damage", ["truncated half", "changed values", "other collection"])
def test_a_damaged_cache_never_changes_a_ledger(tmp_path, capsys, clean_run, damage):
    args, clean = clean_run
    reference = (clean / "ledgers" / "t1.jsonl").read_bytes()
    out = tmp_path / "damaged"
    shutil.copytree(clean / "cache", out / "cache")
    entry = cache_path(out / "cache", COLLECTION, SETTINGS, documents_only=True)  # the one the run looks up
    assert entry.exists()
    DAMAGE[damage][0](entry)
    capsys.readouterr()
    assert main([*args, "--out", str(out), "--cache-dir", str(out / "cache")]) == 0
    err = capsys.readouterr().err
    assert f"tarsim: warning: cache {entry} is unreadable (" in err
    assert (out / "ledgers" / "t1.jsonl").read_bytes() == reference


def test_a_cached_run_gives_the_ledger_of_a_cache_free_run(tmp_path, capsys, clean_run):
    args, clean = clean_run
    shutil.copytree(clean / "cache", tmp_path / "warm" / "cache")
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "warm"), "--cache-dir", str(tmp_path / "warm" / "cache")]) == 0
    assert "unreadable" not in capsys.readouterr().err
    assert (tmp_path / "warm" / "ledgers" / "t1.jsonl").read_bytes() == (clean / "ledgers" / "t1.jsonl").read_bytes()


# ---- the collection digest ---------------------------------------------------------------------------------------


def _digest(*documents: Document) -> str:
    """collection_digest of documents that Collection itself would refuse (NUL in a docid): any sequence works."""
    return collection_digest(list(documents))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "first, second",
    [
        ([Document("d0", "", "a\x00b")], [Document("d0\x00a", "", "b")]),  # the pair of issue 10
        ([Document("d0", "c", "ab")], [Document("d0", "bc", "a")]),  # title/text boundary
        ([Document("d0", "", "ab")], [Document("d0a", "", "b")]),  # docid/title boundary
        ([Document("d0", "x"), Document("d1", "y")], [Document("d0", "x\x02d1\x00\x00y")]),  # document boundary
        ([Document("d0", "x"), Document("d1", "y")], [Document("d1", "y"), Document("d0", "x")]),  # order
        ([Document("d0", "a b")], [Document("d0", "a b", sentences=("a b",))]),  # sentences given or not
        ([Document("d0", "ab", sentences=("a", "b"))], [Document("d0", "ab", sentences=("a\x00b",))]),
        ([Document("d0", "ab", sentences=("ab", ""))], [Document("d0", "ab", sentences=("", "ab"))]),
        ([Document("d0", "ab", sentences=("ab",))], [Document("d0", "ab", sentences=("ab", ""))]),
        ([Document("d0", "")], []),
    ],
)
def test_different_collections_have_different_digests(first, second):
    assert _digest(*first) != _digest(*second)


def test_the_digest_follows_the_documented_encoding():
    """Length-prefixed fields (docid, title, text, sentence count or -1), computed here by hand."""
    expected = hashlib.sha256(b"tarsim collection v2\n")
    expected.update(struct.pack("<4q", 2, 1, 4, -1) + b"d0" + b"T" + "t\u00e9x".encode())
    expected.update(struct.pack("<4q", 2, 0, 2, 2) + struct.pack("<2q", 1, 1) + b"d1" + b"ab" + b"a" + b"b")
    documents = [Document("d0", "t\u00e9x", "T"), Document("d1", "ab", sentences=("a", "b"))]
    assert collection_digest(Collection(documents)) == expected.hexdigest()


def test_the_digest_takes_any_text_read_from_json():
    lone_surrogate = json.loads('"a\\ud800b"')
    assert _digest(Document("d0", lone_surrogate)) != _digest(Document("d0", "a\ufffdb"))


# ---- reading collections -----------------------------------------------------------------------------------------


def _read_one(tmp_path: Path, line: str) -> Collection:
    path = tmp_path / "docs.jsonl"
    path.write_text('{"docid": "ok", "text": "fine"}\n' + line + "\n", encoding="utf-8")
    return read_collection(path)


@pytest.mark.parametrize(
    "line, problem",
    [
        ('{"docid": "d1", "body": "words"}', 'no "text" field; fields are docid, body'),
        ('{"docid": "d1", "title": "only a title"}', 'no "text" field; fields are docid, title'),
        ('{"text": "words"}', 'no "docid" field; fields are text'),
        ('{"docid": 12, "text": "words"}', "docid must be a string, got 12"),
        ('{"docid": null, "text": "words"}', "docid must be a string, got None"),
        ('{"docid": ["d1"], "text": "words"}', "docid must be a string, got ['d1']"),
        ('{"docid": "", "text": "words"}', "empty docid"),
        (
            '{"docid": "d\\u0000a", "text": "words"}',
            "docid 'd\\x00a' contains a NUL or other control character",
        ),
        ('{"docid": "d\\na", "text": "words"}', "docid 'd\\na' contains a NUL or other control character"),
        ('{"docid": "d a", "text": "words"}', "docid 'd a' contains white space (TREC files cannot hold it)"),
        ('{"docid": "ok", "text": "again"}', "duplicate docid 'ok' (first on line 1)"),
        ('{"docid": "d1", "text": null}', "'text' and 'title' must be strings"),
    ],
)
def test_bad_documents_are_refused_with_file_and_line(tmp_path, line, problem):
    with pytest.raises(InputError) as caught:
        _read_one(tmp_path, line)
    assert str(caught.value) == f"{tmp_path / 'docs.jsonl'}:2: {problem}"


def test_an_empty_text_with_a_title_is_a_document(tmp_path):
    collection = _read_one(tmp_path, '{"docid": "d1", "title": "A title", "text": ""}')
    assert collection.get("d1") == Document("d1", "", "A title")


def test_collections_built_in_memory_check_docids_too():
    with pytest.raises(InputError, match=r"^<memory>: docid 'a\\x00b' contains a NUL"):
        Collection([Document("a\x00b", "text")])
    with pytest.raises(InputError, match=r"^<memory>: empty docid"):
        Collection([Document("", "text")])


def test_both_docs_files_in_one_directory_are_refused(tmp_path):
    write_collection(tmp_path / "docs.jsonl", _documents(3))
    write_collection(tmp_path / "docs.jsonl.gz", _documents(4))
    with pytest.raises(InputError) as caught:
        find_docs_file(tmp_path)
    assert str(caught.value) == f"{tmp_path}: holds both docs.jsonl and docs.jsonl.gz: keep only one"


def test_simulate_on_a_collection_with_body_instead_of_text_says_which_field_is_missing(tmp_path, capsys):
    data = _tiny_dataset(tmp_path / "c", _documents(5))
    lines = [json.dumps({"docid": d.docid, "body": d.text}) for d in _documents(5)]
    (data / "docs.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["simulate", "--collection", str(data), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f'tarsim: error: {data / "docs.jsonl"}:1: no "text" field; fields are docid, body']
    assert not (tmp_path / "o" / "ledgers").exists()


def test_simulate_on_documents_without_words_is_one_line(tmp_path, capsys):
    data = _tiny_dataset(tmp_path / "c", [Document(f"d{i}", f"{i} 42 - x y z !") for i in range(10)])
    assert main(["simulate", "--collection", str(data), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tarsim: error: ")
    assert "every document is empty after tokenisation (no word of at least 2 letters)" in err[0]


def test_a_vocabulary_emptied_by_min_df_is_one_line():
    collection = Collection([Document("a", "alpha beta"), Document("b", "gamma delta")])
    with pytest.raises(InputError, match=r"^<memory>: no term occurs in at least min_df=2 documents$"):
        build_features(collection, SETTINGS)


# ---- fuzzing the reader and the digest ---------------------------------------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.text(max_size=5), max_size=3),
)
_RECORDS = st.dictionaries(st.sampled_from(["docid", "text", "title", "sentences", "body"]), _VALUES, max_size=5)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(st.one_of(_RECORDS, _VALUES), min_size=1, max_size=4))
def test_any_json_lines_give_a_collection_or_one_line_error(tmp_path, records):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    try:
        collection = read_collection(path)
    except InputError as error:
        assert str(error).startswith(f"{path}") and "\n" not in str(error)
    else:
        assert len(collection) == len(records)
        collection_digest(collection)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
def test_any_bytes_give_a_collection_or_one_line_error(tmp_path, data):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(data)
    try:
        read_collection(path)
    except InputError as error:
        assert "\n" not in str(error)


@settings(max_examples=200, deadline=None)
@given(
    joined=st.text("ab\x00\x01\x02\u00e9", min_size=1, max_size=10),
    cuts=st.lists(st.integers(0, 10), min_size=4, max_size=4),
)
def test_moving_characters_across_a_field_boundary_changes_the_digest(joined, cuts):
    """The same characters split into docid, title and text at other points: another digest."""

    def split(i: int, j: int) -> Document:
        i, j = sorted((1 + i % len(joined), 1 + j % len(joined)))
        return Document(joined[:i], joined[j:], joined[i:j])

    first, second = split(*cuts[:2]), split(*cuts[2:])
    if first != second:
        assert _digest(first) != _digest(second)


def test_a_collection_is_hashed_once(monkeypatch) -> None:
    """A review asks for its collection's digest twice (feature cache, ledger header): the second is remembered."""
    import tarsim.data.digests as features
    from tarsim.data.collection import Collection, Document

    collection = Collection([Document("a", text="Some words."), Document("b", text="Other words.")])
    hashed = []
    original = features._digest
    monkeypatch.setattr(features, "_digest", lambda documents: hashed.append(1) or original(documents))
    first, second = features.collection_digest(collection), features.collection_digest(collection)
    listed = features.collection_digest(list(collection))  # not a Collection: hashed every time
    assert first == second == listed and len(hashed) == 2


@pytest.mark.parametrize("kind", ["fifo", "loop"])
def test_a_cache_folder_that_is_a_fifo_or_a_loop_is_named(tmp_path, monkeypatch, capsys, kind):
    """TARSIM_CACHE_DIR as a FIFO gave 'cache info: 0 feature entries'; --cache-dir as a loop 'is a file'."""
    import os

    from tarsim.cli import main

    path = tmp_path / "cache"
    os.mkfifo(path) if kind == "fifo" else path.symlink_to("cache")
    said = "a named pipe (FIFO), not a folder" if kind == "fifo" else "a symlink loop"
    monkeypatch.setenv("TARSIM_CACHE_DIR", str(path))
    assert main(["cache", "info"]) == 2
    assert f"TARSIM_CACHE_DIR {path}: {said}" in capsys.readouterr().err
    monkeypatch.delenv("TARSIM_CACHE_DIR")
    assert main(["simulate", "--cache-dir", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: --cache-dir {path}: {said}") and len(err.splitlines()) == 1
