"""`tarsim data list | fetch NAME | convert NAME SRC DEST | import FILE DEST | sentence-qrels`: registry, downloads,
converters, passage judgments to sentence qrels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tarsim.cli.common import plain_int
from tarsim.data.export import default_query, write_dataset_directory
from tarsim.datasets.catalogue import REGISTRY, data_dir, describe_size, fetch, get_entry
from tarsim.datasets.converters import COLLECTIONS, convert_collection, describe, record_counts
from tarsim.errors import InputError
from tarsim.interop.screening import screening_dataset
from tarsim.legal.convert import BENCHMARKS, convert
from tarsim.version import __version__


def register(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    sub.add_parser("list", help="datasets with their addresses, sizes, licences and checksums")
    fetch_parser = sub.add_parser("fetch", help="download a dataset (checksums verified where known)")
    fetch_parser.add_argument("name", help="dataset name (see `tarsim data list`)")
    fetch_parser.add_argument("--dir", type=Path, help="download folder (default: the cache, see `list`)")
    fetch_parser.add_argument("--quiet", action="store_true", help="no progress bar")
    convert_parser = sub.add_parser(
        "convert", help="convert published files to tarsim benchmark or collection directories"
    )
    convert_parser.add_argument("name", choices=(*BENCHMARKS, *COLLECTIONS))
    convert_parser.add_argument("source", type=Path, help="published files (folder, zip or tar.gz)")
    convert_parser.add_argument("destination", type=Path, help="directory to write (srd: one folder per set)")
    convert_parser.add_argument("--seed", type=plain_int, default=0, help="split seed (reuters-doc2doc)")
    convert_parser.add_argument("--qrels", type=Path, metavar="FILE", help="TREC qrels (trec, clef-tar)")
    convert_parser.add_argument("--topics", type=Path, metavar="FILE", help="TREC topic file, <top>...</top> (trec)")
    clef = convert_parser.add_argument_group("clef-tar (docs/clef.md); --qrels defaults to SOURCE's qrels/ file")
    clef.add_argument("--texts", type=Path, action="append", default=[], metavar="FILE", help="PubMed XML or JSONL")
    clef.add_argument("--level", choices=["abstract", "content"], default="abstract", help="qrels level")
    clef.add_argument("--topic-id", action="append", default=[], metavar="ID", help="convert only this topic")
    sentence_parser = sub.add_parser(
        "sentence-qrels", help="passage judgments (HARD 2004: topic docid offset length) to sentence qrels"
    )
    sentence_parser.add_argument("--passages", type=Path, required=True, metavar="FILE", help="passage judgments")
    sentence_parser.add_argument("--collection", type=Path, required=True, metavar="DIR", help="collection directory")
    sentence_parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="sentence qrels to write")
    import_parser = sub.add_parser(
        "import", help="write a screening file (.csv .tsv .xlsx .ris) as a collection directory"
    )
    import_parser.add_argument("file", type=Path, help="screening file, read as `simulate --collection FILE` reads it")
    import_parser.add_argument("destination", type=Path, help="new collection directory to write")
    import_parser.add_argument("--unlabelled", choices=["error", "skip"], default="error", help="unlabelled records")
    import_parser.add_argument("--query", help="query text for topics.tsv (default: the topic name)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.data_command == "list":
        print(f"cache: {data_dir()} (set TARSIM_DATA_DIR to change)")
        for entry in REGISTRY.values():
            print(f"\n{entry.name}: {entry.description}")
            print(f"  homepage: {entry.homepage}")
            print(f"  licence:  {entry.licence}")
            if not entry.files:
                print("  files:    no known download address")
            for file in entry.files:
                checksum = f"sha256 {file.sha256}" if file.sha256 else "checksum unknown"
                print(f"  file:     {file.filename}  {file.url}  ({describe_size(file)}; {checksum})")
            if entry.notes:
                print(f"  note:     {entry.notes}")
        return 0
    if args.data_command == "fetch":
        folder = fetch(get_entry(args.name), directory=args.dir, progress=not args.quiet)
        print(f"{args.name}: files in {folder}", file=sys.stderr)
        return 0
    if args.data_command == "import":
        return import_screening_file(args)
    if args.data_command == "sentence-qrels":
        return sentence_qrels(args)
    _check_destination(Path(args.destination))  # before any work: a loop, a FIFO, a link to nothing on the way
    if args.name == "trec":
        convert_collection("trec", args.source, args.destination, report, qrels=args.qrels, topics=args.topics)
        return 0
    if args.name == "clef-tar":
        options = {"qrels": args.qrels, "texts": args.texts, "level": args.level, "topic_ids": args.topic_id}
        convert_collection("clef-tar", args.source, args.destination, report, **options)
        return 0
    convert(args.name, args.source, args.destination, seed=args.seed, report=report)
    return 0


def import_screening_file(args: argparse.Namespace) -> int:
    """Write a screening file as a collection directory; say how many records were read and how many kept, on
    stderr and in the directory's manifest.json."""
    _check_destination(args.destination)  # before any work
    dataset, left_out = screening_dataset(args.file, unlabelled=args.unlabelled)
    read, kept = record_counts(dataset)
    manifest = {
        "source": Path(args.file).name,
        "topic": dataset.name,
        "records_read": read,
        "records_kept": kept,
        "unlabelled_left_out": [record.as_json() for record in left_out],
        "tarsim_version": __version__,
    }
    try:
        write_dataset_directory(dataset, args.destination, query=args.query, manifest=manifest)
    except OSError as error:  # named by the destination, never by the hidden temporary folder written beside it
        problem = f"cannot write the collection there: {error.strerror or error}"
        raise InputError(args.destination, None, problem) from None
    query = args.query or default_query(dataset.name)
    counts = f"{read} record{'' if read == 1 else 's'} read, {kept} kept"
    print(f"{dataset.name}: {counts}; {describe(dataset)} -> {args.destination} (query: {query!r})", file=sys.stderr)
    return 0


def _check_destination(destination: Path) -> None:
    """Refuse a destination that cannot become a folder, in one line naming it: a FIFO or a device, a symlink loop
    or a symlink to nothing (itself or a folder on its way), a file on its way (the temporary folder's name was
    shown instead, or "File exists"). An existing file or folder is left to the writer (it refuses a non-empty one)."""
    from tarsim.data.regular_files import existing_path_problem, is_regular_file

    problem = existing_path_problem(destination, "folder")
    if problem is not None and not is_regular_file(destination):
        raise InputError(destination, None, f"{problem}; choose a new destination")


def report(line: str) -> None:
    """Progress lines go to standard error."""
    print(line, file=sys.stderr)


def sentence_qrels(args: argparse.Namespace) -> int:
    """Write the sentence qrels of the passages: every sentence overlapping a relevant passage is relevant."""
    from tarsim.data.collection import read_collection
    from tarsim.data.dataset import find_docs_file
    from tarsim.data.paths import check_output_path
    from tarsim.data.qrels import write_sentence_qrels
    from tarsim.interop.passages import passage_sentence_qrels, read_passages

    check_output_path(args.out, "--out")  # refused before any work
    passages = read_passages(args.passages)
    qrels = passage_sentence_qrels(passages, read_collection(find_docs_file(args.collection)))
    write_sentence_qrels(args.out, qrels)
    count = sum(len(sentences) for documents in qrels.values() for sentences in documents.values())
    spans = sum(len(spans) for documents in passages.values() for spans in documents.values())
    print(f"{spans} passage(s) -> {count} relevant sentence(s) in {len(qrels)} topic(s) -> {args.out}", file=sys.stderr)
    return 0
