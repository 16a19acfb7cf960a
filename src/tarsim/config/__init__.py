"""The one configuration schema of a review: ReviewConfig (every setting declared once), presets, and the reading
of older ledger headers. What metrics and reports read to interpret a ledger's header, without the simulator.

May import: tarsim.features, tarsim.learners, tarsim.policies, tarsim.effort_models, tarsim.interop and below."""
