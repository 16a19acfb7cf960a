"""`load_dataset`: any review input by what it is: a collection directory, a screening file (CSV/TSV/XLSX/RIS,
one topic), or explicit docs/qrels/topics files."""

from __future__ import annotations

from pathlib import Path

from tarsim.data.dataset import Dataset, load_collection_directory
from tarsim.data.lines import PathLike


def load_dataset(
    directory: PathLike | None = None,
    *,
    docs: PathLike | None = None,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
    unlabelled: str = "error",
) -> Dataset:
    """Load a collection directory, a screening file (CSV/TSV/XLSX/RIS), or explicit docs/qrels/topics files.

    Explicit files win over a directory; `unlabelled` ("error" or "skip") applies to screening files.
    """
    if directory is not None and docs is None and qrels is None and topics is None and not Path(directory).is_dir():
        from tarsim.interop.screening import SCREENING_SUFFIXES, load_screening_dataset  # pandas: only when needed

        if Path(directory).is_file() or Path(directory).suffix.lower() in SCREENING_SUFFIXES:
            return load_screening_dataset(directory, unlabelled=unlabelled)
    return load_collection_directory(directory, docs=docs, qrels=qrels, topics=topics)
