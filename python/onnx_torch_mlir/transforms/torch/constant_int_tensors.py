"""`aten.tensor` of a list of constant ints as a `torch.vtensor.literal`, for TOSA and StableHLO.

Our conversion builds a `Shape` as `aten.tensor` of the dims list (`TorchBuilder.dims_tensor`) when a
dim is not known while converting, as in a SequenceMap or Loop body converted once for every element.
Once the body is inlined and its dims fold to constants, torch-mlir's canonicalizer leaves the
`aten.tensor` of the now constant list: its TorchToTosa has no pattern for `aten.tensor`, and its
StableHLO lowering fails on it ("failed to legalize operation 'torch.constant.int'"). The literal of
the same ints is the same value.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..torch.rewriting import int_list, ops_named, vtensor_sizes

_INTEGER_ELEMENTS = {"si64": np.int64, "si32": np.int32, "si16": np.int16, "si8": np.int8}


def constant_int_tensors_as_literals(module: ir.Module) -> int:
    """Rewrite the `aten.tensor` ops the module docstring describes; the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"torch.aten.tensor"}):
            rewritten += _rewrite(operation)
    return rewritten


def _rewrite(operation: ir.Operation) -> int:
    values = int_list(operation.operands[0])
    sizes, element = vtensor_sizes(operation.results[0].type)
    if values is None or element not in _INTEGER_ELEMENTS or sizes != [len(values)] or not values:
        return 0
    limits = np.iinfo(_INTEGER_ELEMENTS[element])
    if not all(limits.min <= value <= limits.max for value in values):
        return 0  # a value the element type cannot hold: left to the lowering
    array = np.array(values, dtype=_INTEGER_ELEMENTS[element])
    element_type = ir.IntegerType.get_signed(array.dtype.itemsize * 8)
    attribute = ir.DenseElementsAttr.get(array, type=element_type, shape=[len(values)])
    with operation.location:
        literal = ir.Operation.create("torch.vtensor.literal", results=[operation.results[0].type],
                                      attributes={"value": attribute}, ip=ir.InsertionPoint(operation))
    operation.results[0].replace_all_uses_with(literal.results[0])
    operation.erase()
    return 1
