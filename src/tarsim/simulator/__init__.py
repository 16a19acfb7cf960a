"""The review simulator: SimPy reviewer and learner processes writing an append-only ledger."""

from tarsim.config.review import STRATEGIES, Budget, ReviewConfig, strategy_config
from tarsim.data.ledger import Ledger, iter_ledger_paths, ledger_from_lines, read_ledger
from tarsim.simulator.ledger import LedgerWriter
from tarsim.simulator.run import ReviewBatch, TopicOutcome, ledger_name, review_topics

__all__ = [
    "STRATEGIES",
    "Budget",
    "Ledger",
    "LedgerWriter",
    "ReviewBatch",
    "ReviewConfig",
    "TopicOutcome",
    "iter_ledger_paths",
    "ledger_from_lines",
    "ledger_name",
    "read_ledger",
    "review_topics",
    "strategy_config",
]
