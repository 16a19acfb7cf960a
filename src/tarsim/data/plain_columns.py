"""Whitespace-separated files (runs, qrels) read as columns at C speed when their layout is plain.

A file is plain when it is ASCII, its fields are separated by single spaces (or single tabs, one kind per file)
and its lines by "\\n" alone. On such a file pyarrow's CSV reader splits exactly as `str.split()` does, so the
columns equal what the line readers take; any other file (gzip, CRLF, a BOM, blank lines, runs of white space,
a wrong column count, a value pyarrow refuses) gives None and goes through the line reader, which accepts the
same files and names the first bad line.
"""

from __future__ import annotations

from pathlib import Path

from tarsim.data.limits import open_regular
from tarsim.data.lines import PathLike
from tarsim.errors import InputError

_BLOCK = 1 << 24
"""Bytes checked at a time, so that the temporary masks stay small however large the file."""


def plain_layout(data: bytes) -> tuple[bytes, int, int] | None:
    """The separator (b" " or b"\\t") of a file that may be plain, its bytes up to " " and its "\\n"s, or None.

    str.split() also splits at "\\r", "\\v", "\\f", "\\x1c"-"\\x1f" and non-ASCII spaces, and merges runs of
    white space; a one-separator CSV reader does neither, so every such file (and a BOM, a blank line, a
    separator at a line's start or end, spaces and tabs mixed) is refused here or by the count check of
    read_plain_columns (bytes up to " " = separators + "\\n"s: no other control character).
    """
    import numpy as np

    if not data or not data.isascii():
        return None
    separator = b"\t" if b"\t" in data else b" "
    if separator == b"\t" and b" " in data:
        return None  # both kinds of separator
    if data[:1] in (separator, b"\n") or data[-1:] == separator:
        return None
    codes = np.frombuffer(data, dtype=np.uint8)
    white = newlines = 0
    for start in range(0, len(codes), _BLOCK):
        block = codes[start : start + _BLOCK + 1]  # one byte of overlap: a pair across blocks is seen
        split = block <= 0x20
        if (split[1:] & split[:-1]).any():
            return None  # two in a row: an empty field, a blank line, a separator at a line's end, "\r\n"
        white += int(np.count_nonzero(split[:_BLOCK]))
        newlines += int(np.count_nonzero(block[:_BLOCK] == 0x0A))
    return separator, white, newlines


def read_plain_columns(path: PathLike, names: list[str], types: dict):
    """The columns `types` (name -> pyarrow type) of a plain file whose lines have exactly len(names) fields.

    None when the file is not plain, cannot be read here, has no line, or pyarrow refuses a value: the caller
    then reads it with its line reader (which reports unreadable files and bad lines in one line).
    """
    if Path(path).suffix == ".gz":
        return None
    try:
        with open_regular(path) as handle:  # a FIFO or a device is refused (not waited on) by the line reader
            data = handle.read()
    except (OSError, InputError):
        return None
    layout = plain_layout(data)
    if layout is None:
        return None
    separator, white, newlines = layout
    import pyarrow as pa
    from pyarrow import csv

    try:
        table = csv.read_csv(
            pa.py_buffer(data),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(
                delimiter=separator.decode(), quote_char=False, escape_char=False, double_quote=False
            ),
            convert_options=csv.ConvertOptions(
                include_columns=list(types),
                column_types=types,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if table.num_rows == 0 or any(column.null_count for column in table.columns):
        return None
    if white != (len(names) - 1) * table.num_rows + newlines:
        return None  # some other control character ("\r" alone, "\v", ...): str.split() would split there
    return table


def group_rows(codes, n_groups: int):
    """(order, starts, in_place) for rows labelled with group codes 0..n_groups-1 numbered by first appearance
    (pyarrow's dictionary encoding): the rows of group g are order[starts[g]:starts[g + 1]], in file order.

    When each group's rows are together (how runs and qrels are written) `order` is the identity and `in_place`
    True: no sort, and a group's rows are one slice of the columns as read.
    """
    import numpy as np

    codes = np.asarray(codes, dtype=np.int64)
    bounds = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1, len(codes)] if len(codes) else np.zeros(1, int)
    if np.array_equal(codes[bounds[:-1]], np.arange(n_groups)):
        return np.arange(len(codes)), bounds, True
    order = np.argsort(codes, kind="stable")
    return order, np.searchsorted(codes[order], np.arange(n_groups + 1)), False
