"""How a sweep file's key is shown in an error and found in the file's text: an empty key, or one holding U+2028 or
a tab, is shown quoted with escapes (it was shown blank), and found where the file writes it escaped."""

from __future__ import annotations

import json
import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SHORT_ESCAPES = {"\b": r"\\b", "\t": r"\\t", "\n": r"\\n", "\f": r"\\f", "\r": r"\\r"}


def shown_key(key: str) -> str:
    """`key` as TOML writes it: bare when it can be (`learner`), else quoted with escapes (`""`, `"a\\u2028b"`)."""
    return key if _BARE.fullmatch(key) else json.dumps(key)


def key_pattern(text: str) -> str:
    """A regular expression for `text` as a TOML file may write it: each control or line-separator character as
    itself or as its escape (`\\u2028`, `\\U00002028`, `\\n`)."""
    parts = []
    for char in text:
        if char.isprintable():
            parts.append(re.escape(char))
            continue
        forms = [re.escape(char), rf"(?i:\\u{ord(char):04x})", rf"(?i:\\U{ord(char):08x})"]
        forms += [_SHORT_ESCAPES[char]] if char in _SHORT_ESCAPES else []
        parts.append(f"(?:{'|'.join(forms)})")
    return "".join(parts)
