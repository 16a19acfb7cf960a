"""tarsim.text.term_counts against scikit-learn's CountVectorizer, and the feature build that counts without it."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from conftest import shared_dataset
from tarsim.data.collection import read_collection
from tarsim.features.build import _document_text
from tarsim.runtime.chunks import MIN_CHUNK_DOCUMENTS, guided_chunk_sizes
from tarsim.runtime.pools import parallel_map
from tarsim.text.analysers import _TOKEN, _words, analyser_parts, make_analyser
from tarsim.text.segmentation import segment_document
from tarsim.text.term_counts import count_terms


def _texts(*parts: str, limit: int) -> list[str]:
    collection = read_collection(shared_dataset(*parts, "docs.jsonl"))
    return [_document_text(document) for document in itertools.islice(collection, limit)]


def assert_same_as_count_vectorizer(texts: list[str], analyse, parts=None) -> None:
    """count_terms(texts, analyse), or count_terms(texts, *parts) when the analyser is given in two parts, gives
    CountVectorizer(analyzer=analyse)'s matrix and vocabulary."""
    counts, terms = count_terms(texts, *(parts or (analyse,)))
    vectoriser = CountVectorizer(analyzer=analyse, dtype=np.int32)
    expected = vectoriser.fit_transform(texts).tocsr()
    expected.sort_indices()
    assert list(terms) == list(vectoriser.get_feature_names_out())
    assert counts.shape == expected.shape and counts.dtype == expected.dtype == np.int32
    assert counts.has_canonical_format
    for mine, theirs in ((counts.indptr, expected.indptr), (counts.indices, expected.indices)):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(counts.data, expected.data)


def test_unusual_strings_are_ordered_and_counted_as_count_vectorizer_does() -> None:
    """Terms beyond the Basic Multilingual Plane, a lone surrogate (JSON input can hold one), dotted and dotless i,
    a ligature and sharp s: str order decides the columns, as in CountVectorizer."""
    texts = ["\U0001f600 İ ı ß ﬁ a \udcff", "a a z İ", "", "Z z \U0001f600 ä a\u0308"]
    assert_same_as_count_vectorizer(texts, str.split)


def test_an_analyser_may_return_any_iterable() -> None:
    """CountVectorizer takes an analyser that returns an iterator; it is read once (a second pass would see nothing)."""
    texts = ["b a b", "c a", "a"]
    assert_same_as_count_vectorizer(texts, lambda text: iter(text.split()))


@pytest.mark.parametrize("stem", [True, False])
@pytest.mark.parametrize("tokens", ["bmi", "hical"])
def test_reuters_documents_are_counted_as_count_vectorizer_counts_them(stem: bool, tokens: str) -> None:
    assert_same_as_count_vectorizer(_texts("reuters21578", limit=1500), make_analyser(stem, tokens))


@pytest.mark.parametrize("stem", [True, False])
@pytest.mark.parametrize("tokens", ["bmi", "hical"])
def test_the_analyser_in_two_parts_counts_as_the_whole_analyser(stem: bool, tokens: str) -> None:
    """Feature builds count the tokens and stem each distinct word once (analyser_parts): the same matrix and
    vocabulary as CountVectorizer with the analyser that stems every token."""
    texts = _texts("reuters21578", limit=1500)
    assert_same_as_count_vectorizer(texts, make_analyser(stem, tokens), analyser_parts(stem, tokens))


def test_words_with_one_stem_are_summed_into_one_column() -> None:
    """Several words mapping to one term (connect, connected, connecting) share its column; their counts add."""
    texts = ["connected connecting Connect", "", "connection connects zebra", "Ärger ärgerlich ärger"]
    assert_same_as_count_vectorizer(texts, make_analyser(True), analyser_parts(True))
    counts, terms = count_terms(texts, *analyser_parts(True))
    assert counts[0, list(terms).index("connect")] == 3


@pytest.mark.parametrize(
    "mapping",
    [
        {"b": "a"},  # a word's term is another word (which keeps its own term)
        {"a": "b", "b": "c", "c": "a"},  # a chain: every term is some other word
        {"a": "z", "b": "z", "c": "z"},  # everything to one term no text has as a word
    ],
)
def test_any_per_word_map_counts_as_the_composite_analyser(mapping: dict[str, str]) -> None:
    texts = ["a b c", "b b", "", "c a d", "d"]

    def map_words(words):
        return np.array([mapping.get(word, word) for word in words], dtype=object)  # any sequence will do

    composite = lambda text: [mapping.get(word, word) for word in text.split()]  # noqa: E731
    assert_same_as_count_vectorizer(texts, composite, (str.split, map_words))


def test_a_word_map_must_give_one_term_per_word() -> None:
    with pytest.raises(ValueError, match="gave 1 terms for 2 words"):
        count_terms(["a b"], str.split, lambda words: words[:1])


def test_ascii_text_is_tokenised_as_the_unicode_pattern_tokenises_it() -> None:
    """_words reads lower-cased ASCII text with [a-z]{2,}: the same tokens as the Unicode letter class there
    (digits, underscores and apostrophes split words; one letter is not a word); other text keeps the class."""
    texts = [
        "U.S. GNP rose 2.5% in Q3_1986; it's the A1 B2 co-op's 3rd rise",
        "x_y a_bc __init__ don't O'Neill e-mail AT&T 10x 1st",
        "Müller's Café naïve ΑΒΓ straße",
        "300 \u212aelvin (Kelvin sign) at İstanbul's ſtation",  # lower() makes ASCII 'k' of U+212A; İ is 'i' + U+0307
        *_texts("reuters21578", limit=300),
        *_texts("srd", "Cohen_2006_Triptans", limit=300),
    ]
    for text in texts:
        assert _words(text) == _TOKEN.findall(text.lower())


def test_srd_sentences_are_counted_as_count_vectorizer_counts_them() -> None:
    collection = read_collection(shared_dataset("srd", "Cohen_2006_Triptans", "docs.jsonl"))
    sentences = [s for document in itertools.islice(collection, 150) for s in segment_document(document)]
    assert_same_as_count_vectorizer(sentences, make_analyser(True))
    assert_same_as_count_vectorizer(sentences, make_analyser(True), analyser_parts(True))


def test_texts_without_a_term_give_no_columns() -> None:
    """CountVectorizer refuses an empty vocabulary; count_terms gives a matrix of no columns (a chunk of empty
    documents in a larger collection)."""
    with pytest.raises(ValueError):
        CountVectorizer(analyzer=make_analyser(True)).fit_transform(["", "1 2 3"])
    counts, terms = count_terms(["", "1 2 3"], make_analyser(True))
    assert counts.shape == (2, 0) and len(terms) == 0


def test_a_term_repeated_and_first_seen_late_gets_its_sorted_column() -> None:
    counts, terms = count_terms(["zebra apple zebra", "", "mango apple"], str.split)
    assert list(terms) == ["apple", "mango", "zebra"]
    assert counts.toarray().tolist() == [[1, 0, 2], [0, 0, 0], [1, 1, 0]]


def test_counting_a_chunk_does_not_import_scikit_learn() -> None:
    """Forked counting workers start before scikit-learn is imported (so the parent imports it meanwhile): the
    chunk counters must not import it themselves."""
    code = (
        "import sys\n"
        "from tarsim.data.collection import Document\n"
        "from tarsim.features.build import _count_chunk, _count_documents_chunk\n"
        "documents = [Document('a', text='Some text. More.', title='A title'), Document('b', text='Other.')]\n"
        "_count_documents_chunk(documents, True)\n"
        "_count_chunk(documents, True)\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'sklearn'))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert result.stdout.strip() == "[]"


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize(("jobs", "fork"), [(1, None), (2, True), (2, False)])
def test_parallel_map_calls_while_waiting_once_in_every_branch(jobs: int, fork: bool | None) -> None:
    if fork and sys.platform == "win32":
        pytest.skip("no fork on Windows")
    calls = []
    results = parallel_map(_square, [(x,) for x in range(6)], jobs, fork=fork, while_waiting=lambda: calls.append(1))
    assert results == [x * x for x in range(6)] and calls == [1]


def test_while_waiting_runs_once_the_forked_workers_are_running() -> None:
    """The point of the hook: the parent's slow import overlaps the workers' work, so they exist when it runs."""
    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    before = set(multiprocessing.active_children())  # e.g. joblib's reusable workers from other tests
    workers_seen = []
    hook = lambda: workers_seen.append(len(set(multiprocessing.active_children()) - before))  # noqa: E731
    assert parallel_map(_square, [(x,) for x in range(4)], 2, fork=True, while_waiting=hook) == [0, 1, 4, 9]
    assert workers_seen == [1]  # the hook's own core is left free: one worker fewer than jobs


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_the_caller_runs_the_tasks_no_worker_has_started_once_its_own_work_is_done() -> None:
    """The caller's hook has a core of its own (one worker fewer); after it, the caller takes the unstarted tasks
    from the end of the list instead of waiting for the worker, and the results stay in order."""
    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    tasks = [(0.5,)] + [(0.0,)] * 7  # the only worker is busy with the first task for half a second
    pids = parallel_map(_pid_after, tasks, 2, fork=True, while_waiting=lambda: None)
    assert len(pids) == 8
    # The pool queues at most two tasks ahead for its one worker, and that worker sleeps: the last task is still
    # unstarted when the caller looks, so the caller ran it (before this change every task ran in a worker).
    assert pids[-1] == os.getpid()


def _call(function) -> int:
    return function()


@pytest.mark.parametrize("hook", [None, lambda: None], ids=["workers-only", "caller-steals"])
def test_forked_workers_take_their_arguments_from_the_fork_not_from_a_pickle(hook) -> None:
    """Forked workers inherit the tasks' arguments (a collection's documents are not pickled to them): arguments
    that cannot be pickled at all still reach them."""
    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    unpicklable = [(lambda: 1,), (lambda: 2,), (lambda: 3,), (lambda: 4,)]
    assert parallel_map(_call, unpicklable, 2, fork=True, while_waiting=hook) == [1, 2, 3, 4]


@pytest.mark.parametrize(("total", "jobs"), [(21_578, 2), (2_544, 2), (1_000_000, 8), (201, 2), (50, 4), (7, 2)])
def test_guided_chunks_cover_the_collection_and_shrink_towards_the_end(total: int, jobs: int) -> None:
    sizes = guided_chunk_sizes(total, jobs)
    assert sum(sizes) == total and all(size > 0 for size in sizes)
    assert all(a >= b for a, b in itertools.pairwise(sizes))  # the smallest last: little is left to wait for
    assert all(size >= MIN_CHUNK_DOCUMENTS for size in sizes[:-1])  # none so small its traffic outweighs it
    assert sizes[0] == min(total, max(-(-total // (2 * jobs)), MIN_CHUNK_DOCUMENTS))


def _fail() -> None:
    raise RuntimeError("import failed")


def test_a_failing_while_waiting_leaves_no_worker_behind() -> None:
    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError, match="import failed"):
        parallel_map(_square, [(x,) for x in range(4)], 2, fork=True, while_waiting=_fail)
    assert set(multiprocessing.active_children()) - before == set()
