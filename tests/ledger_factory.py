"""Hand-built ledgers for tests: a ledger whose judgments are given column by column."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tarsim.data.ledger import Ledger, ledger_from_lines


def ledger_lines(
    truth: Sequence[int],
    labels: Sequence[int] | None = None,
    rounds: Sequence[int] | None = None,
    *,
    topic: str = "t",
    policy: str = "relevance",
    seed: int = 0,
    size: int = 1000,
    relevant: int | None = None,
    sent: Sequence[int] | None = None,
    words_per_sentence: float = 10,
    seconds_per_sentence: float = 2.0,
    docids: Sequence[str] | None = None,
    first_time: float = 1.0,
    reason: str = "all relevant documents presented",
    stopping: Sequence[str] = (),
    config: dict | None = None,
    inputs: dict | None = None,
) -> list[str]:
    """Ledger lines: judgment i presents docids[i] (default d<i>) with qrels grade truth[i] at time first_time + i."""
    n = len(truth)
    labels = [int(t > 0) for t in truth] if labels is None else list(labels)  # a reviewer labels 0 or 1
    rounds = list(range(1, n + 1)) if rounds is None else list(rounds)
    sent = [1] * n if sent is None else list(sent)
    docids = [f"d{i}" for i in range(n)] if docids is None else list(docids)
    header = {
        "type": "header",
        "format": 1,
        "topic": topic,
        "seed": seed,
        "collection_size": size,
        "relevant": sum(1 for t in truth if t > 0) if relevant is None else relevant,
        "config": {
            "strategy": "document/document",
            "policy": policy,
            "seed": seed,
            "stopping": list(stopping),
            **(config or {}),
        },
    }
    if inputs is not None:
        header["inputs"] = inputs
    lines = [json.dumps(header)]
    for i in range(n):
        effort = {
            "judge": 1,
            "sent": sent[i],
            "words": words_per_sentence * sent[i],
            "seconds": seconds_per_sentence * sent[i],
        }
        record = {
            "type": "judgment",
            "seq": i + 1,
            "time": first_time + i,
            "reviewer": 0,
            "round": rounds[i],
            "docid": docids[i],
            "sentence": None,
            "label": labels[i],
            "truth": truth[i],
            "effort": effort,
        }
        lines.append(json.dumps(record))
    lines.append(json.dumps({"type": "end", "reason": reason, "judgments": n}))
    return lines


def make_ledger(truth: Sequence[int], *args, **kwargs) -> Ledger:
    """A parsed ledger from ledger_lines' arguments."""
    return ledger_from_lines(ledger_lines(truth, *args, **kwargs))


def judgment_record(ledger: Ledger, index: int) -> dict:
    """The ledger's judgment `index` as the record a running review writes (LedgerSoFar.add_judgment takes it)."""
    sentence = int(ledger.sentence[index])
    return {
        "docid": ledger.docids[index],
        "sentence": None if sentence < 0 else sentence,
        **{name: int(getattr(ledger, name)[index]) for name in ("label", "truth", "reviewer", "round")},
        "time": float(ledger.time[index]),
        "effort": {key: float(values[index]) for key, values in ledger.effort.items()},
    }


def replayed_and_online_stop(ledger: Ledger, rule, context=None) -> int | None:
    """A rule's stop replayed on `ledger`, after checking that following it online (one judgment at a time, as a
    running review does) stops at the same judgment."""
    from tarsim.simulator.rounds import LedgerSoFar
    from tarsim.stopping import ReplayContext, parse_stopping_rule
    from tarsim.stopping.online import OnlineStopping

    context = context if context is not None else ReplayContext()
    replayed = (parse_stopping_rule(rule) if isinstance(rule, str) else rule).stop_position(ledger, context)
    online, so_far, fired = OnlineStopping([rule], context), LedgerSoFar(ledger.header, len(ledger)), None
    for index in range(len(ledger)):
        so_far.add_judgment(judgment_record(ledger, index))
        fired = online.check(so_far.view())
        if fired is not None:
            break
    if fired is None:
        fired = online.check(so_far.view(end=ledger.end))
    assert (fired.seq if fired else None) == replayed, rule
    return replayed


def older_ledger_body(lines: Sequence[str]) -> str:
    """A ledger's lines after its header (each ending in a newline) as a ledger written before the end record
    carried `header_sha256`: for tests that edit a header to stand for an older ledger, which such a digest would
    (rightly) refuse."""
    *body, end = [line if line.endswith("\n") else line + "\n" for line in lines]
    record = json.loads(end)
    record.pop("header_sha256", None)
    return "".join(body) + json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
