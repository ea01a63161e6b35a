"""Tensor dims over 2^31 - 1 refused, naming the node, before torch-mlir's TOSA lowering.

torch-mlir's TOSA lowering takes sizes as 32-bit integers and aborts the process on a larger one
(found by tools/fuzz.py). Can go when TorchToTosa reports such a size as an error.
"""

import re

from torch_mlir import ir

from ...errors import PipelineError

_STATIC_DIMS = re.compile(r"!torch\.vtensor<\[([0-9,]+)\]")
INT32_MAX = 2**31 - 1


def refuse_dims_over_int32(module: ir.Module) -> None:
    """Fail, naming the node, on a tensor dim over 2^31 - 1: torch-mlir's TOSA lowering takes sizes as
    32-bit integers and aborts the process on a larger one (found by tools/fuzz.py)."""
    found = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        for value in list(operation.results) + [arg for region in operation.regions for block in region.blocks
                                                for arg in block.arguments]:
            match = _STATIC_DIMS.match(str(value.type))
            if match and any(int(dim) > INT32_MAX for dim in match.group(1).split(",")):
                found.append((operation, value.type))
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    if found:
        operation, type_ = found[0]
        raise PipelineError(f"torch-to-tosa: {operation.location}: a tensor of type {type_} has a dim over 2^31 - 1, "
                            "which torch-mlir's TOSA lowering cannot take (its sizes are 32-bit)")
