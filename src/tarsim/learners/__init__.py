"""Matrices into scores: the named learners (scikit-learn classifiers), tarsim's own estimators, Pegasos, scoring.

May import: tarsim.components, tarsim.runtime, tarsim.errors (not features, not the simulator)."""
