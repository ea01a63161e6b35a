"""Refuse, by node, a broadcasting Torch op whose static operand shapes do not broadcast.

A model can declare shapes that ONNX's (lenient) shape inference lets through, say a BitShift of a
`[5]` and a `[3]` tensor. torch-mlir's lowerings meet the op with those shapes: the Linalg and TOSA
ones fail with a verifier message about an op the user never wrote, and the StableHLO lowering of
`aten.bitwise_left_shift` aborts the process ("LLVM ERROR: Failed to infer result type(s)", found
by tools/fuzz.py). Checked before any backend lowering, it is one error naming the ONNX node.

The broadcasting ops are the `torch.aten.*.Tensor` and `.Scalar`-free `*.self` forms with two or
more tensor operands (`aten.add.Tensor`, `aten.where.self`, ...), except the few `.Tensor` ops whose
operands do not broadcast (`aten.bucketize.Tensor`: values and boundaries).
"""

from __future__ import annotations

import re

from torch_mlir import ir

from ...errors import PipelineError

_STATIC_SHAPE = re.compile(r"^!torch\.vtensor<\[([0-9,]*)\],")
_NOT_BROADCASTING = {"torch.aten.bucketize.Tensor", "torch.aten.searchsorted.Tensor"}


def _is_broadcasting(name: str) -> bool:
    return name.startswith("torch.aten.") and name.endswith((".Tensor", ".self")) and name not in _NOT_BROADCASTING


def _static_shape(value: ir.Value) -> list[int] | None:
    match = _STATIC_SHAPE.match(str(value.type))
    if match is None:
        return None
    return [int(dim) for dim in match.group(1).split(",")] if match.group(1) else []


def _broadcasts(shapes: list[list[int]]) -> bool:
    rank = max(len(shape) for shape in shapes)
    for position in range(1, rank + 1):
        sizes = {shape[-position] for shape in shapes if len(shape) >= position} - {1}
        if len(sizes) > 1:
            return False
    return True


def refuse_static_broadcast_mismatches(module: ir.Module) -> None:
    """Raise PipelineError at the first broadcasting op whose static tensor operands do not broadcast."""
    found = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if _is_broadcasting(operation.name):
            shapes = [shape for shape in map(_static_shape, operation.operands) if shape is not None]
            if len(shapes) >= 2 and not _broadcasts(shapes):
                found.append((operation, shapes))
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    if found:
        operation, shapes = found[0]
        listed = " and ".join(str(shape) for shape in shapes)
        raise PipelineError(f"{operation.location}: operands of shapes {listed} do not broadcast "
                            f"({operation.name[len('torch.'):]}); the model's declared shapes are inconsistent")
