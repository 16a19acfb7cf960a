"""Tables and figures computed from ledgers."""

from tarsim.reporting.tables import (
    DEFAULT_EFFORT_MODELS,
    format_recall_table,
    recall_at_effort_frame,
    summary_frame,
    write_simulation_reports,
)

__all__ = [
    "DEFAULT_EFFORT_MODELS",
    "format_recall_table",
    "recall_at_effort_frame",
    "summary_frame",
    "write_simulation_reports",
]
