"""The pattern registry: `(domain, op_type, since_version) -> pattern`.

A family module registers a pattern with the `converts` decorator:

    @converts("Add", since=7)
    def add(node: OnnxNode, b: TorchBuilder): ...

`lookup` picks, for a model whose opset for the op's domain is N, the newest
registration whose since_version is not above N (DESIGN §5). Registering the
same key twice is an error, so two families cannot silently fight over an op.
A pattern may also convert its node as other ONNX ops (`converted_as`: QOperator ops in their
QDQ form on TOSA), each then converted by its own registered pattern.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_DOMAIN = ""  # "" and "ai.onnx" are the same domain; the registry uses ""


def normalize_domain(domain: str | None) -> str:
    return DEFAULT_DOMAIN if domain in (None, "", "ai.onnx") else domain


def display_domain(domain: str) -> str:
    return "ai.onnx" if domain == DEFAULT_DOMAIN else domain


@dataclass(frozen=True)
class Registration:
    domain: str
    op_type: str
    since_version: int
    pattern: Callable
    module: str  # the family module, for the supported-ops document


# (domain, op_type) -> registrations sorted by since_version
_REGISTRY: dict[tuple[str, str], list[Registration]] = {}


def converts(op_type: str, since: int, domain: str = DEFAULT_DOMAIN):
    """Decorator: register `pattern(node, builder)` for `op_type` from opset `since` on.

    The pattern returns the replacement value(s): one `ir.Value` for a
    single-result op, a sequence for several results (None for an absent
    optional output), or None for an op without results.
    """
    domain = normalize_domain(domain)

    def register(pattern):
        registrations = _REGISTRY.setdefault((domain, op_type), [])
        if any(r.since_version == since for r in registrations):
            raise ValueError(
                f"a pattern for {op_type} (domain '{display_domain(domain)}', since {since}) is already registered"
            )
        registration = Registration(domain, op_type, since, pattern, pattern.__module__)
        index = bisect.bisect([r.since_version for r in registrations], since)
        registrations.insert(index, registration)
        return pattern

    return register


def lookup(domain: str, op_type: str, opset: int) -> Registration | None:
    """The newest registration for (domain, op_type) with since_version <= opset."""
    registrations = _REGISTRY.get((normalize_domain(domain), op_type), ())
    chosen = None
    for registration in registrations:
        if registration.since_version > opset:
            break
        chosen = registration
    return chosen


def registered_versions(domain: str, op_type: str) -> list[int]:
    return [r.since_version for r in _REGISTRY.get((normalize_domain(domain), op_type), ())]


def all_registrations() -> list[Registration]:
    """Every registration, sorted by domain, op type and since_version."""
    return [r for key in sorted(_REGISTRY) for r in _REGISTRY[key]]


def converted_as(node, nodes: list, opsets: dict):
    """`node`'s replacement values from `nodes`, ONNX NodeProtos that read its inputs as in<i> and
    define its outputs as out<i>, each converted by its registered pattern at `opsets`
    (functions.expand_into); UnsupportedNode when one does not convert, and nothing is left behind."""
    from .functions import expand_into  # the functions module imports this one

    return expand_into(node, nodes, opsets)
