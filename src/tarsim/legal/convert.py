"""Turn a benchmark's published files into tarsim's benchmark directories (and load either form)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from tarsim.data.limits import open_regular
from tarsim.data.lines import PathLike
from tarsim.datasets import load_dataset
from tarsim.datasets.converters import COLLECTIONS, convert_collection
from tarsim.errors import ConfigError, InputError
from tarsim.interop.archives import ARCHIVE_ERRORS, open_zip
from tarsim.legal.bbsard import LANGUAGES as BBSARD_LANGUAGES
from tarsim.legal.bbsard import load_bbsard
from tarsim.legal.benchmark import Benchmark, load_benchmark, save_benchmark
from tarsim.legal.pd import load_pd
from tarsim.legal.regir import load_regir
from tarsim.legal.reuters import build_reuters_doc2doc

BENCHMARKS = ("eu2uk", "uk2eu", "bbsard", "pd", "reuters-doc2doc")


def _regir_root(source: Path, extract_to: Path) -> Path:
    """The folder holding train.jsonl: `source` itself, its only subfolder, or an extracted zip."""
    if source.is_file() and source.suffix == ".zip":
        with open_regular(source) as handle, open_zip(source, handle) as archive:  # within the decompression cap
            try:
                archive.extractall(extract_to)
            except ARCHIVE_ERRORS as exc:
                raise InputError(source, None, f"damaged zip archive: {' '.join(str(exc).split())}") from None
        source = extract_to
    if source.is_dir() and not (source / "train.jsonl").exists():
        subdirs = [p for p in source.iterdir() if p.is_dir() and (p / "train.jsonl").exists()]
        if len(subdirs) == 1:
            return subdirs[0]
    return source


def load_published(name: str, source: PathLike, *, seed: int = 0) -> list[Benchmark]:
    """Load a benchmark from its published files (bBSARD gives one benchmark per language)."""
    source = Path(source)
    if not source.exists():
        raise InputError(source, None, "no such file or directory")
    if name in ("eu2uk", "uk2eu"):
        if source.is_dir() and not (source / "train.jsonl").exists() and (source / f"{name}.zip").exists():
            source = source / f"{name}.zip"
        with tempfile.TemporaryDirectory() as tmp:
            return [load_regir(_regir_root(source, Path(tmp)), name)]
    if name == "bbsard":
        return [load_bbsard(source, language) for language in BBSARD_LANGUAGES]
    if name == "pd":
        return [load_pd(source)]
    if name == "reuters-doc2doc":
        return [build_reuters_doc2doc(load_dataset(source), seed=seed)]
    raise ConfigError(f"no converter for {name!r}; converters exist for {', '.join(BENCHMARKS)}")


def load_any(name: str, source: PathLike, *, seed: int = 0) -> list[Benchmark]:
    """Load converted benchmark directories when `source` holds them, else the published files."""
    source = Path(source)
    if (source / "benchmark.json").exists():
        return [load_benchmark(source)]
    converted = [source / lang for lang in BBSARD_LANGUAGES] if name == "bbsard" else []
    if converted and all((d / "benchmark.json").exists() for d in converted):
        return [load_benchmark(d) for d in converted]
    return load_published(name, source, seed=seed)


def convert(
    name: str, source: PathLike, destination: PathLike, *, seed: int = 0, report: Callable[[str], None] | None = None
) -> list[Path]:
    """Convert published files to benchmark directories under `destination` (bBSARD: one per language).

    The review collections (COLLECTIONS: reuters21578, 20newsgroups, srd) become collection directories.
    """
    if name in COLLECTIONS:
        return convert_collection(name, source, destination, report)
    benchmarks = load_published(name, source, seed=seed)
    written = []
    for benchmark in benchmarks:
        target = Path(destination) / benchmark.language if name == "bbsard" else Path(destination)
        written.append(save_benchmark(benchmark, target))
        if report:
            report(
                f"{benchmark.name}: {len(benchmark.collection)} documents, {len(benchmark.topics)} queries "
                f"({', '.join(f'{s} {len(t)}' for s, t in benchmark.splits.items())}) -> {target}"
            )
    return written
