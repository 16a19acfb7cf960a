"""The target method's random sample: drawn before review, from the collection, until T relevant are found."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

TARGET_STREAM = 5
"""Stream number of the target sample (the simulator's own streams use 1-4)."""


@dataclass(frozen=True)
class TargetSample:
    """The documents sampled (in draw order) and the relevant ones among them (the targets)."""

    sampled: tuple[str, ...]
    targets: tuple[str, ...]


def target_rng(seed: int, topic: str) -> np.random.Generator:
    """The sample's generator: fixed by the review's seed and topic, so a replay draws the same sample."""
    return np.random.default_rng([seed, zlib.crc32(topic.encode("utf-8")), TARGET_STREAM])


def draw_target_sample(
    docids: Sequence[str], judged: Mapping[str, int], targets: int, seed: int, topic: str
) -> TargetSample:
    """Draw documents uniformly without replacement, in a seeded order, until `targets` relevant ones are found.

    A topic with fewer relevant documents than `targets` samples the whole collection (every relevant one is a
    target). Relevance is the qrels grade (> 0); a document absent from the qrels is non-relevant.
    """
    order = target_rng(seed, topic).permutation(len(docids))
    sampled: list[str] = []
    found: list[str] = []
    for index in order:
        docid = docids[int(index)]
        sampled.append(docid)
        if judged.get(docid, 0) > 0:
            found.append(docid)
            if len(found) == targets:
                break
    return TargetSample(tuple(sampled), tuple(found))
