"""Writing the append-only JSONL ledger (format: tarsim.data.ledger), flushed once per training round."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tarsim.data.ledger import LEDGER_FORMAT, encode, partial_path
from tarsim.data.lines import PathLike


class LedgerWriter:
    """Streams ledger records to disk; `finish` renames the complete ledger into place."""

    def __init__(self, path: PathLike, header: dict) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._partial = partial_path(self.path)
        self._handle = open(self._partial, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 - open for the review
        self._pending: list[str] = []
        self.lines: list[str] = []
        self.write({"type": "header", "format": LEDGER_FORMAT, **header})
        self.flush()

    def write(self, record: dict) -> None:
        line = encode(record)
        self._pending.append(line)
        self.lines.append(line)

    def flush(self) -> None:
        """Write what is pending (called once per training round)."""
        if self._pending:
            self._handle.write("\n".join(self._pending) + "\n")
            self._pending.clear()
            self._handle.flush()

    def finish(self, end: dict) -> None:
        """Write the end record, sync, and rename the ledger into place."""
        self.write({"type": "end", **end})
        self.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        os.replace(self._partial, self.path)

    def abort(self) -> None:
        """Drop an unfinished ledger (an interrupted review leaves no partial file behind)."""
        self._handle.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._partial)


class MemoryLedgerWriter(LedgerWriter):
    """A ledger kept in memory only (for the Python API without an output directory)."""

    def __init__(self, header: dict) -> None:
        self.path = Path("<memory>")
        self._pending = []
        self.lines = []
        self.write({"type": "header", "format": LEDGER_FORMAT, **header})

    def flush(self) -> None:
        self._pending.clear()

    def finish(self, end: dict) -> None:
        self.write({"type": "end", **end})

    def abort(self) -> None:
        self._pending.clear()
