"""Components as text: what `tarsim list` prints (name, summary, parameters with accepted values and defaults)."""

from __future__ import annotations

from tarsim.components.registry import Kind, params_of, signature, summary


def format_kind(kind: Kind) -> str:
    """A heading for the kind, then each component: its spec form and summary, and one line per parameter."""
    lines = [f"{kind.key} ({kind.label}; plugins: entry-point group {kind.group})"]
    for name in kind.names():
        cls = kind.components[name]
        lines.append(f"  {signature(cls)}  {summary(cls)}")
        for param in params_of(cls):
            lines.append(f"      {param.describe()}")
    lines.extend(f"  {form}" for form in kind.extra_forms)
    return "\n".join(lines)
