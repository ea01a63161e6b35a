"""Values with no elements become literals before a backend lowering sees the ops computing them.

A tensor with a static zero dim (`!torch.vtensor<[3,0],f32>`) holds no data, so the op computing it
can be replaced by an empty `torch.vtensor.literal` of its type without changing the program.
torch-mlir's lowerings are not written for such ops: the Linalg lowering of `aten.view` divides by
the zero dim and the process dies of SIGFPE (found by tools/fuzz.py: a model input declared
`[3, 0]`). Replacing them first removes that whole class. Ops with a side effect or a contract of
their own (custom ops, `torch.operator`) are kept.

A reshape of an empty tensor into a non-empty shape (an inconsistent model) is refused first: the
Linalg verifier refuses it too, but once its input is a literal the canonicalizer folds it into a
constant with too few elements, and printing that constant faults.
"""

from __future__ import annotations

import re

import math

from torch_mlir import ir

from ...errors import PipelineError

_EMPTY_VTENSOR = re.compile(r"^!torch\.vtensor<\[([0-9,]*)\],([a-z0-9]+)>$")
_ELEMENTS = {"f16", "bf16", "f32", "f64", "i1", "si8", "si16", "si32", "si64", "ui8"}
_KEPT = ("torch.vtensor.literal", "torch.operator", "torch.runtime.assert")
_STATIC_SIZES = re.compile(r"^!torch\.vtensor<\[([0-9,]*)\],")
_RESHAPES = {"torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view", "torch.aten.flatten.using_ints",
             "torch.aten.unflatten.int", "torch.aten.squeeze.dim", "torch.aten.unsqueeze", "torch.aten.squeeze"}


def _element_count(type_: ir.Type) -> int | None:
    match = _STATIC_SIZES.match(str(type_))
    if match is None:
        return None
    return math.prod(int(dim) for dim in match.group(1).split(",")) if match.group(1) else 1


def _refuse_empty_reshaped_to_non_empty(operation: ir.Operation) -> None:
    raise PipelineError(f"{operation.location}: {operation.name[len('torch.'):]} of an empty tensor "
                        f"({operation.operands[0].type}) into {operation.results[0].type}; the model's "
                        "declared shapes are inconsistent")


def _empty_tensor_type(type_: ir.Type) -> str | None:
    """`tensor<3x0xf32>` for `!torch.vtensor<[3,0],f32>`; None unless static with a zero dim."""
    match = _EMPTY_VTENSOR.match(str(type_))
    if match is None or match.group(2) not in _ELEMENTS:
        return None
    dims = [int(dim) for dim in match.group(1).split(",")] if match.group(1) else []
    if 0 not in dims:
        return None
    return f"tensor<{'x'.join(str(dim) for dim in dims)}x{match.group(2)}>"


def replace_empty_results(module: ir.Module) -> int:
    """Replace each torch op all of whose results are empty static tensors by literals; the count."""
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        name = operation.name
        if name in _RESHAPES and _element_count(operation.operands[0].type) == 0 and \
                _element_count(operation.results[0].type):
            inconsistent.append(operation)
            return ir.WalkResult.INTERRUPT
        if (
            name.startswith("torch.")
            and name not in _KEPT
            and len(operation.results)
            and all(_empty_tensor_type(result.type) for result in operation.results)
        ):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    inconsistent: list[ir.Operation] = []
    with module.context:
        module.operation.walk(collect)
        if inconsistent:
            _refuse_empty_reshaped_to_non_empty(inconsistent[0])
        for operation in found:
            with ir.InsertionPoint(operation), operation.location:
                for result in operation.results:
                    value = ir.Attribute.parse(f"dense<> : {_empty_tensor_type(result.type)}")
                    literal = ir.Operation.create(
                        "torch.vtensor.literal", results=[result.type], attributes={"value": value}
                    )
                    result.replace_all_uses_with(literal.result)
            operation.erase()
    return len(found)
