"""Screening files (CSV, TSV, XLSX, RIS) as collections: ASReview's reading, bad input, `tarsim data import`."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tarsim
from tarsim.cli import main
from tarsim.data import read_collection, read_qrels
from tarsim.datasets import load_dataset
from tarsim.errors import InputError, InputWarning
from tarsim.interop.screening import read_screening_file
from tarsim.policies import SeedingChoice

DATASETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"

# Three records, as written below in each format; docids are row numbers from 0 (no record_id column).
RECORDS = [
    ("Triptans for migraine", "Sumatriptan relieves migraine headache.", 1),
    ("Coffee and sleep", "", 0),
    ("", "An abstract without a title about aspirin.", 0),
]
EXPECTED_DOCS = [
    ("0", "Triptans for migraine", "Sumatriptan relieves migraine headache."),
    ("1", "Coffee and sleep", ""),
    ("2", "", "An abstract without a title about aspirin."),
]
EXPECTED_QRELS = {"0": 1, "1": 0, "2": 0}


def write_delimited(path: Path, header: list[str], rows: list[list[str]], delimiter: str = ",") -> Path:
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_xlsx(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    workbook.save(path)
    return path


def write_ris(path: Path, records: list[tuple[str, str, str | None]]) -> Path:
    lines = []
    for title, abstract, note in records:
        lines.append("TY  - JOUR")
        if title:
            lines.append(f"TI  - {title}")
        if abstract:
            lines.append(f"AB  - {abstract}")
        lines.append("KW  - migraine")
        if note:
            lines.append(f"N1  - {note}")
        lines.append("ER  - ")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def as_tuples(collection) -> list[tuple[str, str, str]]:
    return [(doc.docid, doc.title, doc.text) for doc in collection]


def test_same_records_give_the_same_collection_in_every_format(tmp_path):
    rows = [[t, a, str(label)] for t, a, label in RECORDS]
    (tmp_path / "semi").mkdir()
    paths = [
        write_delimited(tmp_path / "review.csv", ["title", "abstract", "label_included"], rows),
        # ASReview lowercases and strips column names and accepts synonyms; label words and 1.0 count as 0/1.
        write_delimited(
            tmp_path / "review.tsv",
            [" Primary_Title ", "Abstract Note", "Included"],
            [[t, a, {1: "1.0", 0: "no"}[label]] for t, a, label in RECORDS],
            "\t",
        ),
        write_delimited(tmp_path / "review.tab", ["title", "abstract", "final_included"], rows, "\t"),
        # a semicolon-separated .csv: ASReview sniffs the delimiter
        write_delimited(tmp_path / "semi" / "review.csv", ["title", "abstract", "label"], rows, ";"),
        write_xlsx(
            tmp_path / "review.xlsx",
            {
                "notes": [["comment"], ["not the records"]],
                "records": [
                    ["Title", "Abstract", "label_included"],
                    *[[t or None, a or None, lab] for t, a, lab in RECORDS],
                ],
            },
        ),
        write_ris(
            tmp_path / "review.ris",
            [(t, a, "ASReview_relevant" if label else "ASReview_irrelevant") for t, a, label in RECORDS],
        ),
    ]
    for path in paths:
        dataset = load_dataset(path)
        assert dataset.name == "review", path
        assert as_tuples(dataset.collection) == EXPECTED_DOCS, path
        assert dataset.qrels == {"review": EXPECTED_QRELS}, path
        assert dataset.topics == {"review": ""}, path


def test_record_id_column_gives_the_docids(tmp_path):
    path = write_delimited(
        tmp_path / "ids.csv",
        ["record_id", "title", "abstract", "label_included"],
        [["17", "a", "b", "1"], ["5", "c", "", "0"]],
    )
    screening = read_screening_file(path)
    assert screening.collection.docids == ["17", "5"]
    assert screening.qrels == {"ids": {"17": 1, "5": 0}}


def test_ris_not_seen_and_unlabelled_skip(tmp_path):
    path = write_ris(
        tmp_path / "r.ris",
        [
            ("First", "one", "ASReview_relevant"),
            ("Second", "two", "ASReview_not_seen"),
            ("Third", "three", "ASReview_irrelevant"),
        ],
    )
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    # the second record starts on line 8 (TY TI AB KW N1 ER and a blank line: 7 lines a record)
    assert str(caught.value).startswith(f"{path}:8: record 1 has no label")
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        dataset = load_dataset(path, unlabelled="skip")
    assert [str(w.message) for w in caught_warnings if w.category is InputWarning] == [
        f"{path}: 1 unlabelled record(s) left out (--unlabelled skip): record 1 (line 8)"
    ]
    assert dataset.collection.docids == ["0", "2"] and dataset.qrels == {"r": {"0": 1, "2": 0}}


@pytest.mark.parametrize(
    ("csv_name", "review"), [("Triptans", "Cohen_2006_Triptans"), ("Kitchenham_2010", "Kitchenham_2010")]
)
def test_real_asreview_csv_matches_the_normalised_copy(csv_name, review):
    csv_path = DATASETS / "raw" / "asreview_csv" / f"{csv_name}.csv"
    base = DATASETS / "srd" / review
    if not csv_path.exists() or not base.exists():
        pytest.skip(f"{csv_path} or {base} is absent (the shared datasets are not on this machine)")
    dataset = load_dataset(csv_path)
    copy = read_collection(base / "docs.jsonl")
    reference = read_qrels(base / "qrels.txt")[review]
    assert dataset.name == csv_name and len(dataset.collection) == len(copy)
    for position, (imported, expected) in enumerate(zip(dataset.collection, copy, strict=True)):
        assert imported.docid == str(position + 1)  # the files' record_id column counts from 1
        assert (imported.title, imported.text) == (expected.title.strip(), expected.text.strip())
        assert dataset.qrels[csv_name][imported.docid] == reference[expected.docid]


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


HEADER = "title,abstract,label_included\n"
BAD_FILES = [
    ("missing-label.csv", "title,abstract\na,b\n", 1, "missing column(s) label_included"),
    ("two.csv", "\ntitle,abstract,label_included,included\na,b,1,1\n", 2, "two label columns: 'label_included'"),
    ("dup.csv", "title,abstract,label_included,label_included\na,b,1,0\n", 1, "two label columns"),
    ("header-only.csv", HEADER, None, "no records"),
    ("unlabelled.csv", HEADER + "a,b,1\nc,d,\n", 3, "record 1 has no label"),
    ("undecodable.csv", None, 3, "undecodable bytes"),
]
BAD_FILES += [
    (f"label-{i}.csv", HEADER + f"a,b,1\nc,d,{value}\n", 3, f"label_included is not 0 or 1: '{value}'")
    for i, value in enumerate(["2", "1.5", "0.9", "-0.5", "inf", "nan", "Yes", "1_0"])
]


@pytest.mark.parametrize(("name", "content", "line", "fragment"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_screening_file_is_one_line_and_exit_2(tmp_path, capsys, name, content, line, fragment):
    path = tmp_path / name
    if content is None:
        path.write_bytes(HEADER.encode() + b"a,b,1\nc,\xff,0\n")
    else:
        path.write_text(content, encoding="utf-8")
    code, err = run_cli(capsys, "simulate", "--collection", str(path), "--out", str(tmp_path / "out"))
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"tarsim: error: {where}"), err
    assert fragment in err


def test_unreadable_xlsx_and_bad_ris_are_one_line(tmp_path, capsys):
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 this is not a workbook")
    code, err = run_cli(capsys, "data", "import", str(broken), str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"tarsim: error: {broken}: cannot read as an Excel .xlsx workbook")
    unterminated = tmp_path / "cut.ris"
    unterminated.write_text("TY  - JOUR\nTI  - a\nN1  - ASReview_relevant\nER  - \nTY  - JOUR\nTI  - b\n")
    code, err = run_cli(capsys, "data", "import", str(unterminated), str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1
    assert err == f"tarsim: error: {unterminated}:5: RIS record has no 'ER  - ' line before the end of the file\n"
    assert not (tmp_path / "out").exists()
    # a record not closed in the middle of the file (rispy merges it into the next): its TY line is named
    merged = write_ris(tmp_path / "merged.ris", [(f"t{i}", "a", "ASReview_relevant") for i in range(3)])
    lines = merged.read_text().splitlines()
    del lines[12]  # the second record's ER line (a record takes 7 lines: TY, TI, AB, KW, N1, ER, blank)
    merged.write_text("\n".join(lines))
    code, err = run_cli(capsys, "data", "import", str(merged), str(tmp_path / "out"))
    assert code == 2
    assert err == f"tarsim: error: {merged}:8: RIS record has no 'ER  - ' line before the next record (line 14)\n"


def test_xlsx_labels_and_rows(tmp_path):
    path = write_xlsx(
        tmp_path / "x.xlsx",
        {
            "s": [
                ["record_id", "title", "abstract", "included"],
                [10, "a", "b", 1.0],
                [11, "c", None, True],
                [12, "e", "f", 2],
            ]
        },
    )
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert str(caught.value).startswith(f"{path}:4: record_id '12': included is not 0 or 1: '2' (accepted: 0, 1 ")


def test_data_import_writes_a_collection_directory(tmp_path, capsys):
    source = write_delimited(
        tmp_path / "My Review.csv", ["title", "abstract", "label_included"], [[t, a, str(lab)] for t, a, lab in RECORDS]
    )
    destination = tmp_path / "collections" / "mine"
    code, err = run_cli(capsys, "data", "import", str(source), str(destination), "--query", "triptans for migraine")
    assert code == 0, err
    written = ["docs.jsonl.gz", "manifest.json", "qrels.txt", "topics.tsv"]
    assert sorted(p.name for p in destination.iterdir()) == written
    assert [p.name for p in destination.parent.iterdir()] == ["mine"]  # no temporary folder left
    assert (destination / "topics.tsv").read_text() == "My_Review\ttriptans for migraine\n"
    assert (destination / "qrels.txt").read_text() == "My_Review 0 0 1\nMy_Review 0 1 0\nMy_Review 0 2 0\n"
    loaded = load_dataset(destination)
    assert as_tuples(loaded.collection) == EXPECTED_DOCS
    code, err = run_cli(capsys, "data", "import", str(source), str(destination))
    assert code == 2 and "already exists and is not an empty folder" in err


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_file_collection_has_no_query_for_query_seeding(tmp_path):
    rows = [
        [f"migraine trial {i}", "triptan headache relief study" if i % 3 else "coffee sleep study", str(i % 3 and 1)]
        for i in range(12)
    ]
    path = write_delimited(tmp_path / "tiny.csv", ["title", "abstract", "label_included"], rows)
    assert tarsim.simulate(str(path)).config.seeding.kind == "priors"  # no query: 1 + 1 random priors (issue 12)
    result = tarsim.simulate(str(path), seeding=SeedingChoice("random"))
    ledger = result.ledgers["tiny"]
    assert len(ledger.docids) > 0
    for docid, truth in zip(ledger.docids, ledger.truth, strict=True):  # the file's records and labels
        assert truth == (int(docid) % 3 != 0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.lists(
            st.lists(
                st.sampled_from(["title", "abstract", "included", "1", "0", "", " ", "x", '"', "\n", "2"]), max_size=5
            ),
            max_size=6,
        ).map(lambda rows: "\n".join(",".join(row) for row in rows).encode()),
        st.text(alphabet="TYIABN1ER -\nASReview_relevant", max_size=200).map(str.encode),
    ),
    suffix=st.sampled_from([".csv", ".tsv", ".ris", ".xlsx"]),
)
def test_random_bytes_give_a_collection_or_one_line(tmp_path, data, suffix):
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(data)
    try:
        screening = read_screening_file(path, unlabelled="skip")
    except InputError as error:
        assert "\n" not in str(error) and str(error).startswith(str(path))
    else:
        assert len(screening.collection) == len(screening.qrels["fuzz"]) > 0


@pytest.mark.parametrize(("yes", "no"), [("True", "False"), ("TRUE", "FALSE"), ("true", "false")])
def test_boolean_labels_as_pandas_and_excel_write_them(tmp_path, yes, no):
    """ASReview 3.0.8 reads True/False (pandas' booleans) as 1/0; so does tarsim (it refused them)."""
    path = tmp_path / "review.csv"
    path.write_text(f"title,abstract,label_included\na,b,{yes}\nc,d,{no}\ne,f,\n", encoding="utf-8")
    screening = read_screening_file(path, unlabelled="skip")
    assert screening.qrels["review"] == {"0": 1, "1": 0} and screening.skipped == (2,)


def test_a_bad_label_names_the_accepted_forms(tmp_path, capsys):
    path = tmp_path / "review.csv"
    path.write_text("title,abstract,label_included\na,b,1\nc,d,Yes\n", encoding="utf-8")
    code, err = run_cli(capsys, "data", "import", str(path), str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1
    assert f"{path}:3: record 1: label_included is not 0 or 1: 'Yes' (accepted: 0, 1 (1.0 and the like), " in err
    assert "yes/no, y/n, true/false (True/False, TRUE/FALSE); an empty cell means unlabelled)" in err


def test_a_byte_order_mark_is_read_and_warned_about_once(tmp_path):
    """tarsim drops a UTF-8 BOM (the titles are read); ASReview 3.0.8 keeps it in the first column's name and reads
    no title, so the user is told that the two reviews of the file differ."""
    body = "title,abstract,label_included\nfirst,a,1\nsecond,b,0\n"
    marked = tmp_path / "marked.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + body.encode())
    with pytest.warns(InputWarning) as caught:
        screening = read_screening_file(marked)
    assert [doc.title for doc in screening.collection] == ["first", "second"]
    assert len(caught) == 1
    assert str(caught[0].message).startswith(f"{marked}: starts with a UTF-8 byte order mark (BOM)")
    assert "ASReview 3.0.8 keeps the mark in that column's name and reads no 'title' column" in str(caught[0].message)
    other = "note,title,abstract,label_included\nx,first,a,1\ny,second,b,0\n"
    for name, content in (("plain.csv", body.encode()), ("other.csv", b"\xef\xbb\xbf" + other.encode())):
        (tmp_path / name).write_bytes(content)  # no mark, or a first column ASReview does not read: nothing to say
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert len(read_screening_file(tmp_path / name).collection) == 2


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_records_without_title_and_abstract_are_kept_with_one_warning(tmp_path, capsys):
    """ASReview 3.0.8 screens a record with an empty title and abstract as an empty text; so does tarsim (it refused
    the file, so an unedited ASReview CSV such as Cohen_2006_ACEInhibitors could not be reviewed), with one warning
    giving the count and the first one's line."""
    rows = [
        [f"migraine trial {i}", "triptan relief. Pain study." if i % 3 else "coffee sleep", str(int(i % 3 > 0))]
        for i in range(10)
    ]
    rows[3] = ["", "", "1"]
    rows[6] = ["", " ", "0"]
    path = write_delimited(tmp_path / "review.csv", ["title", "abstract", "label_included"], rows)
    with pytest.warns(InputWarning) as caught:
        screening = read_screening_file(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: 2 records have an empty title and abstract (the first at line 5); they are screened as empty "
        "records, as ASReview does"
    ]
    assert len(screening.collection) == 10 and screening.qrels["review"]["3"] == 1
    assert (screening.collection.get("3").title, screening.collection.get("3").text) == ("", "")
    # the CLI: reviewed to the end (features, the feature cache, sentence segmentation take the empty records)
    for feedback in ("document", "sentence"):
        out = tmp_path / f"out-{feedback}"
        code, err = run_cli(
            capsys,
            "simulate",
            "--collection",
            str(path),
            "--seeding",
            "random",
            "--feedback",
            feedback,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--out",
            str(out),
        )
        assert code == 0, err
        assert err.count("empty title and abstract") == 1
        judged = [json.loads(line) for line in (out / "ledgers" / "review.jsonl").read_text().splitlines()[1:]]
        judged = {entry["docid"]: entry["label"] for entry in judged if entry["type"] == "judgment"}
        assert judged["3"] == 1 and judged["6"] == 0
    # a header typo leaves every row's title empty: the warning names the missing column
    typo = tmp_path / "typo.csv"
    typo.write_text("titel,abstract,label_included\nt,a,1\nt,,0\n", encoding="utf-8")
    with pytest.warns(
        InputWarning,
        match=r"1 record has an empty title and abstract \(the first at line 3\); it is "
        r"screened as an empty record, as ASReview does; the file has no title column \(header is titel,",
    ):
        assert len(read_screening_file(typo).collection) == 2
