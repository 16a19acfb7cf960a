"""The columnar readers of plain qrels and runs accept and refuse exactly what the line readers do."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarsim.data.qrels import _read_qrels_columns, _read_qrels_lines, read_qrels
from tarsim.data.runs import RunTable, read_run, read_run_table
from tarsim.errors import InputError

PLAIN_QRELS = {
    "spaces": "t1 0 d1 1\nt1 0 d2 0\nt2 0 d1 2\n",
    "tabs": "t1\t0\td1\t1\nt1\t0\td2\t0\nt2\t0\td1\t2\n",
    "no final newline": "t1 0 d1 1\nt2 0 d1 2",
    "an exact repeat": "t1 0 d1 1\nt1 0 d2 0\nt1 0 d1 1\n",
    "negative, padded and extreme grades": "t1 0 d1 -1\nt1 0 d2 007\nt1 0 d3 -0\nt1 0 d4 9223372036854775807\n",
    "topics not contiguous": "t2 0 d9 1\nt1 0 d1 1\nt2 0 d8 0\n",
}
OTHER_QRELS = {
    "a plus sign": "t1 0 d1 +1\n",
    "CRLF": "t1 0 d1 1\r\nt1 0 d2 0\r\n",
    "a BOM": "\ufefft1 0 d1 1\n",
    "blank lines": "t1 0 d1 1\n\n\nt1 0 d2 0\n",
    "two spaces": "t1  0 d1 1\n",
    "spaces and tabs": "t1\t0 d1 1\n",
    "a leading blank line": "\nt1 0 d1 1\n",
    "non-ASCII": "t1 0 d\u00e9 1\n",
    "a vertical tab": "t1 0 d1\x0b1\n",
}
BAD_QRELS = {
    "conflicting judgments": ("t1 0 d1 1\nt1 0 d2 0\nt1 0 d1 2\n", "q:3: conflicting judgments"),
    "three columns": ("t1 0 d1 1\nt1 d2 1\n", "q:2: expected 4 columns"),
    "five columns": ("t1 0 d1 1 x\n", "q:1: expected 4 columns"),
    "a decimal grade": ("t1 0 d1 1\nt1 0 d2 1.0\n", "q:2: relevance is not an integer: '1.0'"),
    "a hexadecimal grade": ("t1 0 d1 0x5\n", "q:1: relevance is not an integer: '0x5'"),
    "a grade beyond 64 bits": ("t1 0 d1 9223372036854775808\n", "q:1: relevance out of range"),
    "a header": ("topic iteration docid relevance\nt1 0 d1 1\n", "q:1: relevance is not an integer"),
    "a lone carriage return": ("t1 0 d1 1\rt1 0 d2 0\n", "q:1: CR-only (old Mac) line ends"),
    "a vertical tab inside a field": ("t1 0 d1 1\nt1 0 d\x0b2 1\n", "q:2: expected 4 columns"),
    "a file separator inside a field": ("t1 0 d\x1c1 1\n", "q:1: expected 4 columns"),
    "an empty file": ("", "q: empty file"),
    "only a newline": ("\n", "q: empty file"),
}


@pytest.fixture(autouse=True)
def _columns_for_small_files(monkeypatch):
    """The files here are tiny: read_qrels takes the columnar path for them too."""
    monkeypatch.setattr("tarsim.data.qrels.COLUMNS_FROM_BYTES", 0)


def _write(path, text: str):
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    return path


@pytest.mark.parametrize("name", list(PLAIN_QRELS))
def test_plain_qrels_are_read_as_columns_equal_to_the_line_reader(tmp_path, name):
    path = _write(tmp_path / "q", PLAIN_QRELS[name])
    columns = _read_qrels_columns(path)
    assert columns is not None
    assert columns == _read_qrels_lines(path) == read_qrels(path)
    assert [list(judged.items()) for judged in columns.values()] == [
        list(judged.items()) for judged in _read_qrels_lines(path).values()
    ]  # the same order too


def test_a_plain_file_gives_the_judgments_written_in_it(tmp_path):
    path = _write(tmp_path / "q", PLAIN_QRELS["negative, padded and extreme grades"])
    assert read_qrels(path) == {"t1": {"d1": -1, "d2": 7, "d3": 0, "d4": 2**63 - 1}}
    path = _write(tmp_path / "q", PLAIN_QRELS["tabs"])
    assert read_qrels(path) == {"t1": {"d1": 1, "d2": 0}, "t2": {"d1": 2}}


@pytest.mark.parametrize("name", list(OTHER_QRELS))
def test_other_layouts_go_through_the_line_reader(tmp_path, name):
    path = _write(tmp_path / "q", OTHER_QRELS[name])
    assert _read_qrels_columns(path) is None
    assert read_qrels(path) == _read_qrels_lines(path)


def test_gzip_qrels_go_through_the_line_reader(tmp_path):
    path = _write(tmp_path / "q.gz", PLAIN_QRELS["spaces"])
    assert _read_qrels_columns(path) is None
    assert read_qrels(path) == {"t1": {"d1": 1, "d2": 0}, "t2": {"d1": 2}}


@pytest.mark.parametrize("name", list(BAD_QRELS))
def test_bad_qrels_are_refused_with_the_line_reader_s_message(tmp_path, name):
    text, problem = BAD_QRELS[name]
    path = _write(tmp_path / "q", text)
    with pytest.raises(InputError) as fast:
        read_qrels(path)
    with pytest.raises(InputError) as lines:
        _read_qrels_lines(path)
    assert str(fast.value) == str(lines.value)
    assert str(fast.value).startswith(str(tmp_path / problem)) and "\n" not in str(fast.value)


def test_small_qrels_are_read_by_line_without_pyarrow(tmp_path, monkeypatch):
    monkeypatch.setattr("tarsim.data.qrels.COLUMNS_FROM_BYTES", 1 << 18)
    monkeypatch.setattr("tarsim.data.qrels._read_qrels_columns", lambda path: pytest.fail("read as columns"))
    assert read_qrels(_write(tmp_path / "q", PLAIN_QRELS["spaces"])) == {"t1": {"d1": 1, "d2": 0}, "t2": {"d1": 2}}


def test_missing_qrels_are_refused_in_one_line(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_qrels(tmp_path / "absent")


def test_a_tab_separated_run_is_read_as_columns(tmp_path):
    path = _write(tmp_path / "run", "t1\tQ0\td1\t1\t3.5\tx\nt1\tQ0\td2\t2\t1.0\tx\n")
    table = read_run_table(path)
    assert isinstance(table, RunTable)
    assert table.to_dict() == read_run(path) == {"t1": {"d1": 3.5, "d2": 1.0}}


@pytest.mark.parametrize("text", ["t1 Q0 d1 1 3.5 x\rt1 Q0 d2 2 1.0 x\n", "t1 Q0 d\x0b1 1 3.5 x\n"])
def test_runs_with_other_control_characters_are_refused_as_read_run_refuses_them(tmp_path, text):
    path = _write(tmp_path / "run", text)
    with pytest.raises(InputError) as error:
        read_run(path)
    with pytest.raises(InputError) as caught:
        read_run_table(path)
    problem = ":1: CR-only (old Mac) line ends" if "\r" in text else ":1: expected 6 columns"
    assert str(caught.value) == str(error.value) and problem in str(error.value)


@pytest.mark.parametrize("rank", ["0x5", "-1", "+1", "1_0"])
def test_ranks_pyarrow_and_python_read_differently_go_through_read_run(tmp_path, rank):
    path = _write(tmp_path / "run", f"t1 Q0 d1 {rank} 3.5 x\n")
    try:
        expected = read_run(path)
    except InputError as error:
        with pytest.raises(InputError) as caught:
            read_run_table(path)
        assert str(caught.value) == str(error) and ":1: rank is not an integer" in str(error)
    else:
        assert read_run_table(path) == expected == {"t1": {"d1": 3.5}}


RUN_TEXTS = {
    "topics together": "t1 Q0 d1 1 3.0 x\nt1 Q0 d2 2 2.0 x\nt1 Q0 d9 3 2.0 x\nt2 Q0 d1 1 5.0 x\nt2 Q0 d3 2 1.0 x\n",
    "topics apart": "t2 Q0 d1 1 5.0 x\nt1 Q0 d1 1 3.0 x\nt1 Q0 d2 2 2.0 x\nt2 Q0 d3 2 1.0 x\nt1 Q0 d9 3 2.0 x\n",
}


@pytest.mark.parametrize("small_topic", [0, 10**9], ids=["a hash per topic", "one hash for all"])
@pytest.mark.parametrize("name", list(RUN_TEXTS))
def test_run_tables_score_as_the_dict_reader(tmp_path, monkeypatch, small_topic, name):
    from tarsim.metrics import evaluate_run

    monkeypatch.setattr(RunTable, "SMALL_TOPIC", small_topic)
    path = _write(tmp_path / "run", RUN_TEXTS[name])
    table = read_run_table(path)
    assert isinstance(table, RunTable) and table.to_dict() == read_run(path)
    qrels = {"t1": {"d2": 1, "d9": 2, "d7": 1}, "t2": {"d3": 1, "d1": 0}, "t3": {"d1": 1}}
    measures = ["R@2", "RPrec", "AP", "nDCG@3", "RR", "P@2"]
    assert evaluate_run(qrels, table, measures) == evaluate_run(qrels, read_run(path), measures)
    # t1: d9 ties d2 at 2.0 and wins (greater docid), so d9 ranks 2nd and d2 3rd; d7 is not retrieved
    assert evaluate_run(qrels, table, ["RR", "R@2"])["t1"] == {"RR": 1 / 2, "R@2": 1 / 3}
    assert evaluate_run(qrels, table, ["RR"])["t2"] == {"RR": 1 / 2}


@pytest.mark.parametrize("small_topic", [0, 10**9], ids=["a hash per topic", "one hash for all"])
@pytest.mark.parametrize(
    "text, line",
    [
        ("t1 Q0 d1 1 3.0 x\nt1 Q0 d2 2 2.0 x\nt1 Q0 d1 3 1.0 x\nt2 Q0 d1 1 1.0 x\n", 3),
        ("t1 Q0 d1 1 3.0 x\nt2 Q0 d1 1 2.0 x\nt1 Q0 d2 2 1.0 x\nt2 Q0 d1 2 1.0 x\n", 4),
    ],
)
def test_duplicate_run_lines_are_refused_on_either_path(tmp_path, monkeypatch, small_topic, text, line):
    monkeypatch.setattr(RunTable, "SMALL_TOPIC", small_topic)
    path = _write(tmp_path / "run", text)
    with pytest.raises(InputError) as caught:
        read_run_table(path)
    assert str(caught.value).startswith(f"{path}:{line}: duplicate docid 'd1'")


def _outcome(read, path):
    """What a reader gives for a file: its value, or its one-line error."""
    try:
        return read(path)
    except InputError as error:
        return f"error: {error}"


_TOPIC, _DOCID = st.sampled_from(["t1", "t2", "3"]), st.sampled_from(["d1", "d2", "d10", "D1", "0"])
_INTEGER, _SCORE = st.sampled_from(["0", "1", "2", "-1", "007"]), st.sampled_from(["3.5", "1e3", "-2", ".5", "1"])
_QRELS_LINE = st.tuples(_TOPIC, st.just("0"), _DOCID, _INTEGER)
_RUN_LINE = st.tuples(_TOPIC, st.just("Q0"), _DOCID, _INTEGER, _SCORE, st.just("x"))
_FILES = st.lists(_QRELS_LINE, min_size=1, max_size=6) | st.lists(_RUN_LINE, min_size=1, max_size=6)
_ODD = st.sampled_from(["nan", "0x5", "+1", "1_0", "", "1.0"]) | st.text(alphabet="t1-x. \t\n\r\x0b\x1c", max_size=3)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=_FILES, odd=st.none() | st.tuples(st.integers(0, 100), st.integers(0, 7), _ODD), tabs=st.booleans())
def test_any_file_gives_the_line_readers_outcome(tmp_path, lines, odd, tabs):
    lines = [list(fields) for fields in lines]
    if odd is not None:  # one field made odd, or a field added or taken away
        row, column, value = odd
        fields = lines[row % len(lines)]
        if column < len(fields):
            fields[column] = value
        elif column == len(fields):
            fields.append(value)
        else:
            fields.pop()
    text = "\n".join(("\t" if tabs else " ").join(fields) for fields in lines) + "\n"
    path = _write(tmp_path / "f", text)
    assert _outcome(read_qrels, path) == _outcome(_read_qrels_lines, path)
    got = _outcome(read_run_table, path)
    assert (got.to_dict() if isinstance(got, RunTable) else got) == _outcome(read_run, path)
