"""Line breaks that are no line end: U+0085, U+2028, `\\x0b` and the other characters str.splitlines breaks at while
CSV readers, rispy and ASReview read them as characters inside a line (they end lines only at \\r and \\n).

Named in messages (`U+2028 (line separator)`), so that a file whose only line ends are such characters, or a RIS tag
hidden after one, is refused for what it is rather than for the columns or records it seems to lack.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_NAMES = {
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x1c": "file separator",
    "\x1d": "group separator",
    "\x1e": "record separator",
    "\x85": "next line, NEL",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
}
UNICODE_BREAK = re.compile("[" + "".join(_NAMES) + "]")
"""One of the characters str.splitlines breaks at besides \\r and \\n."""
ONLY_LINE_ENDS = "lines end only at \\r or \\n"


def character_name(char: str) -> str:
    """`U+2028 (line separator)`, `U+0009 (a control character)`: a character as a message names it."""
    name = _NAMES.get(char) or unicodedata.name(char, "a control character").lower()
    return f"U+{ord(char):04X} ({name})"


def no_line_ends_problem(lines: Sequence[str]) -> tuple[int, str] | None:
    """(line, problem) when a text's lines (split at \\r and \\n) hold one line of content and it holds a Unicode line
    break: the file's line ends are such characters, which no CSV reader, rispy or ASReview ends a line at; else
    None."""
    content = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if len(content) != 1:
        return None
    number, line = content[0]
    found = UNICODE_BREAK.search(line)
    if found is None:
        return None
    ends = len(lines) > 1 or any(line.endswith(("\r", "\n")) for line in lines)  # lines split or kept with ends
    where = "the file's only line of text holds" if ends else "the file has no \\r or \\n line ends but holds"
    problem = (
        f"{where} {character_name(found.group())} at column {found.start() + 1}: {ONLY_LINE_ENDS}, as "
        "ASReview reads the file; save it with \\n or \\r\\n line ends"
    )
    return number, problem
