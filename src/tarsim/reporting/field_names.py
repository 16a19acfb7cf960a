"""The one-line refusal of --group-by fields no run has, shared by compare, metrics, stop and plot: the unknown
names, the closest known one, and the useful known fields first (a ledger has some fifty)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from tarsim.errors import ConfigError

SHOWN_FIELDS = 10
"""How many known fields the message lists before `...`."""


def unknown_fields(unknown: Sequence[str], known: Iterable[str], first: Sequence[str] = ()) -> ConfigError:
    """`--group-by field(s) colection unknown (did you mean collection?); known: ...`: `first` (the fields that differ
    between the runs, collection, topic) lead the list, the rest follow alphabetically, SHOWN_FIELDS at most."""
    known = set(known)
    ordered = [
        field for field in dict.fromkeys([*first, "collection", "topic", "preset", *sorted(known)]) if field in known
    ]
    close = [match for name in unknown for match in difflib.get_close_matches(name, ordered, n=1)]
    hint = f" (did you mean {', '.join(dict.fromkeys(close))}?)" if close else ""
    more = len(ordered) - SHOWN_FIELDS
    listed = ", ".join(ordered[:SHOWN_FIELDS]) + (f", ... ({more} more)" if more > 0 else "")
    return ConfigError(f"--group-by field(s) {', '.join(unknown)} unknown{hint}; known: {listed}")
