"""`aten.tensor` of a list of constant ints as a `torch.vtensor.literal`, before torch-mlir's StableHLO
lowering.

A `Shape` whose dims are not known while converting (a SequenceMap or Loop body converted once for
every element) is `aten.tensor` of the dims list; once the body is inlined its dims fold to
constants, and torch-mlir's StableHLO lowering still fails on the op ("failed to legalize operation
'torch.constant.int'" at the Shape). The literal of the same ints is the same value.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .torch_rewriting import int_list, ops_named, vtensor_sizes

_INTEGERS = {"si64": np.int64, "si32": np.int32}


def constant_int_tensors_as_literals(module: ir.Module) -> int:
    """Rewrite each `aten.tensor` of constant ints into a literal; the count."""
    rewritten = 0
    with module.context:
        for op in ops_named(module, {"torch.aten.tensor"}):
            values = int_list(op.operands[0])
            sizes, element = vtensor_sizes(op.results[0].type)
            if not values or element not in _INTEGERS or sizes != [len(values)]:
                continue
            limits = np.iinfo(_INTEGERS[element])
            if not all(limits.min <= value <= limits.max for value in values):
                continue  # left to the lowering, which reports it
            array = np.array(values, dtype=_INTEGERS[element])
            attribute = ir.DenseElementsAttr.get(array, type=ir.IntegerType.get_signed(array.dtype.itemsize * 8))
            with op.location:
                literal = ir.Operation.create("torch.vtensor.literal", results=[op.results[0].type],
                                              attributes={"value": attribute}, ip=ir.InsertionPoint(op))
            op.results[0].replace_all_uses_with(literal.results[0])
            op.erase()
            rewritten += 1
    return rewritten
