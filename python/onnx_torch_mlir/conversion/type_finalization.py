"""`finalize-torch-type-conversion`: no `builtin.unrealized_conversion_cast` left.

A cast of a cast back to the original type (`vtensor -> tensor -> vtensor`) is
the identity: its uses take the original value. Casts left without uses are
erased. A cast that remains means some value still has a builtin type (an op
that was not converted, or a signature the type pass does not handle); each is
reported at its location.
"""

from __future__ import annotations

from torch_mlir import ir

UNREALIZED_CAST = "builtin.unrealized_conversion_cast"


def _owner_op(value: ir.Value):
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) else None


def _casts(root: ir.Operation) -> list:
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name == UNREALIZED_CAST:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def fold_unrealized_casts(module_op: ir.Operation) -> list:
    """Fold cast pairs and erase dead casts; returns the casts that remain."""
    casts = _casts(module_op)
    for cast in casts:
        if len(cast.operands) != 1 or len(cast.results) != 1:
            continue
        producer = _owner_op(cast.operands[0])
        if producer is not None and producer.name == UNREALIZED_CAST and len(producer.operands) == 1:
            source = producer.operands[0]
            if source.type == cast.results[0].type:
                cast.results[0].replace_all_uses_with(source)
    remaining = []
    # Erase dead casts users-first (reverse program order), so a chain dies in one sweep.
    for cast in reversed(casts):
        if not any(True for _ in cast.results[0].uses):
            cast.erase()
        else:
            remaining.append(cast)
    return list(reversed(remaining))


def finalize_torch_type_conversion(module_op: ir.Operation) -> list[str]:
    """Fold the bridging casts; returns one message per cast that cannot be removed."""
    return [
        f"{cast.location}: value of type {cast.operands[0].type} is used as {cast.results[0].type}: "
        f"its producer or user was not converted to torch types"
        for cast in fold_unrealized_casts(module_op)
    ]
