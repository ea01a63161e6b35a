"""Concatenations of more tensors than TOSA's level allows, as a tree of concatenations.

TOSA level 8K (the level Arm's reference model checks by default, and the one Ethos-U's level
targets) allows at most MAX_TENSOR_LIST_SIZE = 64 tensors in one list, and `tosa.concat`'s inputs
are such a list. torch-mlir's TOSA lowering makes one `tosa.concat` of every step of an unrolled
recurrence (PLCMOS' GRU over 119 frames: 119 inputs), and the reference model then reports
"LEVEL_CHECK() fails ... num_inputs should be smaller than or equal to MAX_TENSOR_LIST_SIZE" and
"Graph result: UNPREDICTABLE". A concatenation along one axis is the concatenation of the
concatenations of consecutive runs of its inputs, so each such op becomes runs of at most 64
inputs, concatenated again (recursively) along the same axis; the values and their order are the
same.

Can go when torch-mlir's TOSA lowering splits long lists itself.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

MAX_TENSOR_LIST_SIZE = 64  # TOSA 1.0, level 8K


def concatenations_within_the_level(module: ir.Module) -> int:
    """Split every `tosa.concat` of more than MAX_TENSOR_LIST_SIZE inputs (module docstring); the count."""
    split = 0
    with module.context, ir.Location.unknown():
        for concat in ops_named(module, {"tosa.concat"}):
            if len(concat.operands) > MAX_TENSOR_LIST_SIZE:
                result = _tree(concat, list(concat.operands))
                concat.results[0].replace_all_uses_with(result)
                concat.erase()
                split += 1
    return split


def _tree(concat: ir.Operation, inputs: list[ir.Value]) -> ir.Value:
    """One concatenation of `inputs` along `concat`'s axis, no list longer than the level's."""
    if len(inputs) <= MAX_TENSOR_LIST_SIZE:
        return _concatenate(concat, inputs)
    size = -(-len(inputs) // MAX_TENSOR_LIST_SIZE)  # inputs per run, so at most 64 runs
    runs = [inputs[start:start + size] for start in range(0, len(inputs), size)]
    return _tree(concat, [run[0] if len(run) == 1 else _concatenate(concat, run) for run in runs])


def _concatenate(concat: ir.Operation, inputs: list[ir.Value]) -> ir.Value:
    axis = ir.IntegerAttr(concat.attributes["axis"]).value
    result_type = ir.RankedTensorType(concat.results[0].type)
    shape = list(result_type.shape)
    sizes = [ir.RankedTensorType(value.type).shape[axis] for value in inputs]
    shape[axis] = ir.ShapedType.get_dynamic_size() if any(ir.ShapedType.is_dynamic_size(s) for s in sizes) else sum(sizes)
    return ir.Operation.create("tosa.concat", results=[ir.RankedTensorType.get(shape, result_type.element_type)],
                               operands=inputs, attributes={"axis": concat.attributes["axis"]},
                               loc=concat.location, ip=ir.InsertionPoint(concat)).results[0]
