"""TREC runs (`topic Q0 docid rank score tag`) and binary decision files (`topic docid label`)."""

from __future__ import annotations

from tarsim.data.atomic import atomic_write
from tarsim.data.lines import PathLike, iter_lines, parse_float, parse_int, split_fields
from tarsim.data.plain_columns import group_rows
from tarsim.errors import InputError

Run = dict[str, dict[str, float]]
"""topic -> docid -> score (higher is better); the layout pytrec_eval uses."""

Decisions = dict[str, dict[str, int]]
"""topic -> docid -> binary label (1 relevant, 0 not)."""


def read_run(path: PathLike) -> Run:
    """Read a TREC run; reject wrong column counts, non-numeric rank or score, duplicate (topic, docid).

    A fast pass parses lines without per-field checks; any malformed line sends the file through the
    checked reader, which names the first bad line (a run of 5M lines reads in a few seconds).
    """
    run: Run = {}
    try:
        for _number, line in iter_lines(path):
            if not line.isascii():  # a non-ASCII space would split here but not in trec_eval: the checked reader
                raise ValueError(line)
            topic, _q0, docid, rank, score, _tag = line.split()
            int(rank)
            value = float(score)
            if value - value != 0.0 or "_" in score or "_" in rank:  # NaN or infinity; "0_5" is 5.0 to Python
                raise ValueError(score)
            ranked = run.get(topic)
            if ranked is None:
                ranked = run[topic] = {}
            elif docid in ranked:
                raise ValueError(docid)
            ranked[docid] = value
    except ValueError:
        return _read_run_checked(path)
    return run


def _read_run_checked(path: PathLike) -> Run:
    """Read a TREC run checking every field, so that the error names the first bad line."""
    run: Run = {}
    for number, line in iter_lines(path):
        topic, _q0, docid, rank, score, _tag = split_fields(path, number, line, 6, "topic Q0 docid rank score tag")
        parse_int(path, number, rank, "rank")
        value = parse_float(path, number, score, "score")
        ranked = run.get(topic)
        if ranked is None:
            ranked = run[topic] = {}
        if docid in ranked:
            raise InputError(path, number, f"duplicate docid {docid!r} for topic {topic!r}")
        ranked[docid] = value
    return run


def write_run(path: PathLike, run: Run, tag: str = "tarsim") -> None:
    """Write a TREC run, each topic ranked by score descending (ties by docid descending, as trec_eval)."""
    with atomic_write(path) as out:
        for topic in sorted(run):
            ranked = sorted(run[topic].items(), key=lambda item: (item[1], item[0]), reverse=True)
            for rank, (docid, score) in enumerate(ranked, start=1):
                out.write(f"{topic} Q0 {docid} {rank} {score!r} {tag}\n")


def read_decisions(path: PathLike) -> Decisions:
    """Read binary relevance decisions `topic docid label` (label 0 or 1)."""
    decisions: Decisions = {}
    for number, line in iter_lines(path):
        topic, docid, label = split_fields(path, number, line, 3, "topic docid label")
        value = parse_int(path, number, label, "label")
        if value not in (0, 1):
            raise InputError(path, number, f"label must be 0 or 1, got {value}")
        decided = decisions.setdefault(topic, {})
        if docid in decided:
            raise InputError(path, number, f"duplicate decision for topic {topic!r}, docid {docid!r}")
        decided[docid] = value
    return decisions


def write_decisions(path: PathLike, decisions: Decisions) -> None:
    """Write binary decisions `topic docid label`, sorted (atomic)."""
    with atomic_write(path) as out:
        for topic in sorted(decisions):
            for docid in sorted(decisions[topic]):
                out.write(f"{topic} {docid} {decisions[topic][docid]}\n")


class RunTable:
    """A TREC run as columns (topic codes, docids, scores), read at C speed: what evaluate_run needs.

    `topics[code]` names a topic code; rows keep the file's order. `to_dict()` gives the Run.
    """

    SMALL_TOPIC = 256
    """Below this many lines per topic on average, one hash of all docids beats a hash per topic."""

    def __init__(self, topics: list[str], topic_codes, docids, scores) -> None:
        import numpy as np

        self.topics = topics
        self.topic_codes = np.asarray(topic_codes, dtype=np.int64)
        self.docids = docids  # a pyarrow string array, one per row (large: kept out of Python objects)
        self.scores = np.asarray(scores, dtype=np.float64)
        # order: row indexes grouped by topic code (file order within a topic); the rows of topic code t are
        # order[starts[t]:starts[t + 1]]; _contiguous: each topic's lines together, as runs are written (no sort).
        self.order, self.starts, self._contiguous = group_rows(self.topic_codes, len(topics))

    def rows_of_topic(self, code: int):
        """The rows of topic code `code`, in file order."""
        return self.order[self.starts[code] : self.starts[code + 1]]

    def has_duplicates(self) -> bool:
        """Whether some (topic, docid) has two lines."""
        import numpy as np
        import pyarrow.compute as pc

        from tarsim.data.arrow_numpy import from_numpy, to_numpy

        if len(self.scores) < self.SMALL_TOPIC * len(self.topics):
            codes = to_numpy(pc.dictionary_encode(self.docids).indices).astype(np.int64)
            keys = np.sort(self.topic_codes * (len(self.scores) + 1) + codes)
            return bool((keys[1:] == keys[:-1]).any())
        grouped = self.docids if self._contiguous else self.docids.take(from_numpy(self.order))
        for start, end in zip(self.starts[:-1].tolist(), self.starts[1:].tolist(), strict=True):
            if end - start > 1 and len(pc.unique(grouped.slice(start, end - start))) < end - start:
                return True
        return False

    def rows_of(self, topic_codes, docids: list[str]):
        """The row of each (topic code, docid) pair, -1 where there is none.

        One hash lookup of every run docid in the set of wanted docids (small: it stays in cache), then an
        exact match of (topic code, docid) keys among the few lines that name a wanted docid.
        """
        import numpy as np
        import pyarrow.compute as pc

        from tarsim.data.arrow_numpy import string_array, to_numpy

        rows = np.full(len(docids), -1, dtype=np.int64)
        if not docids:
            return rows
        position = {docid: index for index, docid in enumerate(dict.fromkeys(docids))}
        found = pc.index_in(self.docids, value_set=string_array(list(position)))
        which = to_numpy(found, null=-1).astype(np.int64)
        candidates = np.flatnonzero(which >= 0)
        if not len(candidates):
            return rows
        stride = len(position)
        keys = self.topic_codes[candidates] * stride + which[candidates]
        order = np.argsort(keys)
        keys = keys[order]
        wanted = np.asarray(topic_codes, dtype=np.int64) * stride + np.array([position[d] for d in docids])
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, candidates[order[at]], -1)

    def __len__(self) -> int:
        return len(self.scores)

    def to_dict(self) -> Run:
        """The run as read_run returns it: topic -> docid -> score, topics and docids in file order."""
        run: Run = {}
        for topic, docid, score in zip(
            self.topic_codes.tolist(), self.docids.to_pylist(), self.scores.tolist(), strict=True
        ):
            run.setdefault(self.topics[topic], {})[docid] = score
        return run


def read_run_table(path: PathLike) -> RunTable | Run:
    """Read a TREC run as columns with pyarrow's CSV reader (multi-threaded C++); the same checks as read_run.

    Files the fast reader cannot take exactly as read_run would (gzip, runs of white space, CRLF, a BOM, odd
    white space, anything malformed: a duplicate, a NaN, a bad rank) go through read_run, which accepts the same
    files and names the first bad line; then the Run dict is returned. evaluate_run takes either.
    """
    table = _parse_run_columns(path)
    return table if table is not None else read_run(path)


def _parse_run_columns(path: PathLike) -> RunTable | None:
    """Columns of a run whose lines are plainly `topic Q0 docid rank score tag`, else None."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from tarsim.data.arrow_numpy import to_numpy
    from tarsim.data.plain_columns import read_plain_columns

    names = ["topic", "q0", "docid", "rank", "score", "tag"]
    types = {"topic": pa.string(), "docid": pa.string(), "rank": pa.string(), "score": pa.float64()}
    table = read_plain_columns(path, names, types)  # Q0 and tag are not kept (read_run ignores them too)
    if table is None:
        return None
    if not pc.all(pc.ascii_is_decimal(table["rank"])).as_py():
        return None  # a sign, "1_0" or "0x1": int() decides (pyarrow's integers differ from Python's)
    scores = to_numpy(table["score"])
    if not np.isfinite(scores).all():
        return None
    topic_codes = pc.dictionary_encode(table["topic"]).combine_chunks()
    docids = table["docid"].combine_chunks()
    run = RunTable(topic_codes.dictionary.to_pylist(), to_numpy(topic_codes.indices), docids, scores)
    if run.has_duplicates():
        return None  # a duplicate (topic, docid): read_run names its line
    return run
