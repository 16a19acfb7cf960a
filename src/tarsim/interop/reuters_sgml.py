"""Reuters-21578 Distribution 1.0 (the reut2-*.sgm files, or the tar.gz holding them) as a collection.

Each <REUTERS NEWID="n"> story is document `rn` with its <TITLE> and <BODY> (entities &lt; &gt; &amp; read,
the end-of-text mark &#3; dropped, white space trimmed); stories without them (TYPE="UNPROC") are kept with
empty texts. Topics are the categories of <TOPICS><D>...</D></TOPICS>; qrels list only the positive pairs;
LEWISSPLIT and the other attributes are ignored. This is the layout of ../shared/datasets/reuters21578.
"""

from __future__ import annotations

import re
from collections import Counter
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

FILE_PATTERN = re.compile(r"(^|/)reut2-\d+\.sgm$")
_STORY = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID = re.compile(r'\bNEWID="(\d+)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_CATEGORY = re.compile(r"<D>(.*?)</D>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_ENTITIES = (("&#3;", ""), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def _text(raw: str) -> str:
    for entity, replacement in _ENTITIES:
        raw = raw.replace(entity, replacement)
    return raw.strip()


def _sgml_files(source: Path) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every reut2-NNN.sgm in a folder or a tar(.gz) archive, in name order."""
    if source.is_dir():
        files = sorted(p for p in source.rglob("reut2-*.sgm") if FILE_PATTERN.search(p.as_posix()))
        for path in files:
            yield str(path), read_regular(path)
        return
    with open_regular(source) as handle:
        if not is_tar(handle):
            raise InputError(source, None, "not a tar archive (.tar, .tar.gz) nor a folder of reut2-*.sgm files")
        for name, data in tar_members(source, handle, lambda name: FILE_PATTERN.search(name) is not None):
            yield f"{source}:{name}", data


def read_reuters_sgml(source: PathLike) -> Dataset:
    """Stories, category qrels (positives only) and one topic per category (query: the category's name)."""
    source = Path(source)
    if not source.exists():
        raise missing_source(source)
    documents: list[Document] = []
    qrels: Qrels = {}
    seen: set[str] = set()
    for name, data in _sgml_files(source):
        text = data.decode("latin-1")  # the distribution is 8-bit text, not all of it UTF-8
        for story in _STORY.finditer(text):
            line = text.count("\n", 0, story.start()) + 1
            newid = _NEWID.search(story.group(1))
            if newid is None:
                raise InputError(name, line, "<REUTERS> without a NEWID attribute")
            docid = f"r{int(newid.group(1))}"
            if docid in seen:
                raise InputError(name, line, f"duplicate NEWID {newid.group(1)}")
            seen.add(docid)
            body = story.group(2)
            title, main = _TITLE.search(body), _BODY.search(body)
            documents.append(
                Document(
                    docid=docid, title=_text(title.group(1)) if title else "", text=_text(main.group(1)) if main else ""
                )
            )
            topics = _TOPICS.search(body)
            for category in _CATEGORY.findall(topics.group(1)) if topics else []:
                qrels.setdefault(category.strip(), {})[docid] = 1
    if not documents:
        raise InputError(source, None, "no reut2-*.sgm file with <REUTERS> stories")
    sizes = Counter({topic: len(judged) for topic, judged in qrels.items()})
    order = sorted(sizes, key=lambda topic: (-sizes[topic], topic))
    return Dataset(
        collection=Collection(documents, source=str(source)),
        qrels={topic: qrels[topic] for topic in order},
        topics={topic: topic for topic in order},
        name="reuters21578",
    )
