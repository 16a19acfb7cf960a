"""tarsim's screening readers against reference readers, property-based (issue 30, "every record counted").

CSV and TSV files are written by the csv module with every Unicode line-break character (U+0085, U+2028, U+2029,
\\x0b, \\x0c, \\x1c-\\x1e), quotes, NULs, delimiters, \\r and \\n and long runs in every text field, with each line end
(\\n, \\r\\n, \\r) and quoting style; tarsim must read as many records as pandas.read_csv (what ASReview reads with)
and every field as pandas reads it. RIS files are compared with rispy reading the file as ASReview does (text
mode: lines end at \\r, \\n, \\r\\n). Examples are derandomised, few, and without a deadline: the default run stays
fast.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
import rispy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarsim.errors import InputWarning
from tarsim.interop.screening import read_screening_file, read_table

pytestmark = pytest.mark.slow  # property-based

CHECKED = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
BREAKS = ["\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]
"""Unicode line breaks of str.splitlines that are no line end in a CSV, TSV or RIS file."""
SPECIAL = [*BREAKS, '"', ",", "\t", ";", "|", " ", "'"]
if sys.version_info >= (3, 11):  # the csv module of Python 3.10 refuses a NUL ("line contains NUL"): one line
    SPECIAL.append("\x00")
CHARACTERS = st.one_of(
    st.sampled_from(SPECIAL),
    st.characters(blacklist_categories=("Cs",)),  # any code point a UTF-8 file can hold
)
SHORT = st.text(CHARACTERS, max_size=12)
LONG = st.builds(lambda piece, times: piece * times, st.text(CHARACTERS, min_size=1, max_size=3), st.integers(1, 3000))
CSV_FIELD = st.one_of(SHORT, SHORT.map(lambda text: text + "\r\n" + text), st.sampled_from(["\r", "\n", ""]), LONG)
RIS_FIELD = st.one_of(SHORT, LONG).map(lambda text: text.replace("\r", " ").replace("\n", " "))
HEADER = ["record_id", "title", "abstract", "keywords", "label_included"]


def records(field: st.SearchStrategy[str]) -> st.SearchStrategy[list[tuple[str, str, str, str]]]:
    """(title, abstract, keywords, label) per record, 1 to 6 records."""
    return st.lists(st.tuples(field, field, field, st.sampled_from(["0", "1"])), min_size=1, max_size=6)


def ris_value(value: object) -> str:
    """A rispy field as one text cell, as ASReview joins a list (`;`)."""
    if value is None:
        return ""
    return ";".join(str(v) for v in value) if isinstance(value, list) else str(value)


def quoted(field: str, delimiter: str, quote_all: bool) -> str:
    """A field as a CSV writer should write it: quoted (quotes doubled) when it holds the delimiter, a quote, \\r or
    \\n, or always (the csv module of Python 3.11 leaves a \\r bare when the line terminator is \\n)."""
    if quote_all or any(char in field for char in (delimiter, '"', "\r", "\n")):
        return '"' + field.replace('"', '""') + '"'
    return field


def read_with_pandas(path: Path, delimiter: str) -> list[list[str]]:
    frame = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8")
    assert list(frame.columns) == HEADER
    return frame.to_numpy().tolist()


@CHECKED
@given(
    rows=records(CSV_FIELD),
    delimiter=st.sampled_from([",", "\t"]),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    quote_all=st.booleans(),
)
def test_csv_and_tsv_records_and_fields_match_pandas(tmp_path_factory, rows, delimiter, ending, quote_all):
    folder = tmp_path_factory.mktemp("csv")
    path = folder / ("set.csv" if delimiter == "," else "set.tsv")
    lines = [HEADER, *([f"r{index}", *row] for index, row in enumerate(rows))]
    text = "".join(delimiter.join(quoted(field, delimiter, quote_all) for field in line) + ending for line in lines)
    path.write_text(text, encoding="utf-8", newline="")
    expected = read_with_pandas(path, delimiter)
    assert len(expected) == len(rows)  # the reference reads what was written
    table = read_table(path)
    assert table.header == tuple(HEADER)
    assert [list(cells) for _line, cells in table.rows] == expected  # every record, every field, as pandas reads
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # records with empty texts are kept with a warning
        screening = read_screening_file(path)
    assert screening.read == len(expected)
    assert screening.collection.docids == [row[0] for row in expected]
    assert [(d.title, d.text) for d in screening.collection] == [(r[1].strip(), r[2].strip()) for r in expected]
    assert screening.qrels[screening.topic] == {row[0]: int(row[4]) for row in expected}


RIS_TAGS = ("TI", "AB", "KW", "AU", "PY")


@CHECKED
@given(
    entries=st.lists(
        st.tuples(st.lists(st.tuples(st.sampled_from(RIS_TAGS), RIS_FIELD), min_size=1, max_size=5), st.booleans()),
        min_size=1,
        max_size=5,
    ),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_ris_records_and_fields_match_rispy(tmp_path_factory, entries, ending):
    lines = []
    for fields, relevant in entries:
        lines.extend(["TY  - JOUR", "TI  - title"])  # every record has a title column (or tarsim refuses the file)
        lines.extend(f"{tag}  - {value}" for tag, value in fields)
        lines.append(f"N1  - {'ASReview_relevant' if relevant else 'ASReview_irrelevant'}")
        lines.extend(["ER  - ", ""])
    path = tmp_path_factory.mktemp("ris") / "set.ris"
    path.write_text(ending.join(lines), encoding="utf-8", newline="")
    expected = rispy.load(path, encoding="utf-8", skip_unknown_tags=True)  # as ASReview reads a RIS file
    assert len(expected) == len(entries)
    table = read_table(path)
    assert len(table.rows) == len(expected)
    for (_line, cells), entry in zip(table.rows, expected, strict=True):
        by_name = dict(zip(table.header, cells, strict=True))
        for key, value in entry.items():
            if key != "notes":
                assert by_name[key] == ris_value(value)
        assert by_name["included"] == ("1" if "ASReview_relevant" in entry["notes"][0] else "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        screening = read_screening_file(path)
    assert screening.read == len(expected)
    assert [document.title for document in screening.collection] == [
        ris_value(entry.get("primary_title", entry.get("title"))).strip() for entry in expected
    ]
