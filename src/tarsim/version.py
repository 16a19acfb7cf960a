"""tarsim's version: recorded in every ledger header and results table, printed by `tarsim --version`."""

__version__ = "0.1.0"
