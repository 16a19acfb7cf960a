"""The process runtime: worker pools for parallel work and SIGTERM handled as Ctrl-C.

May import: tarsim.errors only (it sits under every stage)."""
