"""The Python API: `simulate(...)` reviews a dataset as `tarsim simulate` does; `review_rounds(...)` steps one.

May import: every stage below it; nothing imports it but the CLI and tarsim's own lazy attributes."""

from tarsim.api.review import SimulationResult, simulate
from tarsim.api.rounds import RoundState, review_rounds

__all__ = ["RoundState", "SimulationResult", "review_rounds", "simulate"]
