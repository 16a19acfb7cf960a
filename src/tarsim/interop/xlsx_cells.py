"""Cells of an .xlsx sheet as tarsim reads them: text, a formula Excel stored no value for, and the numbers too large
to be an exact id, each named at its sheet and row rather than read as an empty or made-up value."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tarsim.errors import InputError
from tarsim.interop.screening_table import LABEL_COLUMNS, RECORD_ID_COLUMN

EXACT = 2**53
"""Integers up to this are exact as a spreadsheet number (a double); past it Excel keeps 15 significant digits."""


@dataclass(frozen=True)
class UncachedFormula:
    """A formula cell without a stored value (`<f>1+0</f><v></v>`, as written by openpyxl or a script): Excel stores
    each formula's value when it saves, pandas and ASReview read such a cell as empty."""

    formula: str


def cell_text(value: object) -> str:
    """An Excel cell as text: integral numbers without `.0` (past 2**53, as Python writes the number: `1e+30`, not
    made-up digits), booleans as 1/0, empty (and a formula without a value) as ''."""
    if value is None or isinstance(value, UncachedFormula):
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < EXACT else repr(value)
    return str(value)


@functools.cache
def sheet_parser() -> type:
    """openpyxl's worksheet parser, marking a formula cell without a stored value (no `<v>`, or an empty one in a
    number cell; openpyxl gives None for it) as an UncachedFormula. A formula whose stored value is the empty string
    (`t="str"`, `<v></v>`, as Excel writes `=IF(x,"",1)`) stays empty."""
    from openpyxl.worksheet._reader import FORMULA_TAG, VALUE_TAG, WorkSheetParser

    class Parser(WorkSheetParser):  # type: ignore[misc]
        def parse_cell(self, element: Any) -> dict:
            cell = super().parse_cell(element)
            if cell["value"] is None and (formula := element.find(FORMULA_TAG)) is not None:
                stored = element.find(VALUE_TAG)
                if stored is None or (not stored.text and element.get("t", "n") != "str"):
                    cell["value"] = UncachedFormula(f"={formula.text or ''}")
            return cell

    return Parser


@dataclass(frozen=True)
class KeyColumns:
    """The columns (from 1) of a sheet's header whose cells must be what they show: labels and record ids."""

    labels: dict[int, str]
    record_id: int | None

    @classmethod
    def of(cls, header: dict[int, object]) -> KeyColumns:
        """The label and record_id columns of a header row ({column: value})."""
        names = {column: cell_text(value).strip() for column, value in header.items()}
        labels = {column: name for column, name in names.items() if name.lower() in LABEL_COLUMNS}
        ids = [column for column, name in names.items() if name.lower() == RECORD_ID_COLUMN]
        return cls(labels, ids[0] if ids else None)

    def check(self, path: Path, sheet: str, number: int, cells: dict[int, object]) -> None:
        """Refuse, at its row, a label cell that is a formula without a stored value (read as no label) or a number
        past 2**53 (named as the file shows it, not in made-up digits), and a record_id that is such a number (pandas
        and ASReview read 1E+30 as 1000000000000000019884624838656, an id the file does not show)."""
        for column, name in self.labels.items():
            value = cells.get(column)
            if isinstance(value, UncachedFormula):
                raise InputError(
                    path,
                    number,
                    f"sheet {sheet!r}, cell {_cell(column, number)}: the {name} label is a formula without a cached "
                    f"value ({value.formula!r}); save the file in Excel (which stores each formula's value) or give "
                    "the values",
                )
            if _huge(value):
                shown = repr(value) if isinstance(value, float) else format(value, ".6g")  # not 4,000 digits
                problem = f"the {name} label is the number {shown}, not 0 or 1"
                raise InputError(path, number, f"sheet {sheet!r}, cell {_cell(column, number)}: {problem}")
        if self.record_id is None:
            return
        value = cells.get(self.record_id)
        if isinstance(value, float) and _huge(value):  # an exact int (written by a script) reads as its digits
            raise InputError(
                path,
                number,
                f"sheet {sheet!r}, cell {_cell(self.record_id, number)}: record_id is the number {value!r}, too large "
                "to be an exact id (a spreadsheet number keeps 15 significant digits); store record ids as text",
            )


def _huge(value: object) -> bool:
    """A number past 2**53 (exact integers from XML written by a script too) or not finite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not math.isfinite(value) or abs(value) >= EXACT


def _cell(column: int, row: int) -> str:
    """`C2`: a cell as Excel names it."""
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(column)}{row}"
