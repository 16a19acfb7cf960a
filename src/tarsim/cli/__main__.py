"""`python -m tarsim.cli`."""

from tarsim.cli import run

run()
