"""The datasets tarsim knows: where they are published, their size, licence and checksum; fetched with pooch.

A checksum is listed only where a published source records it (see docs/legal.md); None means unknown,
and `fetch` then prints the SHA-256 of what it downloaded instead of verifying it.
Downloads are cached under platformdirs' user data directory, or under $TARSIM_DATA_DIR when set.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tarsim.errors import ConfigError, TarsimError

ENV_DATA_DIR = "TARSIM_DATA_DIR"


@dataclass(frozen=True)
class RemoteFile:
    """One published file: address, name in the dataset folder, SHA-256 (None: unknown) and size in bytes."""

    url: str
    filename: str
    sha256: str | None = None
    size: int | None = None
    size_note: str = ""


@dataclass(frozen=True)
class Entry:
    """A dataset in the registry; `files` is empty when no download address is known."""

    name: str
    description: str
    homepage: str
    licence: str
    files: tuple[RemoteFile, ...] = ()
    notes: str = ""


_HF_BBSARD = "https://huggingface.co/datasets/clips/bBSARD/resolve/main"
_BBSARD_SIZES = {
    ("fr", "corpus"): "about 23.1 MB",
    ("fr", "train"): "about 188 kB",
    ("fr", "test"): "about 46.1 kB",
    ("nl", "corpus"): "about 23.8 MB",
    ("nl", "train"): "about 187 kB",
    ("nl", "test"): "about 45.8 kB",
}

REGISTRY: dict[str, Entry] = {
    entry.name: entry
    for entry in (
        Entry(
            "eu2uk",
            "EU2UK: EU directives as queries against 52,515 UK regulations (Chalkidis et al., EACL 2021)",
            "https://archive.org/details/eacl2021_regir_datasets",
            "CC BY-NC-SA 4.0 per the Hugging Face card (its loading script says CC BY-SA); EUR-Lex and "
            "legislation.gov.uk reuse terms apply to the texts",
            (
                RemoteFile(
                    "https://archive.org/download/eacl2021_regir_datasets/eu2uk.zip",
                    "eu2uk.zip",
                    "8afc26fbd3559aa800ce0adb3c35c0e4c2c99b93529bc20d5f32ce44f55ba286",
                    119685577,
                ),
            ),
        ),
        Entry(
            "uk2eu",
            "UK2EU: UK regulations as queries against 3,930 EU directives (Chalkidis et al., EACL 2021)",
            "https://archive.org/details/eacl2021_regir_datasets",
            "CC BY-NC-SA 4.0 per the Hugging Face card (its loading script says CC BY-SA); EUR-Lex and "
            "legislation.gov.uk reuse terms apply to the texts",
            (
                RemoteFile(
                    "https://archive.org/download/eacl2021_regir_datasets/uk2eu.zip",
                    "uk2eu.zip",
                    "767d4edc0c5210b80ccf24c31a6d28a62b64edffc69810f7027d34b0e1401194",
                    31835104,
                ),
            ),
        ),
        Entry(
            "bbsard",
            "bBSARD: 22,417 Belgian statutory articles and 1,108 questions in French and Dutch (Lotfi et al. 2024)",
            "https://huggingface.co/datasets/clips/bBSARD",
            "CC BY-NC-SA 4.0",
            tuple(
                RemoteFile(
                    f"{_HF_BBSARD}/{lang}/{part}.csv", f"{lang}/{part}.csv", size_note=_BBSARD_SIZES[(lang, part)]
                )
                for lang in ("fr", "nl")
                for part in ("corpus", "train", "test")
            ),
            notes="checksums unknown (not published); sizes as listed on the dataset page",
        ),
        Entry(
            "pd",
            "PD: 170 public-defender queries against appellate-brief paragraphs (Stammbach et al. 2026)",
            "https://arxiv.org/abs/2601.14348",
            "unknown (the paper is CC BY 4.0; the data release's licence could not be confirmed)",
            notes=(
                "released on GitHub (conference-on-datascience-and-law/anonymized-public-defender-retrieval, data/): "
                "place queries_and_targets.csv with corpus_1.zip and corpus_2.zip (or the corpus.jsonl they unzip "
                "to) in one folder by hand; see docs/legal.md"
            ),
        ),
        Entry(
            "reuters21578",
            "Reuters-21578 Distribution 1.0: 21,578 newswire stories, 120 categories (SGML)",
            "https://archive.ics.uci.edu/dataset/137/reuters+21578+text+categorization+collection",
            "free for research use, per the distribution's README",
            (
                RemoteFile(
                    "https://archive.ics.uci.edu/ml/machine-learning-databases/reuters21578-mld/reuters21578.tar.gz",
                    "reuters21578.tar.gz",
                    size_note="about 8 MB",
                ),
            ),
            notes="checksum unknown; the normalised copy used by tests is ../shared/datasets/reuters21578",
        ),
        Entry(
            "20newsgroups",
            "20 Newsgroups, by-date split: about 18,846 posts in 20 groups",
            "http://qwone.com/~jason/20Newsgroups/",
            "no explicit licence; distributed for research",
            (
                RemoteFile(
                    "https://ndownloader.figshare.com/files/5975967",
                    "20news-bydate.tar.gz",
                    "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
                    size_note="about 14 MB",
                ),
            ),
            notes="address and checksum as recorded by scikit-learn's fetch_20newsgroups",
        ),
        Entry(
            "srd",
            "Systematic-review screening sets (Cohen 2006 drug reviews, Kitchenham 2010, ...)",
            "https://github.com/asreview/systematic-review-datasets",
            "repository MIT; each review's data under its authors' licence (Cohen 2006 open; Kitchenham CC BY 4.0)",
            (
                RemoteFile(
                    "https://github.com/asreview/systematic-review-datasets/archive/refs/heads/master.zip",
                    "systematic-review-datasets-master.zip",
                    size_note="unknown",
                ),
            ),
            notes="a moving branch archive: no fixed checksum exists",
        ),
    )
}


def data_dir() -> Path:
    """Where downloads are cached: $TARSIM_DATA_DIR, else the user data directory of platformdirs."""
    override = os.environ.get(ENV_DATA_DIR)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("tarsim")) / "datasets"


def get_entry(name: str) -> Entry:
    """The registry entry `name` (ConfigError listing the names otherwise)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown dataset {name!r}; choose from {', '.join(REGISTRY)}") from None


def describe_size(file: RemoteFile) -> str:
    """The size in words: exact bytes when known, else the note."""
    if file.size is not None:
        return f"{file.size:,} bytes"
    return file.size_note or "size unknown"


def _one_line(text: object) -> str:
    return re.sub(r"\s+", " ", str(text)).strip()


def fetch(entry: Entry, *, directory: Path | None = None, progress: bool = True) -> Path:
    """Download every file of `entry` (verifying SHA-256 where known) into its cache folder; return the folder.

    Files already present with the right checksum are not downloaded again. Failures raise one-line errors
    naming the address and where to place the file by hand, and leave no empty folder behind.
    """
    target = Path(directory) if directory is not None else data_dir() / entry.name
    if not entry.files:
        raise TarsimError(
            f"{entry.name}: no download address is known ({entry.notes or entry.homepage}); "
            f"place the files by hand in {target}"
        )
    with _no_empty_folders_left(target):
        for file in entry.files:
            _retrieve(file, target, progress)
    return target


@contextlib.contextmanager
def _no_empty_folders_left(target: Path) -> Iterator[None]:
    """On failure, remove the folders created since entering that are still empty: a failed fetch must not leave a
    dataset folder that readers take for a download (they say how to fetch a missing one)."""
    from tarsim.data.paths import missing_folders, remove_if_empty

    created = missing_folders(target)
    try:
        yield
    except BaseException:
        remove_if_empty(created)  # a folder holding a downloaded file stays
        raise


def _retrieve(file: RemoteFile, target: Path, progress: bool) -> None:
    """Download one file of an entry below `target` with pooch (skipped when present with the right checksum)."""
    import pooch
    import requests

    relative = PurePosixPath(file.filename)
    folder = target.joinpath(*relative.parent.parts)
    destination = folder / relative.name
    known_hash = f"sha256:{file.sha256}" if file.sha256 else None
    hint = f"download it by other means and place it at {destination}"
    try:
        pooch.retrieve(file.url, known_hash=known_hash, fname=relative.name, path=folder, progressbar=progress)
    except requests.exceptions.RequestException as exc:
        raise TarsimError(f"cannot download {file.url} ({_one_line(type(exc).__name__)}); {hint}") from None
    except ValueError as exc:
        raise TarsimError(f"checksum mismatch for {file.url}: {_one_line(exc)}; {hint}") from None
    except OSError as exc:
        raise TarsimError(f"cannot write {destination}: {_one_line(exc)}") from None
