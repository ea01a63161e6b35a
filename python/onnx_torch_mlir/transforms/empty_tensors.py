"""Values with no elements become literals before a backend lowering sees the ops computing them.

A tensor with a static zero dim (`!torch.vtensor<[3,0],f32>`) holds no data, so the op computing it
can be replaced by an empty `torch.vtensor.literal` of its type without changing the program.
torch-mlir's lowerings are not written for such ops: the Linalg lowering of `aten.view` divides by
the zero dim and the process dies of SIGFPE (found by tools/fuzz.py: a model input declared
`[3, 0]`). Replacing them first removes that whole class. Ops with a side effect or a contract of
their own (custom ops, `torch.operator`) are kept.
"""

from __future__ import annotations

import re

from torch_mlir import ir

_EMPTY_VTENSOR = re.compile(r"^!torch\.vtensor<\[([0-9,]*)\],([a-z0-9]+)>$")
_ELEMENTS = {"f16", "bf16", "f32", "f64", "i1", "si8", "si16", "si32", "si64", "ui8"}
_KEPT = ("torch.vtensor.literal", "torch.operator", "torch.runtime.assert")


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
        if (
            name.startswith("torch.")
            and name not in _KEPT
            and len(operation.results)
            and all(_empty_tensor_type(result.type) for result in operation.results)
        ):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(collect)
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
