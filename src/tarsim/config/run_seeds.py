"""The seed of a sweep's run, derived from the sweep's base seed and the run's identity: the sweep plans with it, and
the sweep file a report derives from ledger headers checks with it which policy a run's seed was derived from."""

from __future__ import annotations

import hashlib
import json

import numpy as np


def derive_seed(base_seed: int, collection: str, topic: str, policy: str, strategy: str, seed: int) -> int:
    """A 32-bit seed from the base seed and the run's identity (stable across processes and platforms)."""
    identity = json.dumps([collection, topic, policy, strategy, seed], ensure_ascii=False, separators=(",", ":"))
    words = np.frombuffer(hashlib.sha256(identity.encode("utf-8")).digest(), dtype="<u4")
    state = np.random.SeedSequence([base_seed, *words.tolist()]).generate_state(1, dtype=np.uint32)
    return int(state[0])
