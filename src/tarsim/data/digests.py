"""The input identities a ledger header and a feature cache record: a collection's digest, a text's, a topic's qrels'.

Pure functions of the data, so that any stage (the cache, the simulator, a stopping replay) computes the same digest
without importing another stage."""

from __future__ import annotations

import hashlib
import struct
import weakref
from collections.abc import Iterable

from tarsim.data.collection import Collection, Document

COLLECTION_DIGEST_PREFIX = b"tarsim collection v2\n"
"""Starts every collection digest's input; names the encoding so that a change of encoding changes every digest."""

_DIGESTS: weakref.WeakKeyDictionary[Collection, str] = weakref.WeakKeyDictionary()
"""Digests of Collection objects already hashed (a Collection cannot change): a review asks twice, for its
feature cache and its ledger header (about 0.02 s each for Reuters-21578)."""


def collection_digest(collection: Collection) -> str:
    """SHA-256 of the documents in order, every field length-prefixed: the input identity of caches and ledgers.

    Per document: the byte lengths of docid, title and text and the number of sentences (-1 for none given), then
    each sentence's length, then the UTF-8 bytes. No string can reach across a field or document boundary, so a
    NUL or a line break inside a docid or title gives another digest, never that of another split of the text.
    """
    if isinstance(collection, Collection):
        known = _DIGESTS.get(collection)
        if known is None:
            known = _DIGESTS[collection] = _digest(collection)
        return known
    return _digest(collection)


def _digest(collection: Iterable[Document]) -> str:
    digest = hashlib.sha256(COLLECTION_DIGEST_PREFIX)
    header = struct.Struct("<4q").pack
    for document in collection:
        docid, title, text = _utf8(document.docid), _utf8(document.title), _utf8(document.text)
        if document.sentences is None:
            digest.update(header(len(docid), len(title), len(text), -1))
            digest.update(docid + title + text)
            continue
        sentences = [_utf8(sentence) for sentence in document.sentences]
        digest.update(header(len(docid), len(title), len(text), len(sentences)))
        digest.update(struct.pack(f"<{len(sentences)}q", *map(len, sentences)))
        digest.update(b"".join((docid, title, text, *sentences)))
    return digest.hexdigest()


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of any str (a lone surrogate from JSON input too); injective, so digests stay unambiguous."""
    return text.encode("utf-8", "surrogatepass")


def text_digest(text: str) -> str:
    """SHA-256 of a text (a topic's query in the ledger header)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def topic_qrels_digest(judged: dict[str, int]) -> str:
    """SHA-256 of one topic's judgments, independent of their order in the qrels file."""
    return text_digest("".join(f"{docid} {judged[docid]}\n" for docid in sorted(judged)))
