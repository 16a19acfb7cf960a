"""The lines of a figure (`tarsim plot --group-by`, the HTML report's `--group-by`): the groups `tarsim compare`
makes, and the dataset fields it accepts too (`collection`, `topic`: study_tables.split_fields), which here name
lines instead of splitting tables. A field no ledger has is refused in one short line that lists the useful fields
first (those whose values differ between the runs), not every internal name of the ledger header.
"""

from __future__ import annotations

from collections.abc import Sequence

from tarsim.data.ledger import Ledger
from tarsim.reporting.compare import _flat_config, group_ledgers, grouping_keys, header_fields
from tarsim.reporting.field_names import unknown_fields
from tarsim.reporting.study_tables import STRATA, field_values, split_fields


def check_fields(ledgers: Sequence[Ledger], fields: Sequence[str]) -> None:
    """Refuse grouping fields that no ledger has: one line naming them, the closest known one and the first useful
    fields (those that differ between the runs, then collection and topic, then the rest alphabetically)."""
    known: set[str] = set(STRATA)
    for ledger in ledgers:
        known |= set(_flat_config(ledger)) | set(header_fields(ledger))
    unknown = [field for field in fields if field not in known]
    if not unknown:
        return
    raise unknown_fields(unknown, known, [*grouping_keys(ledgers), *STRATA, "preset", "tool"])


def line_groups(ledgers: Sequence[Ledger], group_by: Sequence[str] | None = None) -> dict[str, list[Ledger]]:
    """Ledgers by line label, in first-seen order: `group_by` fields as `tarsim compare` takes them (config and
    header fields through reporting.compare.group_ledgers; `collection` and `topic` as study_tables names them,
    `collection=NAME`, first in the label so that the colour follows the dataset); default: the fields that
    differ."""
    strata, fields = split_fields(",".join(group_by or ()))
    check_fields(ledgers, [*strata, *fields])
    if not strata:
        return group_ledgers(ledgers, fields or None)
    base = group_ledgers(ledgers, fields) if fields else {"": list(ledgers)}
    members = [(name, ledger) for name, runs in base.items() for ledger in runs]
    values = field_values([ledger for _, ledger in members], strata)
    lines: dict[str, list[Ledger]] = {}
    for (name, ledger), stratum in zip(members, values, strict=True):
        parts = [f"{field}={value}" for field, value in zip(strata, stratum, strict=True)]
        lines.setdefault(", ".join([*parts, *([name] if name else [])]), []).append(ledger)
    return lines
