"""Components declared once: a registry per kind, declared parameters, one spec grammar, plugins by entry point.

`make("policy", "mix:0.2")` builds a component from its spec; `validate(kind, spec)` checks one without building;
`components(kind)` lists a kind's classes (plugins included). See docs/architecture.md.
"""

from tarsim.components.lookup import KINDS, components, kind, make, register, validate
from tarsim.components.params import Param
from tarsim.components.registry import Kind, params_of, signature, summary
from tarsim.components.spec import Spec, parse_spec, split_top_level

PLUGIN_GROUPS = {
    "learner": "tarsim.learners",
    "features": "tarsim.features",
    "policy": "tarsim.policies",
    "batch": "tarsim.batches",
    "effort": "tarsim.effort_models",
    "oracle": "tarsim.oracles",
    "stopping": "tarsim.stopping",
    "preset": "tarsim.presets",
}
"""The entry-point group through which a third-party package adds components of each kind."""

__all__ = [
    "KINDS",
    "PLUGIN_GROUPS",
    "Kind",
    "Param",
    "Spec",
    "components",
    "kind",
    "make",
    "params_of",
    "parse_spec",
    "register",
    "signature",
    "split_top_level",
    "summary",
    "validate",
]
