"""Which keys of a ledger header differ from the header a run would write: named in the one-line refusals of an
output folder that holds another run's ledgers (`tarsim simulate --out`, `tarsim sweep --out`), so the user sees
what changed (`config.prior_seed is 1 there, 2 here`) instead of guessing.
"""

from __future__ import annotations

import json
from typing import Any

from tarsim.config.review import normalise_header

UNCOMPARED = ("type", "format", "tarsim")
"""Header keys that do not make a ledger another run: its record type and format, and the tarsim version (a run of
the same configuration under a newer tarsim is the same run written again; --resume reruns it)."""

ABSENT = "<absent>"
"""A header key one of the two headers does not have."""

DERIVED = ("seed", "config.seed", "relevant", "collection_size")
"""Header keys that follow from others (base seed, collection, qrels): named after the key that caused them."""


def flat(record: dict, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted keys (config.until, sweep.base_seed)."""
    flattened: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict) and value:
            flattened.update(flat(value, f"{prefix}{key}."))
        else:
            flattened[f"{prefix}{key}"] = value
    return flattened


def header_differences(recorded: dict, expected: dict) -> list[tuple[str, Any, Any]]:
    """(key, value in the ledger, value of this run) for every header key that differs, the tarsim version aside;
    keys derived from others last."""
    old, new = comparable(recorded), comparable(expected)
    keys = sorted(set(old) | set(new), key=lambda k: (k in DERIVED, k))
    return [(k, old.get(k, ABSENT), new.get(k, ABSENT)) for k in keys if old.get(k, ABSENT) != new.get(k, ABSENT)]


def comparable(header: dict) -> dict[str, Any]:
    """A header as JSON would read it back (tuples as lists), normalised (fields older ledgers predate), flat."""
    kept = {key: value for key, value in header.items() if key not in UNCOMPARED}
    if isinstance(kept.get("config", {}), dict):  # else a damaged header: compared as it is
        kept = normalise_header(kept)
    return flat(json.loads(json.dumps(kept)))


def describe(key: str, old: Any, new: Any, here: str = "here") -> str:
    """One difference in words: `config.until is 'exhausted' there, 'all-relevant' here`."""
    return f"{key} is {shown(old)} there, {shown(new)} {here}"


def describe_first(differences: list[tuple[str, Any, Any]], here: str = "here") -> str:
    """The first difference in words, and the keys of up to three more (`; also config.seed, seed`)."""
    what = describe(*differences[0], here=here)
    if len(differences) > 1:
        what += "; also " + ", ".join(key for key, _, _ in differences[1:4]) + (", ..." if len(differences) > 4 else "")
    return what


def shown(value: Any) -> str:
    """A header value as the message shows it: repr, except ABSENT."""
    return value if value is ABSENT else repr(value)
