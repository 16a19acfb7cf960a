"""ASReview 3 project files (.asreview) for tests: a small SQLite results.db and project.json zipped as ASReview does,
shared by the tests that read projects as ledgers and those that name a project's tool."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

MODEL_COLUMNS = ("classifier", "balancer", "feature_extractor")
"""The model columns of results.db besides `querier` (set per result row)."""


def write_project(
    path: Path,
    records: Sequence[tuple],
    results: Sequence[tuple],
    name: str = "Tiny review",
    data: tuple[str, bytes | None] | None = None,
    model: Mapping[str, str] | None = None,
) -> Path:
    """A project file in ASReview 3's layout: `records` (record_id, dataset_row, dataset_id, included,
    duplicate_of), or (record_id, included) for a record table that does not say where records come from; `results`
    (record_id, label, querier[, training_set, time]) in results.db (default: each result its own step), with
    `model` (classifier, balancer, feature_extractor values) on every result a querier chose (priors have none);
    `data` = (file name, bytes): the imported file under data/ and project.json's `datasets` entry for dataset id
    "data" (bytes None: named, but left out of the zip)."""
    database = path.parent / f"{path.stem}.results.db"
    database.unlink(missing_ok=True)
    connection = sqlite3.connect(database)
    if all(len(record) == 2 for record in records):
        connection.execute("CREATE TABLE record (record_id INTEGER PRIMARY KEY, included INTEGER)")
        connection.executemany("INSERT INTO record (record_id, included) VALUES (?, ?)", records)
    else:
        connection.execute(  # as ASReview 3.0.8 declares it: group_id is a generated column, hidden from table_info
            "CREATE TABLE record (record_id INTEGER PRIMARY KEY, dataset_row INTEGER, dataset_id TEXT, title TEXT, "
            "abstract TEXT, included INTEGER, duplicate_of INTEGER, "
            "group_id INTEGER GENERATED ALWAYS AS (COALESCE(duplicate_of, record_id)) VIRTUAL)"
        )
        connection.executemany(
            "INSERT INTO record (record_id, dataset_row, dataset_id, title, abstract, included, duplicate_of) "
            "VALUES (?, ?, ?, 't', 'a', ?, ?)",
            records,
        )
    connection.execute(
        "CREATE TABLE results (record_id INTEGER UNIQUE, label INTEGER, classifier TEXT, querier TEXT, "
        "balancer TEXT, feature_extractor TEXT, training_set INTEGER, time FLOAT, note TEXT, tags JSON, "
        "user_id INTEGER)"
    )
    chosen = [(model or {}).get(column) for column in MODEL_COLUMNS]
    rows = []
    for step, (rid, label, querier, *when) in enumerate(results):
        training_set, time = when if when else (step, float(step))  # each result its own step unless given
        rows.append((rid, label, querier, *(chosen if querier else [None] * 3), training_set, time))
    connection.executemany(
        "INSERT INTO results (record_id, label, querier, classifier, balancer, feature_extractor, training_set, time) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    connection.execute("PRAGMA user_version = 3")
    connection.commit()
    connection.close()
    config = {"version": "3.0.8", "name": name, "project_file_version": 3}
    if data is not None:
        config["datasets"] = [{"id": "data", "name": data[0]}]
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("project.json", json.dumps(config))
        archive.write(database, "results.db")
        if data is not None and data[1] is not None:
            archive.writestr(f"data/{data[0]}", data[1])
    return path
