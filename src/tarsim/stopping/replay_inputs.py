"""What stopping rules that draw from the collection (target:T) need to replay a ledger: the docids and qrels of
the collection it was reviewed on, matched by the collection digest its header records (`tarsim stop` and `tarsim
plot` with `--collection`, once or repeated). The built-in demo is always known: a ledger of it (`tarsim simulate`
without --collection) is replayed with the demo's docids and qrels, with or without --collection."""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tarsim.data.ledger import Ledger
from tarsim.datasets import load_dataset
from tarsim.errors import InputError, InputWarning

if TYPE_CHECKING:
    from tarsim.data.dataset import Dataset

ReplayInputs = Callable[[Ledger], Mapping]
"""A ledger's replay inputs: what stopping rules that draw from the collection need (docids and qrels for target:T;
see tarsim.stopping), those of the collection the ledger was reviewed on."""


def _recorded_collection(ledger: Ledger) -> str | None:
    """The digest of the collection the ledger was reviewed on, as its header records it (None: not recorded)."""
    return ledger.header.get("inputs", {}).get("collection")


def _recorded_qrels(ledger: Ledger) -> str | None:
    """The digest of its topic's qrels the ledger was reviewed with, as its header records it (None: not recorded)."""
    return ledger.header.get("inputs", {}).get("qrels")


@dataclass
class GivenCollection:
    """A collection to replay ledgers with (a --collection, or the built-in demo): the name it goes by, its replay
    inputs and (made on first need) its topics' qrels digests, as ledger headers record them."""

    name: str
    inputs: dict  # {"docids": ..., "qrels": ...}
    _qrels_digests: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, name: str, dataset: Dataset) -> GivenCollection:
        return cls(name, {"docids": dataset.collection.docids, "qrels": dataset.qrels})

    def qrels_digest(self, topic: str) -> str:
        if topic not in self._qrels_digests:
            from tarsim.data.digests import topic_qrels_digest

            self._qrels_digests[topic] = topic_qrels_digest(self.inputs["qrels"].get(topic, {}))
        return self._qrels_digests[topic]

    def judged_as(self, ledger: Ledger) -> bool:
        """Whether the ledger was reviewed with this collection's qrels of its topic (its header's qrels digest)."""
        return _recorded_qrels(ledger) == self.qrels_digest(ledger.topic)


@functools.cache
def _demo_replay() -> tuple[str, GivenCollection]:
    """The built-in demo's collection digest and the demo as a collection to replay with, built on first need and
    kept (the demo is the same on every build: synthetic.demo_dataset is fully determined by its seed)."""
    from tarsim.data.digests import collection_digest
    from tarsim.datasets.synthetic import demo_dataset

    dataset = demo_dataset()
    return collection_digest(dataset.collection), GivenCollection.of("the built-in demo", dataset)


def _demo_inputs(ledger: Ledger) -> dict | None:
    """The demo's replay inputs when the ledger records the demo's collection digest and its topic's qrels digest
    (a copy of the demo with edited qrels has the same documents), else None. The demo is built (about 0.35 s) only
    for a ledger that records a digest and has the demo's number of documents, so other ledgers cost nothing."""
    from tarsim.datasets.synthetic import SyntheticSpec

    recorded = _recorded_collection(ledger)
    if not isinstance(recorded, str) or ledger.header.get("collection_size") != SyntheticSpec().n_documents:
        return None
    digest, demo = _demo_replay()
    return demo.inputs if recorded == digest and demo.judged_as(ledger) else None


@dataclass(frozen=True)
class CollectionReplay:
    """Replay inputs of the collections given by name, keyed by collection digest; called with a ledger, it returns
    those of the collection the ledger was reviewed on (its documents by the collection digest, its judgments by
    the topic's qrels digest), or refuses the ledger in one line."""

    given: dict[str, list[GivenCollection]]  # collection digest -> the collections of those documents
    _docid_sets: dict[str, frozenset] = field(default_factory=dict, repr=False)  # built on first need

    def __call__(self, ledger: Ledger) -> dict:
        recorded = _recorded_collection(ledger)
        same_documents = self.given.get(recorded, []) if isinstance(recorded, str) else []
        chosen = self._by_qrels(ledger, same_documents) if same_documents else None
        if chosen is not None:
            return chosen.inputs
        demo = _demo_inputs(ledger)
        if demo is not None:  # the demo has no folder to give: it is served beside any --collection
            return demo
        if same_documents:
            names = " or ".join(collection.name for collection in same_documents)
            problem = f"was reviewed on the documents of {names} but with other qrels for topic {ledger.topic!r}"
            raise InputError(ledger.source, None, f"{problem} (its qrels digest differs): give the right collection")
        collections = [collection for same in self.given.values() for collection in same]
        if len(collections) == 1:  # one collection: it serves a ledger that records none (older, converted ledgers)
            (only,) = collections
            if recorded is None:
                return self._checked(ledger, only)
            raise InputError(ledger.source, None, f"was not reviewed on {only.name} (its collection digest differs)")
        if recorded is None:
            raise InputError(
                ledger.source,
                None,
                "records no collection digest, so which --collection it was reviewed on cannot be told "
                "(replay it with its own collection alone)",
            )
        names = ", ".join(collection.name for collection in collections)
        problem = f"was reviewed on none of the given collections ({names}): its collection digest differs from each"
        raise InputError(ledger.source, None, problem)

    @staticmethod
    def _by_qrels(ledger: Ledger, candidates: list[GivenCollection]) -> GivenCollection | None:
        """Of the given collections with the ledger's documents, the one with its topic's judgments (None: none
        has them): target:T drawn with other qrels would sample other targets and report another recall."""
        if not isinstance(_recorded_qrels(ledger), str):  # an older ledger: only the documents can be matched
            if all(candidate.inputs["qrels"] == candidates[0].inputs["qrels"] for candidate in candidates):
                return candidates[0]
            names = " and ".join(candidate.name for candidate in candidates)
            problem = f"records no qrels digest, so which of {names} (the same documents, other qrels) it was"
            raise InputError(ledger.source, None, f"{problem} reviewed on cannot be told; give one of them")
        return next((candidate for candidate in candidates if candidate.judged_as(ledger)), None)

    def _checked(self, ledger: Ledger, collection: GivenCollection) -> dict:
        """The inputs of a collection for a ledger that records no digest, once its docids are all found there:
        target:T would otherwise compare its sample with docids of another collection and never stop."""
        if collection.name not in self._docid_sets:
            self._docid_sets[collection.name] = frozenset(collection.inputs["docids"])
        known = self._docid_sets[collection.name]
        missing = sum(1 for docid in set(ledger.docids) if docid not in known)
        if missing:
            raise InputError(
                ledger.source, None, f"{missing} of its docids are not in {collection.name}: not reviewed on it"
            )
        return collection.inputs


def _load_replay_collections(names: Sequence[str]) -> CollectionReplay:
    """Load each named collection once, grouped by collection digest: collections of the same documents with
    other qrels are told apart, ledger by ledger, by the topic's qrels digest."""
    from tarsim.data.digests import collection_digest

    unique: dict[str, str] = {}  # one name per file: "DIR" and "./DIR" are loaded once
    for name in names:
        unique.setdefault(os.path.realpath(name), name)
    given: dict[str, list[GivenCollection]] = {}
    for name in unique.values():
        with warnings.catch_warnings():  # a screening file with unlabelled rows was reviewed without them
            warnings.simplefilter("ignore", InputWarning)
            dataset = load_dataset(name, unlabelled="skip")
        given.setdefault(collection_digest(dataset.collection), []).append(GivenCollection.of(name, dataset))
    return CollectionReplay(given)


def replay_inputs(
    collections: str | os.PathLike | Sequence[str | os.PathLike] | None, ledgers: Sequence[Ledger] = ()
) -> ReplayInputs:
    """Each ledger's replay inputs from `collections` (directories or screening files, each loaded once): those of
    the one whose digest its header records, or the built-in demo's for a ledger of the demo. Every ledger of
    `ledgers` is matched now, so that one reviewed on none of them is refused before any work. Without
    collections, a demo ledger gets the demo's inputs and any other none (rules that need none still work)."""
    given = [collections] if isinstance(collections, (str, os.PathLike)) else list(collections or ())
    names = [os.fspath(name) for name in given if os.fspath(name)]
    if not names:
        return _demo_or_nothing
    replay = _load_replay_collections(names)
    for ledger in ledgers:
        replay(ledger)
    return replay


def _demo_or_nothing(ledger: Ledger) -> dict:
    """Without collections: the demo's inputs for a ledger of the demo, none for any other ledger (rules that need
    no collection still work; target:T then asks for --collection in one line)."""
    demo = _demo_inputs(ledger)
    return {} if demo is None else demo
