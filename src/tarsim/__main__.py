"""`python -m tarsim`."""

from tarsim.cli import run

run()
