"""Readers and writers for tarsim's inputs: collections, topics, qrels, sentence qrels, runs, decisions."""

from tarsim.data.atomic import atomic_write
from tarsim.data.collection import Collection, Document, iter_documents, read_collection, write_collection
from tarsim.data.dataset import Dataset
from tarsim.data.ledger import Ledger, iter_ledger_paths, ledger_from_lines, read_ledger
from tarsim.data.qrels import (
    Qrels,
    SentenceQrels,
    read_qrels,
    read_sentence_qrels,
    relevant_docids,
    write_qrels,
    write_sentence_qrels,
)
from tarsim.data.runs import Decisions, Run, read_decisions, read_run, write_decisions, write_run
from tarsim.data.topics import Topics, read_topics, write_topics

__all__ = [
    "Collection",
    "Dataset",
    "Decisions",
    "Document",
    "Ledger",
    "Qrels",
    "Run",
    "SentenceQrels",
    "Topics",
    "atomic_write",
    "iter_documents",
    "iter_ledger_paths",
    "ledger_from_lines",
    "read_collection",
    "read_decisions",
    "read_ledger",
    "read_qrels",
    "read_run",
    "read_sentence_qrels",
    "read_topics",
    "relevant_docids",
    "write_collection",
    "write_decisions",
    "write_qrels",
    "write_run",
    "write_sentence_qrels",
    "write_topics",
]
