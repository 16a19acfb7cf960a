"""Screening files (CSV, TSV, Excel .xlsx, RIS) read as ASReview 3 reads them: one file, one topic.

Column names are lowercased and stripped and matched against ASReview's synonyms (`title` or `primary_title`,
`abstract`, `notes_abstract` or `abstract note`; the label column from ASReview's list). RIS labels come from
ASReview's `ASReview_relevant` / `ASReview_irrelevant` notes. A document's text is the abstract and its title
the title (ASReview's tf-idf reads title + abstract only; keywords, authors and doi are not used). Docids are
the `record_id` column when there is one, else the record's row number from 0 (ASReview's record ids).
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset
from tarsim.data.lines import PathLike, open_binary
from tarsim.data.qrels import Qrels
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.interop.line_breaks import no_line_ends_problem
from tarsim.interop.ris import RIS_NOTES, read_ris
from tarsim.interop.screening_table import (
    LABEL_COLUMNS,
    RECORD_ID_COLUMN,
    TEXT_COLUMNS,
    MissingLabelColumn,
    Table,
    decode_text,
)
from tarsim.interop.screening_table import shown as _shown
from tarsim.interop.xlsx import read_xlsx

__all__ = [
    "LABEL_COLUMNS",
    "RECORD_ID_COLUMN",
    "RIS_NOTES",
    "SCREENING_SUFFIXES",
    "TEXT_COLUMNS",
    "UNLABELLED_CHOICES",
    "LeftOut",
    "MissingLabelColumn",
    "ScreeningSet",
    "Table",
    "decode_text",
    "find_screening_files",
    "is_screening_file",
    "load_screening_dataset",
    "read_screening_file",
    "read_table",
    "record_name",
    "record_names",
    "screening_dataset",
    "topic_name",
]

DELIMITED_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
"""ASReview's CSV reader takes .csv, .tsv and .tab and sniffs the delimiter; the suffix gives the fallback."""
EXCEL_SUFFIXES = (".xlsx",)
RIS_SUFFIXES = (".ris", ".txt")
"""ASReview reads .txt files as RIS (its RIS reader claims .txt; no tabular reader does)."""
SCREENING_SUFFIXES = (*DELIMITED_SUFFIXES, *EXCEL_SUFFIXES, *RIS_SUFFIXES)

UNLABELLED_CHOICES = ("error", "skip")
LABEL_WORDS = {"yes": 1, "y": 1, "no": 0, "n": 0}
"""Label words ASReview maps to 0/1 (lowercase only, as ASReview's standardize_included_label)."""
LABEL_BOOLEANS = {"True": 1, "TRUE": 1, "true": 1, "False": 0, "FALSE": 0, "false": 0}
"""Booleans as pandas (so ASReview) reads them in a label column whose every label is one, as pandas and Excel
write them; tarsim takes them in any label column."""
ACCEPTED_LABELS = "0, 1 (1.0 and the like), yes/no, y/n, true/false (True/False, TRUE/FALSE)"
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)
"""A number label: ASCII digits only (float() also reads full-width `１` and Arabic-Indic `١`; qrels refuse them)."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""The only line ends of a CSV/TSV file (as pandas and the csv module read it): not str.splitlines's U+0085,
U+2028, U+2029, \\x0b, \\x0c or \\x1c-\\x1e, which are characters inside a field."""


@dataclass(frozen=True)
class LeftOut:
    """A record left out (`--unlabelled skip`) as users find it: its record_id (without a record_id column, the row
    number from 0 that is its docid) and where it starts in the file."""

    record_id: str
    line: int | None
    unit: str = "line"
    """What `line` counts: `line` (CSV/TSV, a RIS record's TY line) or `sheet row` (.xlsx)."""
    name: str = ""
    """How messages name it (record_name): `record_id 'R7'`, or `record 3` in a file without a record_id column."""

    def __str__(self) -> str:
        where = f" ({self.unit} {self.line})" if self.line is not None else ""
        return f"{self.name or self.record_id}{where}"

    def as_json(self) -> dict[str, object]:
        """The manifest's entry: {"record_id": ..., "line": N} (`sheet_row` for an .xlsx file)."""
        return {"record_id": self.record_id, self.unit.replace(" ", "_"): self.line}


@dataclass(frozen=True)
class ScreeningSet:
    """One screening file read: its documents, the labels of the kept records and the records left out."""

    topic: str
    collection: Collection
    qrels: Qrels
    skipped: tuple[int, ...] = ()
    """Row numbers from 0 of the records left out (prior_idx counts them)."""
    read: int = 0
    """Records read from the file (kept ones and those left out), counted by the file's own parser."""
    left_out: tuple[LeftOut, ...] = ()
    """The records left out as users name them (record_id and line), in file order."""


def is_screening_file(path: PathLike) -> bool:
    """True for an existing file with a screening suffix (what `--collection FILE` accepts)."""
    path = Path(path)
    return path.is_file() and path.suffix.lower() in SCREENING_SUFFIXES


def topic_name(path: PathLike) -> str:
    """The topic id of a screening file: its stem, white space replaced by `_` (TREC ids cannot hold it)."""
    return re.sub(r"\s+", "_", Path(path).stem.strip()) or "screening"


def read_screening_file(path: PathLike, topic: str | None = None, *, unlabelled: str = "error") -> ScreeningSet:
    """Read a CSV/TSV/XLSX/RIS screening file; every kept record is judged 0 or 1 for `topic` (default: stem).

    `unlabelled="skip"` leaves records without a label out (their row numbers are in `skipped`); the default
    refuses them naming the row.
    """
    if unlabelled not in UNLABELLED_CHOICES:
        raise ConfigError(f"unlabelled {unlabelled!r} unknown; accepted: {', '.join(UNLABELLED_CHOICES)}")
    path = Path(path)
    return records_from_table(path, read_table(path), topic or topic_name(path), unlabelled)


def read_table(path: Path, *, require_labels: bool = True) -> Table:
    """A screening file's rows as text cells, read by its suffix (CSV/TSV, Excel .xlsx, RIS). `require_labels=False`
    also takes a RIS file without any label note (its reader refuses one by default)."""
    suffix = path.suffix.lower()
    if suffix in DELIMITED_SUFFIXES:
        table = read_delimited(path, DELIMITED_SUFFIXES[suffix])
    elif suffix in EXCEL_SUFFIXES:
        table = read_xlsx(path)
    elif suffix in RIS_SUFFIXES:
        return read_ris(path, require_labels=require_labels)
    else:
        raise InputError(path, None, f"not a screening file: the name must end in {', '.join(SCREENING_SUFFIXES)}")
    if any("\0" in name for name in table.header):  # `ti\0tle` named no column: every title was silently empty
        raise InputError(path, table.header_line, "a NUL byte in the header (binary data, or a damaged file)")
    return table


def record_names(path: PathLike) -> tuple[str, ...] | None:
    """The docid read_screening_file gives each row of a screening file (unlabelled rows too), in row order, when
    the file has a record_id column; None without one (a row's docid is then its number from 0). Blank, spaced and
    repeated record_ids are refused as read_screening_file refuses them; labels are not read."""
    path = Path(path)
    table = read_table(path, require_labels=False)
    names = [name.strip().lower() for name in table.header]
    position = _column_position(path, table, names, RECORD_ID_COLUMN, (RECORD_ID_COLUMN,))
    if position is None:
        return None
    seen: dict[str, int | None] = {}
    return tuple(_checked_docid(path, line, _cell(cells, position), seen) for line, cells in table.rows)


def records_from_table(path: Path, table: Table, topic: str, unlabelled: str) -> ScreeningSet:
    """Documents and labels from a table, checked: labels 0/1, unique record ids. Records with neither title nor
    abstract are kept (ASReview screens them as empty texts) with one warning."""
    if not table.rows:
        raise InputError(path, None, "no records (only a header)" if table.header else "no records")
    columns = _choose_columns(path, table)
    documents: list[Document] = []
    labels: dict[str, int] = {}
    skipped: list[int] = []
    left_out: list[LeftOut] = []
    seen: dict[str, int | None] = {}
    empty_lines: list[int | None] = []
    unit = "sheet row" if table.unit == "row" else "line"
    for index, (line, cells) in enumerate(table.rows):

        def cell(name: str, cells: Sequence[str] = cells) -> str:
            return _cell(cells, columns.get(name))

        named = RECORD_ID_COLUMN in columns
        record_id = cell(RECORD_ID_COLUMN) if named else str(index)
        where = record_name(index, record_id if named else None)
        label = parse_label(path, line, where, columns["label_name"], cell("label"))
        if label is None:
            if unlabelled == "skip":
                skipped.append(index)
                left_out.append(LeftOut(record_id, line, unit, where))
                continue
            hint = "no ASReview_relevant/ASReview_irrelevant note" if table.unit == "record" else "empty label"
            if table.unit == "line" and len(cells) < len(table.header):  # the label column is past the line's end
                hint = f"the line has {len(cells)} of the {len(table.header)} header columns"
            raise InputError(
                path,
                line,
                f"{where} has no label ({hint}; leave such records out: --unlabelled skip, in a sweep "
                'unlabelled = "skip" in its [[collections]])',
            )
        docid = _checked_docid(path, line, record_id, seen)
        title, abstract = cell("title"), cell("abstract")
        if not title and not abstract:
            empty_lines.append(line)
        labels[docid] = label
        documents.append(Document(docid=docid, title=title, text=abstract))
    if not documents:
        raise InputError(path, None, f"no labelled records ({len(skipped)} unlabelled left out)")
    if empty_lines:
        warn_empty_records(path, table, columns, empty_lines)
    if not any(document.text for document in documents) and any(document.title for document in documents):
        # allowed (ASReview screens such files too), but say so
        where = "no abstract column" if "abstract" not in columns else "every abstract is empty"
        warnings.warn(f"{path}: {where}: the records are screened by their titles alone", InputWarning, stacklevel=2)
    if len(documents) + len(skipped) != len(table.rows):  # every record read is either kept or named as left out
        counted = len(documents) + len(skipped)
        raise InputError(path, None, f"{len(table.rows)} records read but {counted} kept or left out")
    collection = Collection(documents, source=str(path))
    return ScreeningSet(topic, collection, {topic: labels}, tuple(skipped), len(table.rows), tuple(left_out))


def record_name(index: int, record_id: str | None) -> str:
    """A record as messages name it: `record_id 'R7'` from the record_id column, else `record 3`, its row number
    from 0 (its docid, as ASReview numbers the records of a file without that column)."""
    if record_id is None:
        return f"record {index}"
    return f"record_id {record_id!r}" if record_id else f"record {index} (blank record_id)"


def warn_empty_records(path: Path, table: Table, columns: dict, lines: Sequence[int | None]) -> None:
    """One warning for the kept records with neither title nor abstract: how many, and where the first is (its line,
    sheet row or RIS `TY` line). Kept, not refused: ASReview 3.0.8 screens them as empty texts, and leaving them out
    would change the review's N and R. A missing text column (a header typo) is named: it may be the cause."""
    count = len(lines)
    first = lines[0]
    unit = "sheet row" if table.unit == "row" else "line"  # a RIS record's line is its TY line
    where = f" (the first at {unit} {first})" if first is not None else ""
    missing = [name for name in ("title", "abstract") if name not in columns]
    hint = f"; the file has no {' or '.join(missing)} column (header is {_shown(table.header)})" if missing else ""
    if count == 1:
        noun, screened = "record has", "it is screened as an empty record"
    else:
        noun, screened = "records have", "they are screened as empty records"
    warnings.warn(
        f"{path}: {count} {noun} an empty title and abstract{where}; {screened}, as ASReview does{hint}",
        InputWarning,
        stacklevel=3,
    )


def _cell(cells: Sequence[str], position: int | None) -> str:
    """A row's cell at a column position, stripped; '' for a column the file lacks or a short row."""
    return cells[position].strip() if position is not None and position < len(cells) else ""


def _checked_docid(path: Path, line: int | None, docid: str, seen: dict[str, int | None]) -> str:
    """A record's docid, refused when blank, holding white space, or already in `seen` (docid -> its line, to which
    it is added)."""
    if not docid or any(ch.isspace() for ch in docid):
        raise InputError(path, line, f"invalid record_id {docid!r} (blank or holding white space)")
    if docid in seen:
        first = f" (first on line {seen[docid]})" if seen[docid] is not None else ""
        raise InputError(path, line, f"duplicate record_id {docid!r}{first}")
    seen[docid] = line
    return docid


def _choose_columns(path: Path, table: Table) -> dict:
    """Positions of the columns used, by ASReview's synonyms; refuses ambiguous or missing label columns."""
    names = [name.strip().lower() for name in table.header]
    header_line = table.header_line
    positions: dict = {}
    label_columns = [i for i, name in enumerate(names) if name in LABEL_COLUMNS]
    if len(label_columns) > 1:
        shown = " and ".join(f"{table.header[i]!r} (column {i + 1})" for i in label_columns)
        raise InputError(path, header_line, f"two label columns: {shown}; keep one")
    if not label_columns:
        raise MissingLabelColumn(
            path,
            header_line,
            f"missing column(s) label_included (or another label column: {', '.join(LABEL_COLUMNS)}); "
            f"header is {_shown(table.header)}{_header_further_down(table)}",
        )
    positions["label"] = label_columns[0]
    positions["label_name"] = " ".join(table.header[label_columns[0]].split())
    for field, synonyms in (*TEXT_COLUMNS.items(), (RECORD_ID_COLUMN, (RECORD_ID_COLUMN,))):
        position = _column_position(path, table, names, field, synonyms)
        if position is not None:
            positions[field] = position
    if "title" not in positions and "abstract" not in positions:
        raise InputError(path, header_line, f"no title or abstract column; header is {_shown(table.header)}")
    return positions


HEADER_FIRST = "the header must come first (delete what is above it)"


def _header_further_down(table: Table, rows: int = 20) -> str:
    """`; line 3 holds the label column 'included': ...` when one of the first rows names a label column (a title
    or a note above the header, read as the header), else ''."""
    unit = "sheet row" if table.unit == "row" else "line"
    for line, cells in table.rows[:rows]:
        found = next((cell.strip() for cell in cells if cell.strip().lower() in LABEL_COLUMNS), None)
        if found is not None and line is not None and table.unit != "record":
            return f"; {unit} {line} holds the label column {found!r}: {HEADER_FIRST}"
    return ""


def _column_position(path: Path, table: Table, names: list[str], field: str, synonyms: Sequence[str]) -> int | None:
    """The position of a field's column: its first synonym found among the normalised header `names` (as ASReview
    chooses); a synonym named twice is refused; None when the file has none."""
    for synonym in synonyms:
        found = [i for i, name in enumerate(names) if name == synonym]
        if len(found) > 1:
            shown = " and ".join(f"{table.header[i]!r} (column {i + 1})" for i in found)
            raise InputError(path, table.header_line, f"two {field} columns: {shown}; keep one")
        if found:
            return found[0]
    return None


def parse_label(path: Path, line: int | None, where: str, column: str, text: str) -> int | None:
    """0 or 1 from a label cell (`1`, `1.0`, `yes`, `y`, `True`, ...); None when empty; anything else is an error
    naming the accepted forms."""
    value = text.strip()
    if not value:
        return None
    if value in LABEL_WORDS:
        return LABEL_WORDS[value]
    if value in LABEL_BOOLEANS:
        return LABEL_BOOLEANS[value]
    if _NUMBER.fullmatch(value):
        number = float(value)
        if number in (0.0, 1.0):
            return int(number)
    if value.startswith("="):  # a CSV holds no formula's value: `=1+0` was `not 0 or 1` like any typo
        raise InputError(
            path,
            line,
            f"{where}: {column} is a formula without a value, not 0 or 1: {value!r} (the file holds the formula, not "
            "its value; save the file from the spreadsheet program with the values, or give the values)",
        )
    ascii_note = "numbers are ASCII digits; " if any(not c.isascii() and c.isdigit() for c in value) else ""
    raise InputError(
        path,
        line,
        f"{where}: {column} is not 0 or 1: {value!r} "
        f"(accepted: {ACCEPTED_LABELS}; {ascii_note}an empty cell means unlabelled)",
    )


# ---- readers: each returns a Table of text cells ----------------------------------------------------------------


def read_delimited(path: Path, fallback: str) -> Table:
    """CSV or TSV: the delimiter sniffed from the header line as ASReview (pandas `sep=None`) does."""
    text = decode_text(path)
    if not text.strip():
        raise InputError(path, None, "empty file")
    first_line = _LINE_BREAK.split(text.lstrip("\r\n"), maxsplit=1)[0]
    try:
        delimiter = csv.Sniffer().sniff(first_line, delimiters=",;\t|").delimiter
    except csv.Error:
        delimiter = fallback
    lines = file_lines(text)
    no_line_ends = no_line_ends_problem(lines)
    if no_line_ends is not None:  # else: `no records (only a header)`, or a column missing from a header run on
        raise InputError(path, *no_line_ends)
    last_line = len(lines)
    reader = csv.reader(lines, delimiter=delimiter)
    rows: list[tuple[int | None, tuple[str, ...]]] = []
    header: tuple[str, ...] | None = None
    header_line = 1
    previous_end = 0
    try:
        for fields in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not fields or not any(field.strip() for field in fields):
                continue
            spans = reader.line_num - start  # more lines the record took: quoted line breaks, or a quote left open
            if header is None:
                if reader.line_num == last_line and _quote_left_open(lines[start - 1 :], delimiter):
                    runs_on = f", so the header runs on over {spans} more line(s) to" if spans else " before"
                    problem = f"an unclosed quote in the header: a quote opened in it is not closed{runs_on} the end"
                    raise InputError(path, start, problem + " of the file")
                header, header_line = tuple(fields), start
                continue
            if reader.line_num == last_line and _quote_left_open(lines[start - 1 :], delimiter):
                runs_on = (
                    f" (the record runs on over {spans} more line(s))" if spans else " (before the end of the file)"
                )
                raise InputError(
                    path,
                    start,
                    f"{len(fields)} fields where the header has {len(header)}: a quote opened here is not closed"
                    + runs_on,
                )
            if len(fields) > len(header):
                label = next((field.strip() for field in fields if field.strip().lower() in LABEL_COLUMNS), None)
                hint = f" (it holds the label column {label!r}: {HEADER_FIRST})" if label is not None else ""
                raise InputError(path, start, f"more fields than the {len(header)} header columns{hint}")
            rows.append((start, tuple(fields)))
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"cannot parse as delimited text: {exc}") from None
    if reader.line_num != last_line:  # the parser's own line count against the file's \r and \n line ends
        raise InputError(path, reader.line_num, f"the CSV parser stopped at line {reader.line_num} of {last_line}")
    if header and _starts_with_bom(path):
        warn_byte_order_mark(path, header[0])
    return Table(header or (), tuple(rows), header_line=header_line)


def file_lines(text: str) -> list[str]:
    """The lines of a text with their ends, split at \\r\\n, \\r and \\n only (never str.splitlines: it also splits
    at Unicode line breaks that pandas, the csv module and ASReview keep inside a field)."""
    return list(io.StringIO(text, newline=""))


def _quote_left_open(lines: list[str], delimiter: str) -> bool:
    """Whether these lines (a record running to the end of the file) end inside a quoted field: the lenient reader
    closes such a field at the end of the file, the strict one refuses it."""
    try:
        list(csv.reader(lines, delimiter=delimiter, strict=True))
    except csv.Error as exc:
        return "unexpected end of data" in str(exc)  # not another strict complaint, such as `"a"b`
    return False


def _starts_with_bom(path: Path) -> bool:
    with open_binary(path) as raw:
        return raw.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8


def warn_byte_order_mark(path: Path, first: str) -> None:
    """Warn, once per reading, that ASReview 3.0.8 reads a file that starts with a UTF-8 byte order mark otherwise:
    tarsim drops the mark, ASReview keeps it in the first column's name (`\\ufefftitle`), so it does not find that
    column. Only when that column is one ASReview reads by name (title, abstract, a label column): else the mark
    changes nothing. Always, whatever the preset: a file is read (and imported) before any preset is chosen, and a
    screening file's default preset is ASReview's."""
    name = first.strip().lower()
    synonyms = {synonym for names in TEXT_COLUMNS.values() for synonym in names}
    if name not in synonyms and name not in LABEL_COLUMNS:
        return
    warnings.warn(
        f"{path}: starts with a UTF-8 byte order mark (BOM): tarsim reads its first column {first.strip()!r}, "
        f"ASReview 3.0.8 keeps the mark in that column's name and reads no {name!r} column, so its reviews of this "
        "file differ from tarsim's (save it as UTF-8 without BOM to compare them)",
        InputWarning,
        stacklevel=3,
    )


def warn_skipped(path: PathLike, skipped: Sequence[LeftOut]) -> None:
    """One warning line with the count of unlabelled records left out (`--unlabelled skip`), naming the first five
    by record_id and line."""
    if skipped:
        shown = ", ".join(str(record) for record in skipped[:5]) + (" ..." if len(skipped) > 5 else "")
        warnings.warn(
            f"{path}: {len(skipped)} unlabelled record(s) left out (--unlabelled skip): {shown}",
            InputWarning,
            stacklevel=3,
        )


def find_screening_files(folder: PathLike) -> list[Path]:
    """Screening files under a folder (recursively, sorted), for converting an archive of review sets."""
    folder = Path(folder)
    suffixes = (*DELIMITED_SUFFIXES, *EXCEL_SUFFIXES, ".ris")  # not .txt: a README is no RIS file
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)


def load_screening_dataset(path: PathLike, *, unlabelled: str = "error") -> Dataset:
    """A screening file as a one-topic Dataset named after its stem; the topic's query text is empty."""
    return screening_dataset(path, unlabelled=unlabelled)[0]


def screening_dataset(path: PathLike, *, unlabelled: str = "error") -> tuple[Dataset, tuple[LeftOut, ...]]:
    """load_screening_dataset's Dataset and the records it left out, as users name them (for a manifest)."""
    screening = read_screening_file(path, unlabelled=unlabelled)
    warn_skipped(path, screening.left_out)
    dataset = Dataset(
        collection=screening.collection,
        qrels=screening.qrels,
        topics={screening.topic: ""},
        name=screening.topic,
        unlabelled_rows=tuple(sorted(screening.skipped)),
    )
    return dataset, screening.left_out
