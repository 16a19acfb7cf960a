"""`tarsim data convert clef-tar`: the real CLEF TAR 2017 topics and qrels (../shared), small texts files written
for the tests (tests/fixtures/clef_tar), the 2018 and 2019 layouts on small files in their published form, and
bad input reported in one line naming the file and the line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import shared_dataset
from tarsim.cli import main
from tarsim.data.dataset import load_collection_directory
from tarsim.interop.clef_tar import read_topic_file
from tarsim.interop.pubmed_xml import iter_pubmed_xml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "clef_tar"
XML = FIXTURES / "pubmed_CD008760.xml"
JSONL = FIXTURES / "texts_CD008760.jsonl"
CLEF2017_TEST_TOPICS = ("CD008081", "CD008760", "CD009135", "CD009372", "CD009786", "CD010023", "CD010705")
"""The seven topics of ../shared/datasets/clef2017 that are CLEF TAR 2017 test topics (the other three trained)."""


def convert(capsys, *argv: object) -> tuple[int, str]:
    code = main(["data", "convert", "clef-tar", *map(str, argv)])
    return code, capsys.readouterr().err


def one_error(capsys, *argv: object) -> str:
    """The one-line message of a refused convert (exit 2, no traceback)."""
    code, err = convert(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def docs(folder: Path) -> dict[str, tuple[str, str]]:
    dataset = load_collection_directory(folder)
    return {d.docid: (d.title, d.text) for d in dataset.collection}


# ---- the real 2017 release (topics + qrels) with the texts written here -------------------------------------


def test_real_2017_topic_with_jsonl_texts(tmp_path, capsys):
    release = shared_dataset("raw", "clef_tar_2017")
    code, err = convert(capsys, release, tmp_path / "out", "--texts", JSONL, "--topic-id", "CD008760")
    assert code == 0, err
    assert "texts: 4 records read, 3 of the topics' pmids found" in err
    assert (
        "CD008760: 64 pmids listed, 3 texts found (1 title only), 61 without text (kept empty), "
        "12 relevant at the abstract level" in err
    )
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["CD008760"]
    dataset = load_collection_directory(tmp_path / "out" / "CD008760")
    assert len(dataset.collection) == 64 and dataset.collection.docids[0] == "23593613"  # the topic file's order
    texts = docs(tmp_path / "out" / "CD008760")
    assert texts["23593613"] == ("Jejunal varices: a written test record.", "A short abstract written for the tests.")
    assert texts["21624583"] == ("A title-only written test record.", "")
    assert texts["19809355"] == ("", "")  # listed, no text: kept, as ASReview keeps empty records
    assert "99999991" not in texts
    assert sum(dataset.qrels["CD008760"].values()) == 12 and len(dataset.qrels["CD008760"]) == 64
    assert dataset.topics == {
        "CD008760": "Capsule endoscopy for the diagnosis of oesophageal varices in people with chronic liver disease "
        "or portal vein thrombosis"
    }


def test_real_2017_topic_with_pubmed_xml_at_content_level(tmp_path, capsys):
    release = shared_dataset("raw", "clef_tar_2017")
    code, err = convert(
        capsys, release / "topics", tmp_path / "out", "--texts", XML, "--topic-id", "CD008760", "--level", "content"
    )
    assert code == 0, err
    assert "3 texts found (1 title only), 61 without text (kept empty), 9 relevant at the content level" in err
    texts = docs(tmp_path / "out" / "CD008760")
    assert texts["18082473"] == (
        "Capsule endoscopy for oesophageal varices: a written test record.",
        "BACKGROUND: Varices are common in cirrhosis. METHODS: Patients swallowed a capsule. "
        "RESULTS: Sensitivity was 84% (95% CI 70\u201392).",
    )
    assert texts["18058656"] == (
        "Oesophageal capsule versus endoscopy & banding: a written test record.",
        "An unlabelled abstract with H2O in it.",
    )
    qrels = load_collection_directory(tmp_path / "out" / "CD008760").qrels["CD008760"]
    assert qrels["18082473"] == 1 and qrels["18058656"] == 0  # relevant after screening, excluded on full text


def test_two_text_sources_the_last_text_wins(tmp_path, capsys):
    release = shared_dataset("raw", "clef_tar_2017")
    code, err = convert(capsys, release, tmp_path / "out", "--texts", XML, "--texts", JSONL, "--topic-id", "CD008760")
    assert code == 0, err
    assert "texts: 1 pmid(s) found again with another text; the last one kept" in err
    assert "4 texts found (1 title only), 60 without text" in err
    assert docs(tmp_path / "out" / "CD008760")["18082473"][1] == "Its abstract, in the JSON lines form."


@pytest.mark.slow
def test_seven_clef2017_topics_equal_the_shared_collections(tmp_path, capsys):
    """The texts of ../shared/datasets/clef2017's seven 2017 test topics, as a JSON-lines source in auto-stop-tar's
    form, convert to the same documents (in order), texts, qrels and query; simulate and a sweep run on the result."""
    release = shared_dataset("raw", "clef_tar_2017")
    clef2017 = shared_dataset("clef2017")
    source = tmp_path / "texts.jsonl"
    with source.open("w", encoding="utf-8") as out:
        for topic in CLEF2017_TEST_TOPICS:
            for line in (clef2017 / topic / "docs.jsonl").read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                content = f"{record['title']} {record['text']}".strip()
                out.write(json.dumps({"id": record["docid"], "title": record["title"], "content": content}) + "\n")
    selection = [arg for topic in CLEF2017_TEST_TOPICS for arg in ("--topic-id", topic)]
    code, err = convert(capsys, release, tmp_path / "out", "--texts", source, *selection)
    assert code == 0, err
    for topic in CLEF2017_TEST_TOPICS:
        ours = load_collection_directory(tmp_path / "out" / topic)
        shared = load_collection_directory(clef2017 / topic)
        assert list(ours.collection) == list(shared.collection), topic
        assert ours.qrels == shared.qrels and ours.topics == shared.topics, topic
        assert f"{topic}: {len(shared.collection)} pmids listed, {len(shared.collection)} texts found" in err
    assert main(["simulate", "--collection", str(tmp_path / "out" / "CD008760"), "--out", str(tmp_path / "sim")]) == 0
    config = tmp_path / "sweep.toml"
    config.write_text(
        '[sweep]\nout = "sweep"\nseeds = 1\npolicies = ["relevance"]\n\n[[collections]]\npath = "out/*"\n'
    )
    capsys.readouterr()
    assert main(["sweep", str(config), "--dry-run"]) == 0
    assert "7 run(s) planned" in capsys.readouterr().err


# ---- the 2018 and 2019 layouts, on small files in their published form ---------------------------------------

TOPIC_2018 = (
    "Topic: CD008122 \n\nTitle: Rapid diagnostic tests for diagnosing uncomplicated P. falciparum malaria in endemic "
    "countries \n\nQuery: \nExp Malaria/\nMalaria.ti,ab\n1 or 2\nlimit 3 to ed=19400101-20100114 \n\nPids: \n"
    "    19164769 \n    9557953 \n    7688346 \n    18509532 \n    17912355 "
)
"""2018 Task 2 topic file's form (its last pid line has no line end, as one of the real files)."""


def write_2018_release(root: Path) -> Path:
    """2018-TAR/Task2/Testing: topics/ and qrels/ with relevant-only files (CRLF, two trailing spaces) and full ones."""
    (root / "topics").mkdir(parents=True)
    (root / "qrels").mkdir()
    (root / "topics" / "CD008122").write_text(TOPIC_2018, encoding="utf-8")
    (root / "topics" / "CD010680").write_text(
        "Topic: CD010680 \n\nTitle: Ankle brachial index for the diagnosis of lower limb peripheral arterial disease "
        "\n\nQuery: \nAnkle Brachial Index/\n\nPids: \n    19366974 \n    11943002 \n",
        encoding="utf-8",
    )
    (root / "qrels" / "qrel_abs_task2").write_bytes(
        b"CD008122     0  9557953      1  \r\nCD008122     0  18509532     1  \r\nCD010680     0  19366974     1  \r\n"
    )
    # relevant-only at the content level: CD010680, without a relevant document, has no line (as in the release)
    (root / "qrels" / "qrel_content_task2").write_bytes(b"CD008122     0  18509532     1  \r\n")
    full = "".join(f"CD008122\t0\t{pid}\t{int(pid in ('9557953', '18509532'))}\n" for pid in TOPIC_2018.split()[-5:])
    full += "CD010680\t0\t19366974\t1\nCD010680\t0\t11943002\t0\n"
    (root / "qrels" / "full.test.abs.2018.qrels").write_text(full, encoding="utf-8")
    return root


def test_2018_task2_layout_relevant_only_qrels(tmp_path, capsys):
    release = write_2018_release(tmp_path / "Testing")
    topic = read_topic_file(release / "topics" / "CD008122")
    assert topic.pids == ("19164769", "9557953", "7688346", "18509532", "17912355")
    assert topic.query.splitlines()[0] == "Exp Malaria/" and topic.title.endswith("in endemic countries")
    message = one_error(capsys, release, tmp_path / "out", "--texts", JSONL)  # two abstract files: which?
    assert "2 qrels files for the abstract level (full.test.abs.2018.qrels, qrel_abs_task2)" in message
    qrels = release / "qrels" / "qrel_abs_task2"
    code, err = convert(capsys, release, tmp_path / "out", "--texts", JSONL, "--qrels", qrels)
    assert code == 0, err
    assert "CD008122: 5 pmids listed, 0 texts found (0 title only), 5 without text (kept empty), 2 relevant" in err
    judged = load_collection_directory(tmp_path / "out" / "CD008122").qrels["CD008122"]
    assert judged == {"19164769": 0, "9557953": 1, "7688346": 0, "18509532": 1, "17912355": 0}  # unlisted: 0
    code, err = convert(capsys, release, tmp_path / "content", "--texts", JSONL, "--level", "content")
    assert code == 0, err
    assert "CD008122: 5 pmids listed" in err and "1 relevant at the content level" in err  # found by its name
    assert "CD010680: 2 pmids listed, 0 texts found (0 title only), 2 without text (kept empty), 0 relevant" in err


def test_2019_layout_per_review_type_full_qrels(tmp_path, capsys):
    dta = tmp_path / "2019-TAR" / "Task2" / "Testing" / "DTA"
    (dta / "topics").mkdir(parents=True)
    (dta / "qrels").mkdir()
    pids = ["21354999", "20063135", "22626676", "4061790"]
    (dta / "topics" / "CD008874").write_text(
        "Topic: CD008874 \n\nTitle: Airway physical examination tests for detection of difficult airway management "
        "in apparently normal adult patients \n\nQuery: \n((airway* adj3 (test* or assess*))).ti,ab.\n1 and 2\n"
        "limit 5 to ED=19460101-20161216 \n\nPids: \n" + "".join(f"    {pid} \n" for pid in pids),
        encoding="utf-8",
    )
    for level, relevant in (("abs", {"22626676", "4061790"}), ("content", {"4061790"})):
        lines = "".join(f"CD008874     0  {pid:<8}     {int(pid in relevant)}  \n" for pid in pids)
        (dta / "qrels" / f"full.test.dta.{level}.2019.qrels").write_text(lines, encoding="utf-8")
    for level, relevant in (("abstract", 2), ("content", 1)):
        code, err = convert(capsys, dta, tmp_path / level, "--texts", XML, "--level", level)
        assert code == 0, err
        assert (
            f"CD008874: 4 pmids listed, 0 texts found (0 title only), 4 without text (kept empty), {relevant} " in err
        )


def test_combined_graded_qrels_give_either_level(tmp_path, capsys):
    """The task's combined qrels (test.clef2017.qrels: 0, 1 abstract, 2 content; 3 and 4 outside the pool)."""
    topics = tmp_path / "topics"
    topics.mkdir()
    (topics / "5").write_text(TOPIC_2018, encoding="utf-8")
    grades = {"19164769": 0, "9557953": 1, "7688346": 2, "18509532": -1, "17912355": 0, "11111111": 4}
    qrels = tmp_path / "test.clef2017.qrels"
    qrels.write_text("".join(f"CD008122\t0\t{pid}\t{grade}\n" for pid, grade in grades.items()), encoding="utf-8")
    for level, relevant in (("abstract", 2), ("content", 1)):
        code, err = convert(capsys, topics, tmp_path / level, "--texts", JSONL, "--qrels", qrels, "--level", level)
        assert code == 0, err
        assert (
            f"{relevant} relevant at the {level} level; 1 judged pmid(s) outside the pool left out (1 relevant)" in err
        )


def test_2017_training_topic_review_id_line_repeated_pids_and_icon_file(tmp_path, capsys):
    topics = tmp_path / "topics_train"
    topics.mkdir()
    (topics / "38").write_text(
        "Topic: CD009591 \n\nTitle: Imaging modalities for common bile duct stones \n\nQuery: \n(bile duct[tiab])\n\n"
        "Pids: \n    review_ID: 38\n    \n    20301599\n    20301551\n    20301599\n",
        encoding="utf-8",
    )
    (topics / "Icon\r").write_bytes(b"")  # macOS's folder icon file, as in the 2017 training topics folder
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "qrel_abs_train").write_text("CD009591 0 20301599 1\nCD009591 0 20301551 0\n")
    code, err = convert(capsys, tmp_path, tmp_path / "out", "--texts", JSONL)
    assert code == 0, err
    assert "CD009591: 2 pmids listed (1 repeated lines kept once), 0 texts found" in err
    assert load_collection_directory(tmp_path / "out" / "CD009591").collection.docids == ["20301599", "20301551"]


def test_pubmed_xml_reader_keeps_the_citation_pmid():
    records = list(iter_pubmed_xml(XML))
    assert [r.pmid for r in records] == ["18082473", "18058656", "21624583", "99999991"]  # not CommentsCorrections'
    assert [r.line for r in records] == [4, 26, 37, 45]


def test_texts_folder_of_extensionless_and_gzip_files(tmp_path, capsys):
    """auto-stop-tar's `doctexts/<topic>` files have no extension, PubMed's baseline files are .xml.gz: a folder of
    both reads by content."""
    topic = "Topic: CD008760\n\nTitle: Capsule endoscopy\n\nQuery:\nx\n\nPids:\n    18082473\n    23593613\n    1\n"
    release = small_release(tmp_path / "rel", topic, "CD008760 0 18082473 1\n")
    folder = tmp_path / "doctexts"
    folder.mkdir()
    (folder / "CD008760").write_bytes(JSONL.read_bytes())
    with gzip.open(folder / "pubmed23n0001.xml.gz", "wb") as out:
        out.write(XML.read_bytes().replace(b"18082473", b"1"))
    code, err = convert(capsys, release, tmp_path / "out", "--texts", folder)
    assert code == 0, err
    assert "CD008760: 3 pmids listed, 3 texts found (0 title only), 0 without text (kept empty), 1 relevant" in err
    assert docs(tmp_path / "out" / "CD008760")["1"][1].startswith("BACKGROUND: Varices are common in cirrhosis.")


# ---- bad input: one line naming the file and the line --------------------------------------------------------


def small_release(root: Path, topic_text: str = TOPIC_2018, qrels: str = "CD008122 0 9557953 1\n") -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "qrels").mkdir()
    (root / "topics" / "CD008122").write_text(topic_text, encoding="utf-8")
    (root / "qrels" / "qrel_abs_test.txt").write_text(qrels, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("topic_text", "where", "problem"),
    [
        ("Title: no topic line\n\nPids:\n  1\n", "CD008122:1:", "expected `Topic: ID` first"),
        ("\nTopic: CD008122\nTitle: T\nPids:\n    123\n    12a4\n", "CD008122:6:", "a pid is a PubMed id"),
        ("Topic: CD008122\nTitle: T\nPids:\n  1\nTitle: again\n", "CD008122:5:", "a second `Title:` section"),
        ("Topic: CD008122\n\nTitle: T\n\nObjective: \nTo assess.\n", "CD008122:5:", "a Task 1 topic"),
        ("Topic: CD008122\nPids:\n  1\n", "CD008122:1:", "no `Title:` text"),
    ],
)
def test_bad_topic_file_is_one_line(tmp_path, capsys, topic_text, where, problem):
    release = small_release(tmp_path / "rel", topic_text)
    message = one_error(capsys, release, tmp_path / "out", "--texts", JSONL)
    assert where in message and problem in message
    assert not (tmp_path / "out").exists()


def test_qrels_line_for_an_unknown_topic(tmp_path, capsys):
    release = small_release(tmp_path / "rel", qrels="CD008122 0 9557953 1\nCD000001 0 123 1\n")
    message = one_error(capsys, release, tmp_path / "out", "--texts", JSONL)
    assert "qrel_abs_test.txt:2: topic CD000001 has no topic file among the topics given" in message


def test_bad_qrels_grade_and_columns(tmp_path, capsys):
    release = small_release(tmp_path / "rel", qrels="CD008122 0 9557953 1\nCD008122 0 7688346 7\n")
    assert "qrel_abs_test.txt:2: grade 7 is not a CLEF TAR grade" in one_error(
        capsys, release, tmp_path / "out", "--texts", JSONL
    )
    (release / "qrels" / "qrel_abs_test.txt").write_text("CD008122 0 9557953\n")
    assert "qrel_abs_test.txt:1: expected 4 columns" in one_error(capsys, release, tmp_path / "out", "--texts", JSONL)


@pytest.mark.parametrize(
    ("content", "where", "problem"),
    [
        ('{"id": "9557953", "title": "T"}\n{"id": 9557953, "title": 5}\n', ":2:", "'title' must be a string"),
        ('{"title": "no id"}\n', ":1:", 'no "id"'),
        ('{"id": "1"}\n{not json\n', ":2:", "invalid JSON"),
        ("PMID 1\n", ":1:", "neither PubMed XML"),
        ("\n", ": ", "empty file"),
        (
            '<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [\n<!ENTITY a "aaaa">\n<!ENTITY b "&a;&a;&a;">\n]>\n'
            "<PubmedArticleSet><PubmedArticle>&b;</PubmedArticle></PubmedArticleSet>\n",
            ":2:",
            "DTD internal subset",
        ),
        (
            "<PubmedArticleSet>\n<PubmedArticle>\n<MedlineCitation><PMID>1</PMID></MedlineCitation>\n"
            "</PubmedArticle>\n<PubmedArticle>\n<MedlineCitation><Article/></MedlineCitation>\n</PubmedArticle>\n",
            ":5:",
            "PubmedArticle without a PMID",
        ),
        ("<PubmedArticleSet>\n<PubmedArticle>&nbsp;</PubmedArticle>\n", ":2:", "undefined entity"),
        ("<PubmedArticleSet>\n<PubmedArticle>\n</PubmedArticleSet>\n", ":3:", "not well-formed XML"),
        ("<?xml version='1.0'?>\n<articles/>\n", ":2:", "root element is articles, expected PubmedArticleSet"),
    ],
)
def test_bad_texts_are_one_line(tmp_path, capsys, content, where, problem):
    release = small_release(tmp_path / "rel")
    texts = tmp_path / "texts"
    texts.write_text(content, encoding="utf-8")
    message = one_error(capsys, release, tmp_path / "out", "--texts", texts)
    assert f"{texts}{where}" in message and problem in message, message
    assert not (tmp_path / "out").exists()


def test_options_and_destination_are_checked_before_writing(tmp_path, capsys):
    release = small_release(tmp_path / "rel")
    assert "needs --texts" in one_error(capsys, release, tmp_path / "out")
    assert "--topic-id CD999: no such topic" in one_error(
        capsys, release, tmp_path / "out", "--texts", JSONL, "--topic-id", "CD999"
    )
    (tmp_path / "out" / "CD008122").mkdir(parents=True)
    (tmp_path / "out" / "CD008122" / "keep.txt").write_text("mine")
    assert "already exists" in one_error(capsys, release, tmp_path / "out", "--texts", JSONL)
    assert (tmp_path / "out" / "CD008122" / "keep.txt").read_text() == "mine"
    assert "no qrels/ folder" in one_error(capsys, release / "topics" / "CD008122", tmp_path / "new", "--texts", JSONL)
