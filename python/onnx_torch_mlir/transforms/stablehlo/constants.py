"""Tensor constants in torch-mlir's StableHLO output as `stablehlo.constant`.

torch-mlir's StableHLO lowering leaves some tensor constants as `arith.constant` (AvgPool's and
GlobalAveragePool's divisor, `arith.constant dense<4> : tensor<1xi64>`). IREE and our runner take
them, but a module with an op outside StableHLO/CHLO is not StableHLO to the tools StableHLO's users
run: XLA refuses it ("'arith.constant' op can't be translated to XLA HLO") and StableHLO's portable
artifact cannot hold it ("failed to legalize ... to '!vhlo.tensor_v1<...>'"). A tensor-typed
`arith.constant` becomes the `stablehlo.constant` of the same value; scalar (`index`, `i64`) ones
and tensors of `index` (which StableHLO has no type for), which dynamic shapes compute with, stay. Can go when torch-mlir's lowering emits only StableHLO
constants for tensors.
"""

from torch_mlir import ir


def tensor_constants_as_stablehlo(module: ir.Module) -> int:
    """Rewrite `module`'s tensor-typed `arith.constant`s in place; the count."""
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        result = operation.results[0].type if operation.name == "arith.constant" else None
        if isinstance(result, ir.RankedTensorType) and not isinstance(result.element_type, ir.IndexType):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    with module.context:
        for constant in found:
            with constant.location, ir.InsertionPoint(constant):
                replacement = ir.Operation.create(
                    "stablehlo.constant", results=[constant.results[0].type],
                    attributes={"value": constant.attributes["value"]},
                )
            constant.results[0].replace_all_uses_with(replacement.results[0])
            constant.erase()
    return len(found)
