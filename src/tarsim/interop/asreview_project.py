"""ASReview project files (`.asreview`, ASReview 3's layout) read as ledgers, so their reviews get tarsim's measures.

The file is a zip holding `project.json` (the project's name) and `results.db`, an SQLite database with the
`record` table (the imported data: `record_id`, `included`, and `group_id` for duplicate groups) and the `results`
table (one row per labelling decision, in `rowid` order: `record_id`, `label`, `querier`, ...). As ASReview
does, a result whose `querier` is NULL is a prior and a result without a label is pending (left out). Every record
and every result counts, duplicates too, as a default `asreview simulate` screens them (even with n_query > 1) and as
tarsim reviews every row of the data file, so that a project and tarsim's review of the same order get the same
figures. A review that labelled each duplicate group at once (ASReview LAB, `--group-similar-records`) cannot be
told from its results alone (a batch of n_query records shares one training set and time, as a copied label does):
its copied member labels count as screened records too. The ledger: topic = the project's
name (else the file's stem) with white space as `_` (as tarsim names a screening file's topic, so that the two
pair), docids = the names tarsim gives the same records when it reads the imported data file (`data/<file>` in the
zip; see record_names), order = the results' order, truth = the data's `included` labels, N = the records counted
(above), R = those labelled included in the data (what Insights uses for a finished simulation), tool = `asreview`
and the model that ranked the records (model_name).
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
import warnings
import zipfile
from pathlib import Path

from tarsim.data.ledger import Ledger
from tarsim.data.limits import open_regular
from tarsim.data.lines import PathLike
from tarsim.errors import InputError, InputWarning
from tarsim.interop.archives import copy_zip_member, open_zip, read_zip_member
from tarsim.interop.order import foreign_ledger
from tarsim.interop.screening import record_names

PROJECT_JSON = "project.json"
RESULTS_DB = "results.db"
KNOWN_INCLUDED = (0, 1, None, -1)
"""The record table's `included` values read: 0, 1, and unknown (NULL or -1: not included)."""
DATA_FOLDER = "data/"
"""Where ASReview 3 keeps the imported data file in a project (Project.add_dataset copies it there)."""


def read_asreview_project(path: PathLike) -> Ledger:
    """Read the review in an ASReview 3 project file as a ledger whose tool is "asreview" and its model."""
    path = Path(path)
    not_zip = "not an ASReview project file (not a zip archive)"
    with open_regular(path) as handle, open_zip(path, handle, not_zip) as archive:
        names = set(archive.namelist())
        if PROJECT_JSON not in names or RESULTS_DB not in names:
            raise InputError(path, None, f"not an ASReview 3 project (needs {PROJECT_JSON} and {RESULTS_DB})")
        try:
            config = json.loads(read_zip_member(path, archive, PROJECT_JSON).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise InputError(path, None, f"{PROJECT_JSON} is not valid JSON") from None
        with tempfile.TemporaryDirectory() as tmp:
            database = copy_zip_member(path, archive, RESULTS_DB, Path(tmp) / RESULTS_DB)
            records, results, models, rows = _read_tables(path, database)
        names = _tarsim_names(path, archive, config, rows)
    name = str(config.get("name") or path.stem) if isinstance(config, dict) else path.stem
    topic = re.sub(r"\s+", "_", name.strip()) or path.stem  # as tarsim names a screening file's topic: they pair

    def record(record_id: int) -> str:  # ASReview's id, and the data file's record_id when it has one
        return f"record {record_id}" + (f" (record_id {names[record_id]!r})" if record_id in names else "")

    for record_id, flag in records:
        if flag not in KNOWN_INCLUDED:
            raise InputError(path, None, f"results.db: {record(record_id)} has included={flag!r}, not 0 or 1")
    included = {record_id: int(flag == 1) for record_id, flag in records}
    docids, labels, truth, prior = [], [], [], []
    for record_id, label, querier in results:
        if record_id not in included:
            raise InputError(path, None, f"results.db labels record {record_id}, which its record table does not hold")
        if label not in (0, 1):  # 2 or 'yes' would read as 0: a relevant record counted as irrelevant
            raise InputError(path, None, f"results.db: {record(record_id)} is labelled {label!r}, not 0 or 1")
        docids.append(names.get(record_id, str(record_id)))
        labels.append(int(label == 1))
        truth.append(included[record_id])
        prior.append(querier is None)
    if len(set(docids)) != len(docids):
        raise InputError(path, None, "a record labelled twice in the results table")
    return foreign_ledger(
        tool=model_name(models),
        topic=topic,
        docids=docids,
        labels=labels,
        truth=truth,
        prior=prior,
        relevant=sum(included.values()),
        collection_size=len(included),
        source=str(path),
    )


MODEL_COLUMNS = (("classifier", "-c"), ("querier", "-q"), ("balancer", "-b"), ("feature_extractor", "-e"))
"""The model components results.db records per result, with `asreview simulate`'s option for each."""


def model_name(models: list[tuple]) -> str:
    """The tool of a project: `asreview` and the model that ranked its records, as `asreview simulate`'s options
    (`asreview -c svm -q max -b balanced -e tfidf`; results.db records no parameters, so elas_u4 reads as its
    components); models in order of first use if the project changed model; plain `asreview` for priors only."""
    names = []
    for model in dict.fromkeys(models):
        if any(model):
            pairs = zip(MODEL_COLUMNS, model, strict=True)
            names.append(" ".join(f"{flag} {value}" for (_, flag), value in pairs if value))
    return " ".join(["asreview", " then ".join(names)]).strip()


def _read_tables(path: Path, database: Path) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple] | None]:
    """(record_id, included) of every record (duplicates too), (record_id, label, querier) of the labelled results,
    the model (classifier, querier, balancer, feature_extractor) of each labelled non-prior result in order, and
    where each record comes from, (record_id, dataset_row, dataset_id) of every record (None if the table does not
    say)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        # table_xinfo, not table_info: ASReview 3 declares group_id a generated column, which table_info leaves out
        columns = {row[1] for row in connection.execute("PRAGMA table_xinfo(record)")}
        if not {"record_id", "included"} <= columns:
            raise InputError(path, None, "results.db has no `record` table with record_id and included")
        records = connection.execute("SELECT record_id, included FROM record ORDER BY record_id").fetchall()
        results = connection.execute(
            "SELECT record_id, label, querier FROM results WHERE label IS NOT NULL ORDER BY rowid"
        ).fetchall()
        recorded = {row[1] for row in connection.execute("PRAGMA table_info(results)")}
        chosen = ", ".join(name if name in recorded else "NULL" for name, _ in MODEL_COLUMNS)
        models = connection.execute(
            f"SELECT {chosen} FROM results WHERE label IS NOT NULL AND querier IS NOT NULL ORDER BY rowid"
        ).fetchall()
        rows = None
        if {"dataset_row", "dataset_id"} <= columns:
            query = "SELECT record_id, dataset_row, dataset_id FROM record ORDER BY record_id"
            rows = connection.execute(query).fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(path, None, f"results.db cannot be read: {exc}") from None
    finally:
        connection.close()
    return records, results, models, rows


class _Unnamed(Exception):
    """Why a project's records cannot be given the names tarsim gives its data file's records."""


def _tarsim_names(path: Path, archive: zipfile.ZipFile, config: object, rows: list[tuple] | None) -> dict[int, str]:
    """ASReview's record id -> the docid tarsim gives the same record when it reads the project's data file, for a
    file with a record_id column (ASReview drops that column and numbers the rows from 0); {} keeps ASReview's ids:
    silently for a file without one (they are tarsim's names), with one warning line when the file cannot be read
    or matched to the records."""
    try:
        return _names_from_data_file(archive, config, rows)
    except _Unnamed as reason:
        warnings.warn(
            f"{path}: {reason}; its records keep ASReview's record ids (row numbers from 0), which tarsim gives "
            "the records of a data file only when it has no record_id column",
            InputWarning,
            stacklevel=3,
        )
        return {}


def _names_from_data_file(archive: zipfile.ZipFile, config: object, rows: list[tuple] | None) -> dict[int, str]:
    """The names of record_names for the rows of the project's one data file, by each record's dataset_row; raises
    _Unnamed with the reason when there is not one data file, it is missing, unreadable or of other rows."""
    if rows is None:
        raise _Unnamed("results.db does not say which data row each record is (no dataset_row, dataset_id)")
    if not rows:
        return {}
    if any(not isinstance(row, int) for _, row, _ in rows):
        raise _Unnamed("results.db has records without a data row (dataset_row)")
    dataset_ids = sorted({str(dataset_id) for _, _, dataset_id in rows})
    if len(dataset_ids) > 1:
        raise _Unnamed(f"records from {len(dataset_ids)} data files ({', '.join(dataset_ids)}), tarsim reads one")
    member = DATA_FOLDER + _data_file_name(config, dataset_ids[0])
    if member not in archive.namelist():
        raise _Unnamed(f"its data file {member} is missing")
    names = _read_names(archive, member)
    if names is None:
        return {}
    if len(names) != len(rows):
        raise _Unnamed(f"tarsim reads {len(names)} records in {member}, results.db holds {len(rows)}")
    if sorted(row for _, row, _ in rows) != list(range(len(names))):
        raise _Unnamed(f"the data rows of results.db's records are not the rows 0..{len(names) - 1} of {member}")
    return {record_id: names[row] for record_id, row, _ in rows}


def _data_file_name(config: object, dataset_id: str) -> str:
    """The name project.json gives the data file of a dataset (its `datasets` list, as ASReview finds it)."""
    datasets = config.get("datasets") if isinstance(config, dict) else None
    for dataset in datasets if isinstance(datasets, list) else []:
        if isinstance(dataset, dict) and str(dataset.get("id")) == dataset_id and dataset.get("name"):
            return str(dataset["name"])
    raise _Unnamed(f"{PROJECT_JSON} names no data file for dataset {dataset_id!r}")


def _read_names(archive: zipfile.ZipFile, member: str) -> tuple[str, ...] | None:
    """record_names of a data file in the zip (read from a temporary copy under its own name: the suffix decides
    the reader); its problems become _Unnamed naming the file in the project; its warnings (a byte order mark) are
    about reviewing the file, not naming its records, and are left out."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_zip_member(archive.filename or "", archive, member, Path(tmp) / Path(member).name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", InputWarning)
                return record_names(copy)
        except InputError as exc:
            where = member if exc.line is None else f"{member}:{exc.line}"
            raise _Unnamed(f"tarsim cannot read {where}: {exc.problem}") from None
