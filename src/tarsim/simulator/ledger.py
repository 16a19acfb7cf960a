"""Writing the append-only JSONL ledger (format: tarsim.data.ledger): to disk, flushed once per training round,
or to memory for the Python API without an output directory. Both writers put the SHA-256 of the body lines (every
line between header and end) in the end record's `body_sha256`, so a reader can tell an edited ledger; the digest
depends only on the lines, so the same review still gives the same bytes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tarsim.data.ledger import (
    BODY_DIGEST,
    HEADER_DIGEST,
    LEDGER_FORMAT,
    BodyDigest,
    encode,
    encode_judgment,
    partial_path,
)
from tarsim.data.lines import PathLike


class LedgerWriter:
    """Streams ledger records to a hidden partial file of its own (unique name: pid and random suffix);
    `finish` renames the complete ledger into place atomically."""

    def __init__(self, path: PathLike, header: dict) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._partial = partial_path(self.path)
        self._handle = open(self._partial, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 - open for the review
        self._pending: list[str] = []
        self._body = BodyDigest()
        line = encode({"type": "header", "format": LEDGER_FORMAT, **header})
        self._header = BodyDigest()
        self._header.add(line)
        self._handle.write(line + "\n")
        self._handle.flush()

    def write(self, record: dict) -> None:
        """Queue one record; it reaches the disk at the next flush."""
        self._pending.append(encode(record))

    def write_judgment(self, record: dict) -> None:
        """Queue one judgment record made by the simulator (the same line as `write`, encoded faster)."""
        self._pending.append(encode_judgment(record))

    def flush(self) -> None:
        """Write what is pending (called once per training round)."""
        if self._pending:
            text = "\n".join(self._pending) + "\n"
            self._handle.write(text)
            self._body.add_text(text)
            self._pending.clear()
            self._handle.flush()

    def finish(self, end: dict) -> None:
        """Write the end record (with the body's digest), sync, and rename the ledger into place."""
        self.flush()
        digests = {BODY_DIGEST: self._body.hexdigest(), HEADER_DIGEST: self._header.hexdigest()}
        self._handle.write(encode({"type": "end", **end, **digests}) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        os.replace(self._partial, self.path)

    def abort(self) -> None:
        """Drop an unfinished ledger (an interrupted review leaves no partial file behind)."""
        self._handle.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._partial)


class MemoryLedgerWriter:
    """The same records as LedgerWriter, kept as lines in memory."""

    def __init__(self, header: dict) -> None:
        self.lines: list[str] = []
        self.write({"type": "header", "format": LEDGER_FORMAT, **header})

    def write(self, record: dict) -> None:
        self.lines.append(encode(record))

    def write_judgment(self, record: dict) -> None:
        """One judgment record made by the simulator (the same line as `write`, encoded faster)."""
        self.lines.append(encode_judgment(record))

    def flush(self) -> None:
        """Nothing to do: every line is already in memory."""

    def finish(self, end: dict) -> None:
        """The end record, with the digest of every line after the header (as LedgerWriter writes it)."""
        body, header = BodyDigest(), BodyDigest()
        header.add(self.lines[0])
        for line in self.lines[1:]:
            body.add(line)
        self.write({"type": "end", **end, BODY_DIGEST: body.hexdigest(), HEADER_DIGEST: header.hexdigest()})

    def abort(self) -> None:
        self.lines.clear()
