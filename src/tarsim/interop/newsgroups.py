"""20 Newsgroups, by-date version (20news-bydate.tar.gz or its extracted folders) as a collection.

The archive holds 20news-bydate-train/GROUP/NUMBER and 20news-bydate-test/GROUP/NUMBER, one message a file.
Document `SPLIT/GROUP/NUMBER` (train first, then test; groups and numbers in order) has the message's
Subject as title and the text after the header block as text. Each group is a topic (query: its name) whose
qrels list its own messages as relevant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tarsim.data.collection import Collection, Document
from tarsim.data.dataset import Dataset
from tarsim.data.limits import open_regular, read_regular
from tarsim.data.lines import PathLike
from tarsim.data.qrels import Qrels
from tarsim.errors import InputError
from tarsim.interop.archives import is_tar, tar_members
from tarsim.interop.source_paths import missing_source

_MESSAGE = re.compile(r"(?:^|/)20news-bydate-(train|test)/([^/]+)/(\d+)$")
_SPLITS = {"train": 0, "test": 1}


def _messages(source: Path) -> Iterator[tuple[tuple[str, str, str], bytes]]:
    """((split, group, number), bytes) of every message file in a folder or a tar(.gz) archive."""
    if source.is_dir():
        for path in source.rglob("*"):
            match = _MESSAGE.search(path.as_posix())
            if match and not path.is_dir():  # a FIFO or a device is refused by read_regular, not skipped
                yield (match.group(1), match.group(2), match.group(3)), read_regular(path)
        return
    with open_regular(source) as handle:
        if not is_tar(handle):
            raise InputError(source, None, "not a tar archive (.tar, .tar.gz) nor a folder of 20news-bydate messages")
        for name, data in tar_members(source, handle, lambda name: _MESSAGE.search(name) is not None):
            match = _MESSAGE.search(name)
            assert match is not None
            yield (match.group(1), match.group(2), match.group(3)), data


def parse_message(raw: bytes) -> tuple[str, str]:
    """(subject, body) of a news message (Latin-1, as the collection is distributed)."""
    text = raw.decode("latin-1").replace("\r\n", "\n")
    head, _, body = text.partition("\n\n")
    subject = ""
    for line in head.split("\n"):
        if line.lower().startswith("subject:"):
            subject = line[len("subject:") :].strip()
            break
    return subject, body.strip()


def read_20newsgroups(source: PathLike) -> Dataset:
    """Every message of the by-date train and test splits; one topic per newsgroup."""
    source = Path(source)
    if not source.exists():
        raise missing_source(source)
    found = sorted(_messages(source), key=lambda item: (_SPLITS[item[0][0]], item[0][1], int(item[0][2])))
    if not found:
        raise InputError(source, None, "no 20news-bydate-train/GROUP/NUMBER or 20news-bydate-test/... messages")
    documents = []
    qrels: Qrels = {}
    for (split, group, number), raw in found:
        docid = f"{split}/{group}/{number}"
        subject, body = parse_message(raw)
        documents.append(Document(docid=docid, title=subject, text=body))
        qrels.setdefault(group, {})[docid] = 1
    groups = sorted(qrels)
    return Dataset(
        collection=Collection(documents, source=str(source)),
        qrels={group: qrels[group] for group in groups},
        topics={group: group for group in groups},
        name="20newsgroups",
    )
