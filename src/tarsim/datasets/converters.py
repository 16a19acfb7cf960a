"""`tarsim data convert` for review collections: Reuters-21578 SGML, 20 Newsgroups, screening-set archives, TREC
files (SGML or one document per file, with TREC qrels and topics), CLEF TAR topics with qrels and texts."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from tarsim.data.dataset import Dataset
from tarsim.data.export import write_dataset_directory
from tarsim.data.limits import open_regular
from tarsim.data.lines import PathLike
from tarsim.datasets.clef_tar import convert_clef_tar
from tarsim.errors import ConfigError, InputError
from tarsim.interop.archives import ARCHIVE_ERRORS, open_zip
from tarsim.interop.newsgroups import read_20newsgroups
from tarsim.interop.reuters_sgml import read_reuters_sgml
from tarsim.interop.screening import MissingLabelColumn, find_screening_files, load_screening_dataset
from tarsim.interop.source_paths import missing_source
from tarsim.interop.trec import read_trec_dataset

COLLECTIONS = ("reuters21578", "20newsgroups", "srd", "trec", "clef-tar")
"""Registry names whose published files convert to collection directories."""


def describe(dataset: Dataset) -> str:
    """`N documents, T topics, P relevant pairs` for one report line."""
    pairs = sum(1 for judged in dataset.qrels.values() for grade in judged.values() if grade > 0)
    counts = ((len(dataset.collection), "document"), (len(dataset.qrels), "topic"), (pairs, "relevant pair"))
    return ", ".join(f"{n} {noun}{'' if n == 1 else 's'}" for n, noun in counts)


def record_counts(dataset: Dataset) -> tuple[int, int]:
    """(records read, records kept) of a dataset read from files: kept are its documents; read adds the rows of a
    screening file left out unlabelled."""
    kept = len(dataset.collection)
    return kept + len(dataset.unlabelled_rows), kept


def screening_archive(source: PathLike, report: Callable[[str], None] | None = None) -> list[Dataset]:
    """One dataset per screening file in a folder or zip; files without a label column are reported, skipped."""
    source = Path(source)
    with tempfile.TemporaryDirectory() as tmp:
        if source.is_file():
            not_zip = "not a zip archive or folder of screening files"
            with open_regular(source) as handle, open_zip(source, handle, not_zip) as archive:
                try:  # within the decompression cap, every member readable (tarsim.interop.archives)
                    archive.extractall(tmp)
                except ARCHIVE_ERRORS as exc:
                    raise InputError(source, None, f"damaged zip archive: {' '.join(str(exc).split())}") from None
            folder = Path(tmp)
        else:
            folder = source
        datasets: dict[str, tuple[Path, Dataset]] = {}
        for path in find_screening_files(folder):
            try:
                dataset = load_screening_dataset(path)
            except MissingLabelColumn:
                if report:
                    report(f"{path.relative_to(folder)}: skipped (no label column)")
                continue
            if dataset.name in datasets:
                first = datasets[dataset.name][0].relative_to(folder)
                raise InputError(path, None, f"a second screening set named {dataset.name!r} (first: {first})")
            datasets[dataset.name] = (path, dataset)
    if not datasets:
        raise InputError(source, None, "no labelled screening file (.csv .tsv .tab .xlsx .ris)")
    return [dataset for _path, dataset in datasets.values()]


def convert_collection(
    name: str,
    source: PathLike,
    destination: PathLike,
    report: Callable[[str], None] | None = None,
    *,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
    texts: Sequence[PathLike] = (),
    level: str = "abstract",
    topic_ids: Sequence[str] = (),
) -> list[Path]:
    """Write DESTINATION (reuters21578, 20newsgroups, trec) or DESTINATION/<set> per screening set (srd) or per
    topic (clef-tar).

    `trec` needs `qrels` (TREC qrels) and `topics` (a TREC topic file): tarsim.interop.trec. `clef-tar` needs
    `texts` and takes `qrels`, `level` and `topic_ids`: tarsim.datasets.clef_tar.
    """
    source, destination = Path(source), Path(destination)
    if not source.exists():
        raise missing_source(source)
    if name == "clef-tar":
        return convert_clef_tar(
            source, destination, texts=texts, qrels=qrels, level=level, topic_ids=topic_ids, report=report
        )
    if name == "trec":
        if qrels is None or topics is None:
            raise ConfigError("convert trec needs --qrels FILE and --topics FILE (TREC qrels and topic files)")
        targets = [(read_trec_dataset(source, qrels, topics, name=destination.name), destination)]
    elif name == "reuters21578":
        targets = [(read_reuters_sgml(source), destination)]
    elif name == "20newsgroups":
        targets = [(read_20newsgroups(source), destination)]
    else:
        targets = [(dataset, destination / dataset.name) for dataset in screening_archive(source, report)]
    written = []
    for dataset, target in targets:
        written.append(write_dataset_directory(dataset, target))
        if report:
            read, kept = record_counts(dataset)
            counts = f"{read} record{'' if read == 1 else 's'} read, {kept} kept"
            report(f"{dataset.name}: {counts}; {describe(dataset)} -> {target}")
    return written
