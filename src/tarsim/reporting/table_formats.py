"""Tables written the way a paper or a notebook takes them: aligned text, Markdown (pipe tables), LaTeX (booktabs
tabular), CSV and JSON, from one list of rows, so that every grouped table of `compare` and `metrics` reads alike.

The text formats (table, markdown, latex) show cells already formatted (`mean ± sd [low, high]`); CSV and JSON carry
the numbers themselves (tidy: one row per group and measure), NaN and infinities as empty cells and null.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

TEXT_FORMATS = ("table", "markdown", "latex")
FORMATS = (*TEXT_FORMATS, "csv", "json")

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
}


def number(value: object, digits: int) -> str:
    """A number with `digits` decimals (`-` for a missing value, NaN included)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{float(value):.{digits}f}"


def p_value(value: object) -> str:
    """A p-value in 3 significant digits, `<0.001` below that (`-` when there is none)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return "<0.001" if float(value) < 0.001 else f"{float(value):.3f}"


def digits_for(values: Sequence[float | None]) -> int:
    """3 decimals for measures that are shares (every value within [-1, 1]: recall, WSS, RRF, ERF), else 1 (counts
    and efforts: a mean of 1779.667 documents reads 1779.7)."""
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    return 3 if all(v <= 1 for v in finite) else 1


def mean_cell(mean: float | None, sd: float | None, low: float | None, high: float | None, digits: int) -> str:
    """`mean ± sd [low, high]`; one run: its value alone (no spread, no interval)."""
    if mean is None or not math.isfinite(mean):
        return "-"
    cell = number(mean, digits)
    if sd is not None and math.isfinite(sd):
        cell += f" ± {number(sd, digits)}"
        if low is not None and high is not None and math.isfinite(low):
            cell += f" [{number(low, digits)}, {number(high, digits)}]"
    return cell


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(character, character) for character in str(text))


def render(header: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, numeric_from: int = 0) -> str:
    """Formatted cells as `fmt` (table, markdown or latex); columns from `numeric_from` on are right-aligned."""
    cells = [[str(cell) for cell in row] for row in rows]
    if fmt == "markdown":
        rule = ["---:" if i >= numeric_from else "---" for i in range(len(header))]
        lines = [header, rule, *cells]
        return "\n".join("| " + " | ".join(cell.replace("|", r"\|") for cell in line) + " |" for line in lines)
    if fmt == "latex":
        spec = "".join("r" if i >= numeric_from else "l" for i in range(len(header)))
        body = [" & ".join(latex_escape(cell) for cell in line) + r" \\" for line in cells]
        head = " & ".join(latex_escape(cell) for cell in header) + r" \\"
        return "\n".join([rf"\begin{{tabular}}{{{spec}}}", r"\toprule", head, r"\midrule", *body, r"\bottomrule",
                          r"\end{tabular}"])  # fmt: skip
    table = [list(header), *cells]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            c.rjust(w) if i >= numeric_from else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in table
    )


def caption(text: str, fmt: str) -> str:
    """A table's caption line in `fmt`: a LaTeX comment, Markdown emphasis, or plain text."""
    if fmt == "latex":
        return "% " + text
    if fmt == "markdown":
        return f"*{text}*"
    return text


def tidy_text(rows: Sequence[Mapping], fmt: str) -> str:
    """Tidy rows as CSV or JSON (a list of objects; NaN and infinities as null, numpy numbers as Python's)."""
    import pandas as pd

    if fmt == "csv":
        frame = pd.DataFrame(list(rows))
        for column in frame.columns:  # counts with gaps (a baseline's pairs) stay integers: 3, not 3.0
            given = [row.get(column) for row in rows if row.get(column) is not None]
            if given and all(isinstance(value, int) and not isinstance(value, bool) for value in given):
                frame[column] = frame[column].astype("Int64")
        return frame.to_csv(index=False, lineterminator="\n")

    def clean(value):
        if hasattr(value, "item"):  # numpy scalars
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    return json.dumps([{k: clean(v) for k, v in row.items()} for row in rows], indent=2) + "\n"
