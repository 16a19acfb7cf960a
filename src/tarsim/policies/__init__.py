"""What to show next: batch-size schedules, selection policies, seeding, and sentence choice."""

from tarsim.policies.batches import BatchSchedule, FixedBatches, GrowingBatches, make_batch_schedule
from tarsim.policies.seeding import SEEDING_CHOICES, SeedingChoice
from tarsim.policies.selection import (
    SELECTION_POLICIES,
    SelectionPolicy,
    make_selection_policy,
)

__all__ = [
    "SEEDING_CHOICES",
    "SELECTION_POLICIES",
    "BatchSchedule",
    "FixedBatches",
    "GrowingBatches",
    "SeedingChoice",
    "SelectionPolicy",
    "make_batch_schedule",
    "make_selection_policy",
]
