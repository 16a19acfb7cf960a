"""`tarsim list [KIND]`: every component tarsim knows (plugins included), with its parameters and defaults."""

from __future__ import annotations

import argparse

KIND_ORDER = ("learner", "features", "policy", "batch", "effort", "oracle", "stopping", "preset")


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        nargs="?",
        choices=KIND_ORDER,
        metavar="KIND",
        help=f"one kind of component ({', '.join(KIND_ORDER)}; default: all)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.components import kind
    from tarsim.components.listing import format_kind

    print("\n\n".join(format_kind(kind(key)) for key in ([args.kind] if args.kind else KIND_ORDER)))
    return 0
