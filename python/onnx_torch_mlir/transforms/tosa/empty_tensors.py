"""Values with no elements, for TOSA, as `tensor.empty` the TOSA ops never see.

TOSA has no zero-sized tensor (its dialect refuses `tosa.const` of `tensor<0xf32>`: every dim of a
TOSA tensor is at least 1), so torch-mlir's TorchToTosa refuses a `torch.vtensor.literal` of a type
with a zero dim, and any other op computing one. Yet ONNX models return such values (Split into
empty parts, ConstantOfShape of a zero dim, a Slice past the end, a Reshape keeping a zero dim).
They hold no data, so no TOSA op is needed: each torch op all of whose results are empty static
tensors, read only by the function's return or by other such ops, is erased, and what the return
reads becomes a `tensor.empty` of its builtin type bridged with `torch_c.from_builtin_tensor`
(torch-mlir's TOSA pipeline folds the bridge into the returned value). An empty value read by an op
with a non-empty result (a Concat with an empty part) is left as it was: such a case fails as
before, naming the node, rather than computing on a zero-sized TOSA tensor.
"""

from __future__ import annotations

import re

from torch_mlir import ir

from ..torch.custom_ops import builtin_tensor_type, load_backend_dialects
from ..linalg.empty_tensors import _empty_tensor_type

_KEPT = ("torch.operator", "torch.runtime.assert")


def empty_results_as_empty_tensors(module: ir.Module) -> int:
    """Rewrite the empty values the module docstring describes; the count of ops erased."""
    operations: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        operations.append(operation.operation)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(collect)
        erased: list[ir.Operation] = []
        for operation in reversed(operations):  # a value's readers come after it
            if _only_empty_results(operation) and all(
                    use.owner.name == "func.return" or any(use.owner.operation == done for done in erased)
                    for result in operation.results for use in result.uses):
                erased.append(operation)
        if erased:
            load_backend_dialects(module.context)  # torch_c is created below
        for operation in erased:  # readers first
            with ir.InsertionPoint(operation), operation.location:
                for result in operation.results:
                    if list(result.uses):
                        result.replace_all_uses_with(_empty_tensor(result.type))
            operation.erase()
    return len(erased)


def _only_empty_results(operation: ir.Operation) -> bool:
    return (operation.name.startswith("torch.") and operation.name not in _KEPT and len(operation.results) > 0
            and all(_empty_tensor_type(result.type) for result in operation.results))


def _empty_tensor(torch_type: ir.Type) -> ir.Value:
    """`torch_c.from_builtin_tensor` of an empty `arith.constant` through a pair of `tensor.cast`s: bridged
    directly, the conversion folds the constant back into the `torch.vtensor.literal` TorchToTosa refuses;
    the canonicalizer after it folds the casts away, leaving the constant (legal in the TOSA contract)."""
    builtin = builtin_tensor_type(torch_type)
    unranked_dims = ir.Type.parse(re.sub(r"<[0-9x]*", lambda match: "<" + "?x" * match.group(0).count("x"), str(builtin)))
    value = ir.Operation.create("arith.constant", results=[builtin],
                                attributes={"value": ir.Attribute.parse(f"dense<> : {builtin}")}).results[0]
    for type_ in (unranked_dims, builtin):
        value = ir.Operation.create("tensor.cast", results=[type_], operands=[value]).results[0]
    return ir.Operation.create("torch_c.from_builtin_tensor", results=[torch_type], operands=[value]).results[0]
