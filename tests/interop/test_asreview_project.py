"""ASReview 3 project files (.asreview) built here from a tiny SQLite database in ASReview 3's layout, read as
ledgers and measured by `tarsim metrics`; bad project files answered in one line; records named as tarsim names
the records of the project's data file (its record_id column), so that a project pairs with tarsim's review."""

from __future__ import annotations

import csv
import json
import warnings
import zipfile

import pytest

from asreview_fixtures import write_project
from tarsim.cli import main
from tarsim.errors import InputError, InputWarning
from tarsim.interop.asreview_project import read_asreview_project
from tarsim.interop.reviews import read_review

# Records 1..8 (ASReview numbers them from 1); 2, 5 and 7 are included in the data; 8 is a duplicate of 5.
INCLUDED = {1: 0, 2: 1, 3: 0, 4: 0, 5: 1, 6: 0, 7: 1, 8: 1}
GROUP = {8: 5}
# (record_id, label, querier[, training_set, time]): two priors (querier NULL), then the model's picks in batches of
# two (n_query 2: one training set and time per batch), 5 and its duplicate 8 in one batch; 6 is pending.
RESULTS = [
    (2, 1, None, 0, 0.0),
    (3, 0, None, 0, 0.0),
    (4, 0, "max", 2, 1.0),
    (5, 1, "max", 3, 2.0),
    (8, 1, "max", 3, 2.0),
    (1, 0, "max", 4, 3.0),
    (6, None, "max", 4, 3.0),
]
SCREENED_APART = [(*row[:3], step, float(step)) for step, row in enumerate(RESULTS)]
"""The same review as a default `asreview simulate` makes it: 8 ranked and screened on its own, a step of its own."""


def make_project(path, name="Tiny review", results=RESULTS, data=None):
    """A project of the records INCLUDED (record_id 1..8 at data rows 0..7 of dataset `data`) and `results`;
    `data` = (file name, bytes) puts that data file in the zip and names it in project.json as ASReview does."""
    records = [(rid, rid - 1, "data", inc, GROUP.get(rid)) for rid, inc in INCLUDED.items()]
    return write_project(path, records, results, name, data)


def test_project_as_a_ledger(tmp_path):
    with pytest.warns(InputWarning, match="names no data file"):  # no data file: ASReview's ids are kept
        ledger = read_asreview_project(make_project(tmp_path / "tiny.asreview"))
    assert (
        ledger.topic == "Tiny_review" and ledger.header["tool"] == "asreview -q max"
    )  # as tarsim names a file's topic
    assert ledger.docids == ["2", "3", "4", "5", "8", "1"]  # results order (duplicate 8 too); pending 6 left out
    assert ledger.prior.tolist() == [True, True, False, False, False, False]
    assert ledger.truth.tolist() == [1, 0, 0, 1, 1, 0]
    assert (ledger.collection_size, ledger.relevant) == (8, 4)  # every record; included 2, 5, 7, 8
    with pytest.warns(InputWarning, match="names no data file"):
        assert read_review(tmp_path / "tiny.asreview").docids == ledger.docids


def test_duplicates_screened_on_their_own_count_as_records(tmp_path):
    """A default `asreview simulate` screens a duplicate as any record (ASReview 3.0.8 ranks every record unless
    --group-similar-records), as tarsim reviews every row of the data file: the project then counts it too, so that
    the same order gets the same N, R and measures read from the project or from tarsim's review."""
    with pytest.warns(InputWarning, match="names no data file"):
        ledger = read_asreview_project(make_project(tmp_path / "apart.asreview", results=SCREENED_APART))
    assert ledger.docids == ["2", "3", "4", "5", "8", "1"]  # pending 6 left out
    assert ledger.truth.tolist() == [1, 0, 0, 1, 1, 0]
    assert (ledger.collection_size, ledger.relevant) == (8, 4)  # every record; included 2, 5, 7, 8


def test_metrics_of_a_project(tmp_path, capsys):
    project = make_project(tmp_path / "tiny.asreview", name="")
    assert main(["metrics", str(project), "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    # priors excluded: sequence 4, 5, 8, 1 padded to N = 8 - 2 = 6; R = 4 - 1 (record 2 was a prior) = 3
    assert (review["topic"], review["tool"], review["N"], review["R"], review["priors"]) == (
        "tiny",
        "asreview -q max",
        6,
        3,
        2,
    )
    assert review["td"] == [["5", 2], ["8", 3]]
    assert review["wss_100"] is None  # record 7 was never found
    assert main(["metrics", str(project), "--priors", "include", "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    assert (review["N"], review["R"], review["td"]) == (8, 4, [["2", 1], ["5", 4], ["8", 5]])
    assert review["rrf_10"] == 0.0 and review["rrf_5"] == 0.0  # 10% of 8 is less than one record
    assert review["recall_at_effort"]["1R+0"] == pytest.approx(2 / 4)  # E = 4 records: records 2 and 5 found


def test_bad_project_files(tmp_path, capsys):
    not_zip = tmp_path / "broken.asreview"
    not_zip.write_text("not a zip")
    assert main(["metrics", str(not_zip)]) == 2
    assert "not a zip archive" in capsys.readouterr().err
    empty = tmp_path / "empty.asreview"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("other.txt", "")
    assert main(["metrics", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "needs project.json and results.db" in err and len(err.strip().splitlines()) == 1


def test_plot_and_compare_take_projects_and_order_files(tmp_path, capsys):
    project = make_project(tmp_path / "tiny.asreview")
    order = tmp_path / "tiny.other.txt"
    order.write_text("".join(f"{rid} {INCLUDED[rid]}\n" for rid in (5, 2, 7, 1, 3, 4, 6)))
    figure = tmp_path / "wss.png"
    assert main(["plot", str(project), str(order), "--kind", "wss", "--out", str(figure)]) == 0
    assert "2 review(s) plotted" in capsys.readouterr().out
    assert figure.read_bytes().startswith(b"\x89PNG")
    short = tmp_path / "short.png"  # -o, as `tarsim retrieve` takes it
    assert main(["plot", str(project), "--kind", "wss", "-o", str(short)]) == 0
    assert short.read_bytes().startswith(b"\x89PNG")
    from tarsim.reporting.compare import load_ledgers

    tools = [ledger.header["tool"] for ledger in load_ledgers([project, order])]
    assert tools == ["asreview -q max", "other"]  # the model as results.db records it (querier only here)


# ---- record names: the project's data file read as tarsim reads it ----------------------------------------------

ROW_NAMES = ["w17", "w03", "w88", "w42", "w05", "w61", "w29", "w70"]
"""The record_id column of the tiny data file, rows 0..7 (ASReview's records 1..8 of make_project)."""


def data_csv(record_ids=ROW_NAMES, labels=None) -> bytes:
    """The tiny review's data file: title, abstract, label and (unless `record_ids` is None) a record_id column."""
    rows = [["title", "abstract", "label_included", *(["record_id"] if record_ids is not None else [])]]
    for row, rid in enumerate(INCLUDED):
        label = INCLUDED[rid] if labels is None else labels[row]
        rows.append([f"title {row}", f"abstract {row}", label, *([record_ids[row]] if record_ids is not None else [])])
    return "".join(",".join(map(str, row)) + "\n" for row in rows).encode()


def test_records_are_named_by_the_record_id_column_of_the_data_file(tmp_path, capsys):
    """ASReview drops the file's record_id column and numbers the rows; tarsim names a record by that column, so a
    project of the file names its records so too: results 2, 3, 4, 5, 1 are rows 1, 2, 3, 4, 0."""
    project = make_project(tmp_path / "tiny.asreview", data=("tiny.csv", data_csv()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = read_asreview_project(project)
    assert ledger.docids == ["w03", "w88", "w42", "w05", "w70", "w17"]
    assert ledger.truth.tolist() == [1, 0, 0, 1, 1, 0] and (ledger.collection_size, ledger.relevant) == (8, 4)
    assert main(["metrics", str(project), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["reviews"][0]["td"] == [["w05", 2], ["w70", 3]] and err == ""


@pytest.mark.parametrize(
    "data",
    [
        ("tiny.csv", data_csv(record_ids=None)),
        ("tiny.csv", b"title,abstract\n" + b"".join(b"t%d,a%d\n" % (i, i) for i in range(8))),  # no labels
        ("tiny.ris", "".join(f"TY  - JOUR\nTI  - title {i}\nER  - \n\n" for i in range(8)).encode()),  # no notes
    ],
    ids=["csv without record_id", "csv without labels", "ris without labels"],
)
def test_a_data_file_without_a_record_id_column_keeps_asreviews_ids_without_a_word(tmp_path, data):
    """Its rows are tarsim's names (they equal ASReview's record ids); labels are not needed to say so (a project
    screened in ASReview's web app may hold an unlabelled file)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = read_asreview_project(make_project(tmp_path / "tiny.asreview", data=data))
    assert ledger.docids == ["2", "3", "4", "5", "8", "1"]


def two_data_files(path):
    records = [(rid, rid - 1, "data" if rid < 5 else "more", inc, GROUP.get(rid)) for rid, inc in INCLUDED.items()]
    return write_project(path, records, RESULTS, data=("tiny.csv", data_csv()))


def a_record_without_a_row(path):
    records = [(rid, None if rid == 3 else rid - 1, "data", inc, GROUP.get(rid)) for rid, inc in INCLUDED.items()]
    return write_project(path, records, RESULTS, data=("tiny.csv", data_csv()))


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda path: make_project(path, data=("tiny.csv", None)), "its data file data/tiny.csv is missing"),
        (
            lambda path: make_project(path, data=("tiny.csv", data_csv(record_ids=[*ROW_NAMES[:7], "w17"]))),
            "tarsim cannot read data/tiny.csv:9: duplicate record_id 'w17' (first on line 2)",
        ),
        (
            lambda path: make_project(path, data=("tiny.csv", data_csv().rsplit(b"\n", 2)[0] + b"\n")),
            "tarsim reads 7 records in data/tiny.csv, results.db holds 8",
        ),
        (lambda path: make_project(path, data=("tiny.json", b"[]")), "tarsim cannot read data/tiny.json: not a"),
        (two_data_files, "records from 2 data files (data, more), tarsim reads one"),
        (make_project, "project.json names no data file for dataset 'data'"),
        (a_record_without_a_row, "results.db has records without a data row (dataset_row)"),
    ],
    ids=["missing", "unreadable", "other rows", "unknown suffix", "two files", "unnamed", "null row"],
)
def test_records_keep_asreviews_ids_with_one_warning_when_the_data_file_does_not_tell(tmp_path, capsys, make, problem):
    """A data file missing, unreadable, of other rows, or several of them: ASReview's record ids are kept (right
    for a file without a record_id column) and one warning line says why."""
    project = make(tmp_path / "tiny.asreview")
    assert main(["metrics", str(project), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["reviews"][0]["td"] == [["5", 2], ["8", 3]]  # ASReview's record ids of those found
    assert len(err.splitlines()) == 1 and err.startswith(f"tarsim: warning: {project}: {problem}")
    assert "keep ASReview's record ids" in err


def test_a_project_pairs_with_tarsims_review_of_the_same_file(tmp_path, capsys):
    """Two ASReview projects of a file with a record_id column (not 0..n-1) ranked as tarsim ranked it from two
    sets of priors: both name the records alike (the same time to discovery), and compare pairs them by priors."""
    labels = [1 if i % 5 == 0 else 0 for i in range(30)]
    names = [f"{9000 - 7 * row}" for row in range(30)]
    row_of = {name: row for row, name in enumerate(names)}
    source = tmp_path / "tiny.csv"
    with open(source, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "label_included"])
        for row, (name, label) in enumerate(zip(names, labels, strict=True)):
            topic = "triptan migraine relief" if label else f"coffee sleep study {row % 4}"
            writer.writerow([name, f"trial {row} {topic}", f"{topic} randomised trial {row}", label])
    for seed in (1, 2):  # tarsim's runs from two prior seeds, each then ranked by ASReview alike
        out = tmp_path / f"tarsim-{seed}"
        argv = ["simulate", "--collection", str(source), "--prior-seed", str(seed), "--max-effort", "15"]
        assert main([*argv, "--out", str(out)]) == 0
        lines = [json.loads(line) for line in (out / "ledgers" / "tiny.jsonl").read_text().splitlines()]
        order = [(line["docid"], bool(line.get("prior"))) for line in lines if line["type"] == "judgment"]
        records = [(row, row, "data", labels[row], None) for row in range(30)]  # ASReview: record_id = row
        results = [(row_of[d], labels[row_of[d]], None if prior else "max") for d, prior in order]
        data = ("tiny.csv", source.read_bytes())
        write_project(tmp_path / f"asreview-{seed}.asreview", records, results, name="tiny", data=data)
    capsys.readouterr()
    for seed in (1, 2):
        inputs = [str(tmp_path / f"asreview-{seed}.asreview"), str(tmp_path / f"tarsim-{seed}")]
        assert main(["metrics", *inputs, "--format", "json"]) == 0
        project, ledger = json.loads(capsys.readouterr().out)["reviews"]
        assert project["td"] == ledger["td"] and project["td"] and project["td"][0][0] in names
    inputs = [str(tmp_path / name) for name in ("asreview-1.asreview", "asreview-2.asreview", "tarsim-1", "tarsim-2")]
    assert main(["compare", *inputs, "--baseline", "tarsim asreview-default", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {row["pairs"] for row in rows if row["group"] == "asreview -q max"} == {2}


def test_a_bad_label_names_the_data_files_record_id(tmp_path):
    """ASReview's record id alone cannot be found in a data file with a record_id column: both are named."""
    results = [*RESULTS[:2], (4, 2, "max", 2, 1.0)]
    project = make_project(tmp_path / "tiny.asreview", results=results, data=("tiny.csv", data_csv()))
    with pytest.raises(InputError) as caught:
        read_asreview_project(project)
    assert caught.value.problem == "results.db: record 4 (record_id 'w42') is labelled 2, not 0 or 1"
