"""Sentences of single documents on demand, for reviews that need only the sentences of what they judge.

A document-level review (documents shown, documents trained on) needs a document's sentences only when it judges
it: their number and words for the reading rule and the `sent`/`words` efforts, and, for a relevant document under
the gold-classifier oracle, their weighted rows. LazySentences segments a document when first asked (a round's
batch at once, on all cores when it is large), and keeps what it computed in a store beside the feature cache,
so a later run over the same collection and settings segments only documents no earlier run judged. Every value
equals the row of the whole-collection build (Features.sentences) to the bit (tests/text/test_lazy_sentences.py).

A small collection (a screening set: its reviews read most of it) is segmented whole, but in the background:
workers forked from this process segment every document not yet known while this process counts the documents,
imports scikit-learn, trains and judges (from the start of a cold build, or for features read from the cache from
the review's first ranking, in that ranking's order); a document the review needs before its chunk is back is
segmented in this process (the same function, so the same sentences).
"""

from __future__ import annotations

import contextlib
import json
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from tarsim.data.atomic import atomic_write
from tarsim.data.collection import Document
from tarsim.errors import InputWarning
from tarsim.runtime.pools import WorkerPool

STORE_FORMAT = 1
"""Bumped whenever the store's layout or the values it keeps change."""

STORE_PREFIX = "sentences-"
"""Store files are named `sentences-<collection digest>-<settings digest>-v<STORE_FORMAT>.npz`."""

BACKGROUND_MAX_DOCUMENTS = 5000
"""Collections smaller than this are segmented whole in the background from a review's first ranking: reviews of
them read most documents (55-90% of a screening set to 100% recall), so segmenting only the judged ones on demand
saved nothing (benchmarks/lazy_sentences.py: 0.8-1.1x on srd reviews), while segmenting on the idle cores during
the review takes the segmentation off the run's critical path. Larger collections are segmented as judged
(2.8-4.0x on Reuters topics that read 1-2% of 21,578 stories)."""

BACKGROUND_CHUNK_DOCUMENTS = 64
"""Documents per background task: small enough that the review soon finds what it needs back, and that closing
the pool (waiting for the tasks already running) is quick."""

PARALLEL_MIN_DOCUMENTS = 200
"""A batch of at least this many unsegmented documents is segmented on all cores (forked workers)."""

SEGMENT_REST_SHARE = 0.2
"""Once a review has needed this share of the collection, it will most likely read most of it (a review to 100%
recall of a screening set reads 55-90%): the rest is segmented at once on all cores, as a whole build would."""

RowMaker = Callable[[list[str]], sp.csr_matrix]
"""Weighted rows of a list of sentences, exactly as the whole-collection build weighs them."""


def store_path(cache_dir: Path, collection_sha: str, settings_digest: str) -> Path:
    """Where the sentences of a collection under these feature settings are kept (beside its feature entry)."""
    return Path(cache_dir) / f"{STORE_PREFIX}{collection_sha[:24]}-{settings_digest}-v{STORE_FORMAT}.npz"


class LazySentences:
    """Words and weighted rows of each document's sentences, segmented when first needed and remembered."""

    def __init__(
        self,
        documents: Sequence[Document],
        make_rows: RowMaker,
        store: Path | None = None,
        collection_sha: str = "",
        source: str = "",
        settings: dict | None = None,
        background: Background | None = None,
    ) -> None:
        self._documents = documents
        self._make_rows = make_rows
        self._store = Path(store) if store is not None else None
        self._collection_sha = collection_sha
        self._source, self._settings = source, settings or {}  # shown by `tarsim cache info`
        self._sentences: dict[int, list[str]] = {}  # segmented in this process (kept for the run)
        self._words: dict[int, np.ndarray] = {}
        self._rows: dict[int, sp.csr_matrix] = {}
        self._known: set[int] = set()  # documents whose sentences (or their words) are known
        self._stored_words: set[int] = set()
        self._stored_rows: set[int] = set()
        self._background: Background | None = None
        self._background_tried = self._prioritised = False
        self._store_refused = False  # the store was found unusable (warned once)
        if background is not None:  # started while the documents were counted
            self._adopt(background)
        self.keep_in(self._store, collection_sha)

    @property
    def segments_as_judged(self) -> bool:
        """Whether documents are segmented when a review needs them (a large collection), not all in the background
        (BACKGROUND_MAX_DOCUMENTS)."""
        return len(self._documents) >= BACKGROUND_MAX_DOCUMENTS

    def keep_in(self, store: Path | None, collection_sha: str) -> None:
        """Keep what is segmented in this store (merged with what it already has) for later runs."""
        self._store, self._collection_sha = (Path(store) if store is not None else None), collection_sha
        if self._store is not None and self._store.exists():
            self._load()

    # ---- what a review asks ----------------------------------------------------------------------------------
    def words(self, doc: int) -> np.ndarray:
        """Words (white-space separated tokens) of each sentence of document `doc`, int32, in reading order."""
        words = self._words.get(doc)
        if words is None:
            sentences = self._segmented(doc)
            words = np.fromiter((len(s.split()) for s in sentences), dtype=np.int32, count=len(sentences))
            self._words[doc] = words
        return words

    def rows(self, doc: int) -> sp.csr_matrix:
        """The weighted sentence rows of document `doc` (as Features.sentences has them)."""
        rows = self._rows.get(doc)
        if rows is None:
            rows = self._make_rows(self._segmented(doc))
            self._rows[doc] = rows
        return rows

    def prefetch_rows(self, docs: Iterable[int]) -> None:
        """Compute the rows of these documents in one batch (the same values as one by one: rows are weighted
        and normalised each on its own), so a round's relevant documents cost one vectorisation, not one each."""
        wanted = [int(d) for d in docs if int(d) not in self._rows]
        if len(wanted) < 2:
            return
        sentences = [self._segmented(doc) for doc in wanted]
        matrix = self._make_rows([sentence for group in sentences for sentence in group])
        start = 0
        for doc, group in zip(wanted, sentences, strict=True):
            self._rows[doc] = matrix[start : start + len(group)]
            start += len(group)

    def prefetch(self, docs: Iterable[int], upcoming: Sequence[int] = ()) -> None:
        """Get ready to be asked for these documents (a round's batch). A small collection starts segmenting in
        the background, `upcoming` (the review's ranking) first; a large one segments the batch now on all cores
        when it is large, and the whole rest of the collection once the review needs SEGMENT_REST_SHARE of it;
        fewer are segmented one at a time when judged (cheaper than starting workers)."""
        if not self.segments_as_judged:
            if not self._background_tried:
                self._background_tried = True
                self._start_background([*upcoming, *docs])
            elif self._background is not None and not self._prioritised:
                self._background.prioritise([*docs, *upcoming])  # begun at the build, in collection order
            self._prioritised = True
            if self._background is not None:
                self._absorb(self._background.finished())
            return
        missing = [int(d) for d in docs if int(d) not in self._known]
        n, known = len(self._documents), len(self._known)
        if known + len(missing) >= SEGMENT_REST_SHARE * n and n - known >= PARALLEL_MIN_DOCUMENTS:
            missing = [doc for doc in range(n) if doc not in self._known]
        if len(missing) >= PARALLEL_MIN_DOCUMENTS:
            self._segment_in_parallel(missing)

    def segment_while(self, docs: Iterable[int], keep_going: Callable[[], bool]) -> int:
        """Segment these documents, in this order, for as long as `keep_going()` says (checked before each one):
        time this process would otherwise spend waiting (for the gold oracle's fit on its thread) spent on the
        documents the review is likely to judge next. Not for a collection segmented in the background (its
        workers do this). Returns how many it segmented."""
        if self._background is not None or not self.segments_as_judged:
            return 0
        done = 0
        for doc in docs:
            if not keep_going():
                break
            if int(doc) not in self._known:
                self._segmented(int(doc))
                done += 1
        return done

    def _segment_in_parallel(self, missing: list[int]) -> None:
        """Segment on worker processes: forked from this one where that is safe, else loky's (joblib), which start fresh
        and receive the documents; a review with a fitting thread running cannot fork, and segmenting a large share
        of the collection here would cost it several seconds."""
        from tarsim.text.segmentation import segment_collection

        segmented = segment_collection([self._documents[doc] for doc in missing])
        for doc, sentences in zip(missing, segmented, strict=True):
            self._sentences[doc] = sentences
            self._known.add(doc)

    def _start_background(self, first: Sequence[int]) -> None:
        """Segment every document not yet known on forked workers, `first` first (see start_background)."""
        order = dict.fromkeys(int(d) for d in first)
        order.update(dict.fromkeys(range(len(self._documents))))
        background = start_background(self._documents, [doc for doc in order if doc not in self._known])
        if background is not None:
            self._adopt(background)

    def _adopt(self, background: Background) -> None:
        self._background, self._background_tried = background, True

    def _absorb(self, segmented: Iterable[tuple[int, list[str]]]) -> None:
        for doc, sentences in segmented:  # kept beside stored words too: a relevant document may need its rows
            if doc not in self._sentences:
                self._sentences[doc] = sentences
                self._known.add(doc)

    def _segmented(self, doc: int) -> list[str]:
        from tarsim.text.segmentation import segment_document

        sentences = self._sentences.get(doc)
        if sentences is None and self._background is not None:
            self._absorb(self._background.finished(waiting_for=doc))
            sentences = self._sentences.get(doc)
        if sentences is None:
            sentences = segment_document(self._documents[doc])
            self._sentences[doc] = sentences
            self._known.add(doc)
        return sentences

    @property
    def known_documents(self) -> int:
        """How many documents' sentences are known (segmented in this process or read from the store)."""
        return len(self._known)

    # ---- the store -------------------------------------------------------------------------------------------
    @property
    def grown(self) -> bool:
        """Whether this process computed words or rows the store does not have yet."""
        return bool(set(self._words) - self._stored_words or set(self._rows) - self._stored_rows)

    def stop_background(self) -> None:
        """Stop segmenting in the background (tasks not started are dropped) and keep what is back."""
        if self._background is not None:
            self._absorb(self._background.close())
            self._background, self._background_tried = None, False  # a later review may start another
            self._prioritised = False

    def save(self) -> None:
        """Stop the background work, then merge what this process computed into the store (re-read first: another
        run may have added to it).

        Written atomically; two runs saving at once keep one complete file, and what the other computed is
        computed again when next needed: the store only ever saves time.
        """
        self.stop_background()
        if self._store is None:
            return
        for doc in list(self._sentences):  # documents segmented ahead of need: their words cost nothing more
            self.words(doc)
        if not self.grown:
            return
        if self._store.exists():
            self._load()
        from tarsim.data.cache_files import arrays_checksum, cache_write_failure_warned

        arrays = self._arrays()
        meta = {
            "format": STORE_FORMAT,
            "collection": self._collection_sha,
            "arrays": arrays_checksum(arrays),
            "source": f"sentences of {self._source}" if self._source else "",
            "settings": self._settings,
        }
        with cache_write_failure_warned(self._store), atomic_write(self._store, "wb") as handle:
            np.savez(handle, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)
        self._stored_words, self._stored_rows = set(self._words), set(self._rows)

    def _arrays(self) -> dict[str, np.ndarray]:
        word_docs = np.array(sorted(self._words), dtype=np.int64)
        words = [self._words[d] for d in word_docs]
        row_docs = np.array(sorted(self._rows), dtype=np.int64)
        rows = [self._rows[d] for d in row_docs]
        matrix = sp.vstack(rows, format="csr") if rows else sp.csr_matrix((0, 0), dtype=np.float32)
        return {
            "word_docs": word_docs,
            "word_offsets": _offsets([len(w) for w in words]),
            "words": np.concatenate(words).astype(np.int32) if words else np.zeros(0, dtype=np.int32),
            "row_docs": row_docs,
            "row_offsets": _offsets([r.shape[0] for r in rows]),
            "rows_data": matrix.data,
            "rows_indices": matrix.indices.astype(np.int64),
            "rows_indptr": matrix.indptr.astype(np.int64),
            "rows_shape": np.array(matrix.shape, dtype=np.int64),
        }

    def _load(self) -> None:
        """Add the store's words and rows to what is known; a damaged or foreign store is ignored (one warning)."""
        from tarsim.data.cache_files import arrays_checksum, failure_reason

        try:
            with np.load(self._store, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
            meta = json.loads(str(arrays.pop("meta")[()]))
            if meta.get("format") != STORE_FORMAT or meta.get("collection") != self._collection_sha:
                raise ValueError("made for another collection or format")
            if meta.get("settings") != json.loads(json.dumps(self._settings)):  # as saved: tuples become lists
                raise ValueError("made for other feature settings")
            if meta.get("arrays") != arrays_checksum(arrays):
                raise ValueError("checksum mismatch")
            words, rows = _unpack(arrays, len(self._documents))
        except Exception as error:  # any damage: segment again, never a different result
            if not self._store_refused:  # save() reads the store again before it replaces it: one warning
                reason = failure_reason(error)
                message = f"sentence store {self._store} is unusable ({reason}): not used"
                warnings.warn(message, InputWarning, stacklevel=3)
            self._store_refused = True
            return
        for doc, value in words.items():
            self._words.setdefault(doc, value)
        for doc, value in rows.items():
            self._rows.setdefault(doc, value)
        self._known |= set(words)
        self._stored_words |= set(words)
        self._stored_rows |= set(rows)


def start_background(documents: Sequence[Document], missing: Sequence[int] | None = None) -> Background | None:
    """Start segmenting these documents (default: all) on forked workers, for a small collection's review (see
    BACKGROUND_MAX_DOCUMENTS); None where it would not pay: a large collection, fewer than PARALLEL_MIN_DOCUMENTS
    to do, one core (the workers would only take turns with the review) or where forking is unsafe."""
    from tarsim.runtime.chunks import available_cores, can_fork

    missing = list(range(len(documents))) if missing is None else list(missing)
    if len(documents) >= BACKGROUND_MAX_DOCUMENTS or len(missing) < PARALLEL_MIN_DOCUMENTS:
        return None
    if available_cores() < 2 or not can_fork():
        return None
    return Background(documents, missing)


class Background:
    """Documents segmented by forked workers while the review goes on (tarsim.runtime.pools.forked_workers)."""

    def __init__(self, documents: Sequence[Document], missing: list[int]) -> None:
        from tarsim.runtime.chunks import available_cores

        workers = min(available_cores(), -(-len(missing) // BACKGROUND_CHUNK_DOCUMENTS))
        self._pool = WorkerPool(workers)
        # Workers stop when close() is called, or when this object is dropped (a build that failed, a review
        # that never saved) or the interpreter exits: the finalizer runs once, whichever comes first.
        self._stop = weakref.finalize(self, _stop_workers, self._pool)
        self._documents = documents
        self._pending: list[tuple[list[int], Future]] = []
        self._task_of: dict[int, Future] = {}
        self._submit(missing)

    def _submit(self, docs: list[int]) -> None:
        for start in range(0, len(docs), BACKGROUND_CHUNK_DOCUMENTS):
            chunk = docs[start : start + BACKGROUND_CHUNK_DOCUMENTS]
            future = self._pool.submit(_segment_in_background, [self._documents[doc] for doc in chunk])
            self._pending.append((chunk, future))
            self._task_of.update(dict.fromkeys(chunk, future))

    def prioritise(self, first: Sequence[int]) -> None:
        """Queue the documents not yet started again, those in `first` (the review's first ranking) first: work
        started while the documents were counted goes in collection order, the review reads in ranking order."""
        requeued, kept = [], []
        for chunk, future in self._pending:
            (requeued if future.cancel() else kept).append((chunk, future))
        self._pending = kept
        waiting = {doc for chunk, _ in requeued for doc in chunk}
        ranked = {doc: None for doc in (int(d) for d in first) if doc in waiting}
        self._submit([*ranked, *(doc for chunk, _ in requeued for doc in chunk if doc not in ranked)])

    def finished(self, waiting_for: int | None = None) -> list[tuple[int, list[str]]]:
        """(document, sentences) of every task that is done, each returned once; a failed task (a worker that
        died) is dropped: its documents are segmented in this process when needed. With `waiting_for`, first
        wait for that document's task if it has left the queue for the workers (running, or next for one: it is
        back about as soon as segmenting the document again here would be)."""
        task = self._task_of.get(waiting_for) if waiting_for is not None else None
        if task is not None and task.running():
            with contextlib.suppress(Exception):  # a failed task is dropped below
                task.exception()
        done, pending = [], []
        for chunk, future in self._pending:
            (done if future.done() else pending).append((chunk, future))
        self._pending = pending
        return [
            pair
            for chunk, future in done
            if not future.cancelled() and future.exception() is None
            for pair in zip(chunk, future.result(), strict=True)
        ]

    def close(self) -> list[tuple[int, list[str]]]:
        """Drop the tasks not started, wait for the running ones, stop the workers; what is back (once)."""
        self._stop()
        return self.finished()


def _segment_in_background(documents: list[Document]) -> list[list[str]]:
    """A background task: the documents' sentences (tarsim.text.segmentation.segment_documents)."""
    from tarsim.text.segmentation import segment_documents

    return segment_documents(documents)


def _stop_workers(pool: WorkerPool) -> None:
    pool.shutdown(wait=True, cancel_futures=True)  # drops the tasks not started, waits for the running ones


def _offsets(lengths: list[int]) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _unpack(arrays: dict[str, np.ndarray], n_documents: int) -> tuple[dict[int, np.ndarray], dict[int, sp.csr_matrix]]:
    """The per-document words and rows of a verified store, after checking that its arrays fit together."""
    word_docs, word_offsets, words = arrays["word_docs"], arrays["word_offsets"], arrays["words"]
    row_docs, row_offsets = arrays["row_docs"], arrays["row_offsets"]
    for docs, offsets, total in ((word_docs, word_offsets, len(words)), (row_docs, row_offsets, None)):
        if len(offsets) != len(docs) + 1 or offsets[0] != 0 or (np.diff(offsets) < 0).any():
            raise ValueError("offsets do not fit")
        if total is not None and offsets[-1] != total:
            raise ValueError("offsets do not fit the words")
        if len(docs) and (docs.min() < 0 or docs.max() >= n_documents or (np.diff(docs) <= 0).any()):
            raise ValueError("document numbers out of range")
    shape = tuple(int(n) for n in arrays["rows_shape"])
    matrix = sp.csr_matrix((arrays["rows_data"], arrays["rows_indices"], arrays["rows_indptr"]), shape=shape)
    matrix.check_format(full_check=True)
    if row_offsets[-1] != matrix.shape[0]:
        raise ValueError("row offsets do not fit the rows")
    word_of = {int(d): words[word_offsets[i] : word_offsets[i + 1]] for i, d in enumerate(word_docs)}
    row_of = {}
    for i, d in enumerate(row_docs):
        block = matrix[int(row_offsets[i]) : int(row_offsets[i + 1])]
        row_of[int(d)] = sp.csr_matrix(
            (block.data, block.indices.astype(np.int32), block.indptr.astype(np.int32)), shape=block.shape
        )
    return word_of, row_of
