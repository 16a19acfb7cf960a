"""ASReview 3 project files (.asreview) built here from a tiny SQLite database in ASReview 3's layout, read as
ledgers and measured by `tarsim metrics`; bad project files answered in one line."""

from __future__ import annotations

import json
import sqlite3
import zipfile

import pytest

from tarsim.cli import main
from tarsim.data.asreview_project import read_asreview_project
from tarsim.data.order import read_review

# Records 1..8 (ASReview numbers them from 1); 2, 5 and 7 are included in the data; 8 is a duplicate of 5.
INCLUDED = {1: 0, 2: 1, 3: 0, 4: 0, 5: 1, 6: 0, 7: 1, 8: 1}
GROUP = {8: 5}
# (record_id, label, querier): two priors (querier NULL), then the model's picks; 8 is labelled with its group,
# 6 is pending (no label yet).
RESULTS = [(2, 1, None), (3, 0, None), (4, 0, "max"), (5, 1, "max"), (8, 1, "max"), (1, 0, "max"), (6, None, "max")]


def make_project(path, name="Tiny review", results=RESULTS):
    database = path.parent / "results.db"
    connection = sqlite3.connect(database)
    connection.execute(  # as ASReview 3.0.8 declares it: group_id is a generated column, hidden from table_info
        "CREATE TABLE record (record_id INTEGER PRIMARY KEY, dataset_row INTEGER, dataset_id TEXT, title TEXT, "
        "abstract TEXT, included INTEGER, duplicate_of INTEGER, "
        "group_id INTEGER GENERATED ALWAYS AS (COALESCE(duplicate_of, record_id)) VIRTUAL)"
    )
    connection.executemany(
        "INSERT INTO record (record_id, dataset_row, dataset_id, title, abstract, included, duplicate_of) "
        "VALUES (?, ?, 'data', 't', 'a', ?, ?)",
        [(rid, rid - 1, inc, GROUP.get(rid)) for rid, inc in INCLUDED.items()],
    )
    connection.execute(
        "CREATE TABLE results (record_id INTEGER UNIQUE, label INTEGER, classifier TEXT, querier TEXT, "
        "balancer TEXT, feature_extractor TEXT, training_set INTEGER, time FLOAT, note TEXT, tags JSON, "
        "user_id INTEGER)"
    )
    connection.executemany(
        "INSERT INTO results (record_id, label, querier, time) VALUES (?, ?, ?, 0)",
        [(rid, label, querier) for rid, label, querier in results],
    )
    connection.execute("PRAGMA user_version = 3")
    connection.commit()
    connection.close()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("project.json", json.dumps({"version": "3.0.8", "name": name, "project_file_version": 3}))
        archive.write(database, "results.db")
    return path


def test_project_as_a_ledger(tmp_path):
    ledger = read_asreview_project(make_project(tmp_path / "tiny.asreview"))
    assert (
        ledger.topic == "Tiny_review" and ledger.header["tool"] == "asreview -q max"
    )  # as tarsim names a file's topic
    assert ledger.docids == ["2", "3", "4", "5", "1"]  # results order; group member 8 and pending 6 left out
    assert ledger.prior.tolist() == [True, True, False, False, False]
    assert ledger.truth.tolist() == [1, 0, 0, 1, 0]
    assert (ledger.collection_size, ledger.relevant) == (7, 3)  # 8 records, 8 in 5's group: 7; included 2, 5, 7
    assert read_review(tmp_path / "tiny.asreview").docids == ledger.docids


def test_metrics_of_a_project(tmp_path, capsys):
    project = make_project(tmp_path / "tiny.asreview", name="")
    assert main(["metrics", str(project), "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    # priors excluded: sequence 4, 5, 1 padded to N = 7 - 2 = 5; R = 3 - 1 (record 2 was a prior) = 2
    assert (review["topic"], review["tool"], review["N"], review["R"], review["priors"]) == (
        "tiny",
        "asreview -q max",
        5,
        2,
        2,
    )
    assert review["td"] == [["5", 2]]
    assert review["wss_100"] is None  # record 7 was never found
    assert main(["metrics", str(project), "--priors", "include", "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    assert (review["N"], review["R"], review["td"]) == (7, 3, [["2", 1], ["5", 4]])
    assert review["rrf_10"] == 0.0 and review["rrf_5"] == 0.0  # 10% of 7 is less than one record
    assert review["recall_at_effort"]["1R+0"] == pytest.approx(1 / 3)  # E = 3 records: record 2 found


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
    from tarsim.reporting.compare import load_ledgers

    tools = [ledger.header["tool"] for ledger in load_ledgers([project, order])]
    assert tools == ["asreview -q max", "other"]  # the model as results.db records it (querier only here)
