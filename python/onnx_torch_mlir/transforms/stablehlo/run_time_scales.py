"""A nearest interpolation by run-time scales, rewritten before torch-mlir's StableHLO lowering.

An Upsample (or Resize) whose `scales` input is computed at run time becomes
`aten.__interpolate.size_list_scale_list` of a list of `aten.item`s; torch-mlir's StableHLO lowering
takes only constant scales (it failed at the op's `torch.constant.bool`). With the input and output
spatial sizes static, nearest interpolation is a gather along each spatial dim: output position o
reads input position min(floor(o / scale), size - 1), the scale a 0-d tensor read at run time
(`aten.index_select` of the positions, computed in f32 as ONNX's legacy nearest mode defines them).
"""

import numpy as np
from torch_mlir import ir

from ..torch.rewriting import TorchOpBuilder, defining_op, is_op, ops_named, vtensor_sizes, vtensor_spelling

_READS = ("torch.aten.item", "torch.aten.Float.Tensor")


def run_time_nearest_scales_as_gathers(module: ir.Module) -> int:
    """Rewrite each nearest interpolation by run-time scales (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"torch.aten.__interpolate.size_list_scale_list"}):
            rewritten += _rewrite(op)
    return rewritten


def _string(value: ir.Value):
    constant = defining_op(value)
    return ir.StringAttr(constant.attributes["value"]).value if is_op(constant, "torch.constant.str") else None


def _scale_tensors(scales: ir.Value):
    """The 0-d f32 tensors the scales are read from ((tensor or float) per dim), else None when all
    are constants or one is neither a constant nor a read."""
    construct = defining_op(scales)
    if not is_op(construct, "torch.prim.ListConstruct"):
        return None
    entries = []
    for scale in construct.operands:
        owner = defining_op(scale)
        if is_op(owner, "torch.constant.float"):
            entries.append(ir.FloatAttr(owner.attributes["value"]).value)
        elif any(is_op(owner, name) for name in _READS) and vtensor_sizes(owner.operands[0].type) == ([], "f32"):
            entries.append(owner.operands[0])
        else:
            return None
    return entries if any(not isinstance(entry, float) for entry in entries) else None


def _rewrite(op: ir.Operation) -> int:
    source, sizes_list, scales = op.operands[:3]
    if _string(op.operands[3]) != "nearest" or str(sizes_list.type) != "!torch.none":
        return 0
    in_sizes, element = vtensor_sizes(source.type)
    out_sizes, _ = vtensor_sizes(op.results[0].type)
    entries = _scale_tensors(scales)
    if entries is None or in_sizes is None or out_sizes is None or None in in_sizes[2:] + out_sizes[2:]:
        return 0
    if len(entries) != len(in_sizes) - 2:
        return 0
    build = TorchOpBuilder(op)
    current, current_sizes = source, list(in_sizes)
    for position, entry in enumerate(entries):
        dim = position + 2
        indices = _source_positions(build, entry, out_sizes[dim], in_sizes[dim])
        current_sizes[dim] = out_sizes[dim]
        current = build.op("torch.aten.index_select", vtensor_spelling(current_sizes, element),
                           [current, build.int(dim), indices])
    if str(current.type) != str(op.results[0].type):
        current = build.op("torch.tensor_static_info_cast", str(op.results[0].type), [current])
    op.results[0].replace_all_uses_with(current)
    reads = [defining_op(scale) for scale in defining_op(scales).operands]
    op.erase()
    for read in reads:
        if any(is_op(read, name) for name in _READS) and not list(read.results[0].uses):
            read.erase()
    return 1


def _source_positions(build: TorchOpBuilder, scale, out_size: int, in_size: int) -> ir.Value:
    """si64 [out_size]: min(floor(o / scale), in_size - 1) for each output position o."""
    if isinstance(scale, float):
        positions = np.minimum(np.floor(np.arange(out_size, dtype=np.float32) / np.float32(scale)), in_size - 1)
        return _literal(build, positions.astype(np.int64))
    steps = _literal(build, np.arange(out_size, dtype=np.float32))
    vector = vtensor_spelling([out_size], "f32")
    positions = build.op("torch.aten.floor", vector, [build.op("torch.aten.div.Tensor", vector, [steps, scale])])
    last = build.scalar_tensor(float(in_size - 1), "f32")
    positions = build.op("torch.aten.minimum", vector, [positions, last])
    false = build.bool(False)
    return build.op("torch.aten.to.dtype", vtensor_spelling([out_size], "si64"),
                    [positions, build.int(4), false, false, build.none()])


def _literal(build: TorchOpBuilder, array: np.ndarray) -> ir.Value:
    """A `torch.vtensor.literal` of an int64 or float32 array."""
    element = "si64" if array.dtype == np.int64 else "f32"
    return ir.Operation.create("torch.vtensor.literal", results=[ir.Type.parse(vtensor_spelling(list(array.shape), element))],
                               attributes={"value": ir.DenseElementsAttr.get(np.ascontiguousarray(array))},
                               loc=build.location, ip=build.ip).results[0]
