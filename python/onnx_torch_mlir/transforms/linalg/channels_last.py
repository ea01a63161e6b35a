"""1-D and 2-D convolutions and pools in channels-last form, with the layout carried through elementwise ops.

torch-mlir's Linalg lowering keeps ONNX's NCHW: `linalg.conv_2d_nchw_fchw`,
`linalg.depthwise_conv_2d_nchw_chw`, `linalg.pooling_nchw_{max,sum}`. IREE's CPU code generation is
written for channels-last windows (NHWC images, HWCF filters): the same ResNet-50 ran 1.5 times
faster in IREE from our TOSA (whose `tosa.conv2d` is NHWC, with transposes at the graph's edges)
than from our Linalg. IREE's own `iree-preprocessing-convert-conv-to-channels-last` did not close
the gap (measured: no gain): it transposes around each convolution but not around the pools, the
pads or the slices between them, so half the residual adds kept a transposed operand.

So this step writes each such op in channels-last form (`linalg.conv_2d_nhwc_hwcf`,
`linalg.depthwise_conv_2d_nhwc_hwc`, `linalg.pooling_nhwc_{max,sum}`), takes its image in NHWC and
gives its result back through one `linalg.transpose` to NCHW; and, in program order, each
elementwise `linalg.generic` (all loops parallel, rank 4) that reads such a transposed result is
rewritten on NHWC loops too, as are the `tensor.pad` and `tensor.extract_slice` an image passes
through and the splat, fill or bias broadcast a convolution starts from. A transpose from NCHW is
then only needed where the graph enters the region (the model's input) and a transpose back only
where it leaves it (a reshape, a reduction, the result); the transposes left inside are dead and
erased. A constant filter is transposed here, at compile time, when its bytes are known (literal
elements, or the importer's weights); else a `linalg.transpose` of the constant is left for the
consumer to fold. Ops with a dynamic dimension are left as they are.

1-D windows (`linalg.conv_1d_ncw_fcw`, `linalg.pooling_ncw_{max,sum}`; torch-mlir writes a 1-D
depthwise convolution as a 2-D one) become their NWC forms the same way: IREE ran Whisper's 1-D
front end 3.4 times slower in NCW (168 against 50 us per call for its stride-2 convolution). On
rank 3 the layout is carried only through the transposes this step made: (0, 2, 1) is also how a
transformer swaps its last two dims, which is not ours to move.

Numbers are unchanged: each rewritten op computes the same sums in the same order along its
reduction loops. Can go when torch-mlir's Linalg lowering (or IREE's preprocessing) emits
channels-last windows with the transposes propagated; `compile --conv-layout as-imported` skips it.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import erase_unread, ops_named
from ..transposed_constants import splat_like, transposed_constant

# NC... op -> (N...C builder, the permutation taking its filter to the N...C op's filter; None: a
# pool's window shape, unchanged)
_WINDOWED = {
    "linalg.conv_2d_nchw_fchw": (linalg.conv_2d_nhwc_hwcf, (2, 3, 1, 0)),
    "linalg.depthwise_conv_2d_nchw_chw": (linalg.depthwise_conv_2d_nhwc_hwc, (1, 2, 0)),
    "linalg.pooling_nchw_max": (linalg.pooling_nhwc_max, None),
    "linalg.pooling_nchw_sum": (linalg.pooling_nhwc_sum, None),
    "linalg.conv_1d_ncw_fcw": (linalg.conv_1d_nwc_wcf, (2, 1, 0)),
    "linalg.pooling_ncw_max": (linalg.pooling_nwc_max, None),
    "linalg.pooling_ncw_sum": (linalg.pooling_nwc_sum, None),
}
_RANKS = (3, 4)
# Marks the transposes back to channels-first that this step made (removed when it ends).
_MADE_HERE = "onnx_torch_mlir.channels_last"


def to_channels_last(rank: int) -> tuple[int, ...]:
    """NC... -> N...C (NCHW -> NHWC: (0, 2, 3, 1))."""
    return (0, *range(2, rank), 1)


def to_channels_first(rank: int) -> tuple[int, ...]:
    """N...C -> NC... (NHWC -> NCHW: (0, 3, 1, 2)); also where loop i of the NC... form is in the N...C form."""
    return (0, rank - 1, *range(1, rank - 1))


def convolutions_channels_last(module: ir.Module) -> int:
    """Rewrite the module's NCHW windows and the elementwise ops between them (module docstring);
    the count of ops rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, None):
            if operation.name in _WINDOWED and static_window(operation):
                _rewrite_window(operation)
                rewritten += 1
            elif operation.name == "linalg.generic" and _reads_channels_first_transpose(operation):
                if _rewrite_generic(operation):
                    rewritten += 1
        if rewritten:
            erase_unread(module, _PURE)
            for transpose in ops_named(module, {"linalg.transpose"}):
                if _MADE_HERE in transpose.attributes:
                    del transpose.attributes[_MADE_HERE]
    return rewritten


def static_window(operation: ir.Operation) -> bool:
    """Whether every operand and result of `operation` is a tensor of static shape."""
    values = list(operation.operands) + list(operation.results)
    return all(isinstance(value.type, ir.RankedTensorType) and value.type.has_static_shape for value in values)


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _permutation(operation: ir.Operation) -> tuple[int, ...]:
    return tuple(ir.DenseI64ArrayAttr(operation.attributes["permutation"]))


def _is_channels_first_transpose(value: ir.Value) -> bool:
    """A transpose to NCHW, or to NCW made by this step (module docstring)."""
    owner = _owner(value)
    rank = value.type.rank if isinstance(value.type, ir.RankedTensorType) else 0
    return (owner is not None and owner.name == "linalg.transpose" and rank in _RANKS
            and _permutation(owner) == to_channels_first(rank) and (rank == 4 or _MADE_HERE in owner.attributes))


def _permuted_type(type_: ir.RankedTensorType, permutation) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([type_.shape[axis] for axis in permutation], type_.element_type, type_.encoding)


def empty_tensor(type_: ir.RankedTensorType) -> ir.Value:
    return ir.Operation.create("tensor.empty", results=[type_]).result


def _transpose(value: ir.Value, permutation) -> ir.Value:
    result_type = _permuted_type(value.type, permutation)
    return _value(linalg.transpose(value, outs=[empty_tensor(result_type)], permutation=list(permutation)))


def _back_to_channels_first(value: ir.Value) -> ir.Value:
    """`value` (N...C) transposed back to NC..., marked as this step's."""
    back = _transpose(value, to_channels_first(value.type.rank))
    _owner(back).attributes[_MADE_HERE] = ir.UnitAttr.get()
    return back


def _value(built) -> ir.Value:
    """The one result of what a dialect builder returned (an op view for some ops, a value for others)."""
    return built if isinstance(built, ir.Value) else built.results[0]


def _channels_last(value: ir.Value) -> ir.Value:
    """`value` (NCHW or NCW) in NHWC or NWC, built at the current insertion point: the source of a
    transpose from there, a pad or slice rebuilt on its source, a splat as a splat; else a transpose."""
    owner = _owner(value)
    rank = value.type.rank
    if owner is not None:
        if owner.name == "linalg.transpose" and _permutation(owner) == to_channels_first(rank):
            return owner.operands[0]
        if owner.name == "arith.constant":
            attribute = owner.attributes["value"]
            if isinstance(attribute, ir.DenseElementsAttr) and ir.DenseElementsAttr(attribute).is_splat:
                return _constant(splat_like(attribute, _permuted_type(value.type, to_channels_last(rank))))
        if owner.name == "tensor.pad" and _static_pad(owner):
            return _pad(owner)
        if owner.name == "tensor.extract_slice" and _static_slice(owner):
            return _slice(owner)
    return _transpose(value, to_channels_last(rank))


def _constant(attribute: ir.Attribute) -> ir.Value:
    return ir.Operation.create("arith.constant", results=[attribute.type], attributes={"value": attribute}).result


def _static_pad(pad: ir.Operation) -> bool:
    if len(pad.operands) != 1 or pad.operands[0].type.rank not in _RANKS:
        return False
    body = pad.regions[0].blocks[0]
    yielded = body.operations[len(body.operations) - 1].operands[0]
    return len(body.operations) == 1 and not (isinstance(yielded.owner, ir.Block) and yielded.owner == body)


def _pad(pad: ir.Operation) -> ir.Value:
    source = _channels_last(pad.operands[0])
    permutation = to_channels_last(source.type.rank)
    low = [ir.DenseI64ArrayAttr(pad.attributes["static_low"])[axis] for axis in permutation]
    high = [ir.DenseI64ArrayAttr(pad.attributes["static_high"])[axis] for axis in permutation]
    body = pad.regions[0].blocks[0]
    padding = body.operations[0].operands[0]
    attributes = {"static_low": ir.DenseI64ArrayAttr.get(low), "static_high": ir.DenseI64ArrayAttr.get(high),
                  "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0])}
    if "nofold" in pad.attributes:
        attributes["nofold"] = pad.attributes["nofold"]
    rebuilt = ir.Operation.create("tensor.pad", results=[_permuted_type(pad.results[0].type, permutation)],
                                  operands=[source], attributes=attributes, regions=1)
    block = rebuilt.regions[0].blocks.append(*[ir.IndexType.get()] * len(permutation))
    with ir.InsertionPoint(block):
        ir.Operation.create("tensor.yield", operands=[padding])
    return rebuilt.result


def _static_slice(extract: ir.Operation) -> bool:
    return (len(extract.operands) == 1 and extract.operands[0].type.rank in _RANKS
            and extract.results[0].type.rank == extract.operands[0].type.rank)


def _slice(extract: ir.Operation) -> ir.Value:
    source = _channels_last(extract.operands[0])
    permutation = to_channels_last(source.type.rank)
    attributes = {name: ir.DenseI64ArrayAttr.get([ir.DenseI64ArrayAttr(extract.attributes[name])[axis]
                                                  for axis in permutation])
                  for name in ("static_offsets", "static_sizes", "static_strides")}
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 0, 0, 0])
    return ir.Operation.create("tensor.extract_slice", results=[_permuted_type(extract.results[0].type, permutation)],
                               operands=[source], attributes=attributes).result


def _initial_channels_last(value: ir.Value) -> ir.Value:
    """The accumulator a window starts from, channels-last: a fill or a per-channel broadcast rebuilt."""
    owner = _owner(value)
    rank = value.type.rank
    nhwc = _permuted_type(value.type, to_channels_last(rank))
    if owner is not None and owner.name == "linalg.fill":
        return _value(linalg.fill(owner.operands[0], outs=[empty_tensor(nhwc)]))
    if (owner is not None and owner.name == "linalg.broadcast"
            and tuple(ir.DenseI64ArrayAttr(owner.attributes["dimensions"])) == (0, *range(2, rank))):
        return _value(linalg.broadcast(owner.operands[0], outs=[empty_tensor(nhwc)], dimensions=list(range(rank - 1))))
    return _channels_last(value)


def _filter(value: ir.Value, permutation) -> ir.Value:
    """A filter permuted: its bytes transposed at compile time when known, else a linalg.transpose."""
    owner = _owner(value)
    if owner is not None and owner.name in ("tensor.collapse_shape", "tensor.expand_shape"):
        owner = _owner(owner.operands[0])  # a reshape keeps the bytes in order: read them in `value`'s shape
    if owner is not None and owner.name == "arith.constant":
        transposed = transposed_constant(owner.attributes["value"], _permuted_type(value.type, permutation), permutation)
        if transposed is not None:
            return _constant(transposed)
    return _transpose(value, permutation)


def _rewrite_window(operation: ir.Operation) -> None:
    builder, filter_permutation = _WINDOWED[operation.name]
    image, window = operation.operands[0], operation.operands[1]
    initial = operation.operands[2]
    strides = list(ir.DenseIntElementsAttr(operation.attributes["strides"]))
    dilations = list(ir.DenseIntElementsAttr(operation.attributes["dilations"]))
    with operation.location, ir.InsertionPoint(operation):
        image = _channels_last(image)
        if filter_permutation is not None:
            window = _filter(window, filter_permutation)
        result = _value(builder(image, window, outs=[_initial_channels_last(initial)], strides=strides, dilations=dilations))
        back = _back_to_channels_first(result)
    operation.results[0].replace_all_uses_with(back)
    operation.erase()


def _reads_channels_first_transpose(operation: ir.Operation) -> bool:
    return any(_is_channels_first_transpose(operand) for operand in operation.operands)


def _rewrite_generic(operation: ir.Operation) -> bool:
    """A generic on as many loops as its output has dims, 3 or 4 (elementwise, or a reduction over the
    image such as a global pool), rebuilt on channels-last loops with a channels-last output; False
    when it is not one."""
    if len(operation.results) != 1 or not static_window(operation):
        return False
    iterators = list(ir.ArrayAttr(operation.attributes["iterator_types"]))
    maps = [ir.AffineMapAttr(item).value for item in ir.ArrayAttr(operation.attributes["indexing_maps"])]
    output = operation.operands[len(maps) - 1]
    rank = output.type.rank
    if rank not in _RANKS or len(iterators) != rank or not all(_dims_or_constants(item) for item in maps):
        return False
    channels_first_loop = to_channels_first(rank)
    new_loop = {loop: ir.AffineDimExpr.get(channels_first_loop[loop]) for loop in range(rank)}

    def on_new_loops(results) -> list:
        return [new_loop[ir.AffineDimExpr(expr).position] if isinstance(expr, ir.AffineDimExpr) else expr
                for expr in results]

    def channels_last_results(indexing_map) -> list:
        results = on_new_loops(indexing_map.results)
        return [results[axis] for axis in to_channels_last(rank)]

    identity = ir.AffineMap.get_identity(rank)
    output_argument = operation.regions[0].blocks[0].arguments[len(maps) - 1]
    operands, new_maps = [], []
    with operation.location, ir.InsertionPoint(operation):
        for position, (operand, indexing_map) in enumerate(zip(operation.operands, maps)):
            if position == len(maps) - 1:
                nhwc = _permuted_type(operand.type, to_channels_last(rank))
                operands.append(_initial_channels_last(operand) if list(output_argument.uses) else empty_tensor(nhwc))
                new_maps.append(channels_last_results(indexing_map))
            elif _is_channels_first_transpose(operand) or indexing_map == identity:
                operands.append(_channels_last(operand))
                new_maps.append(channels_last_results(indexing_map))
            else:
                operands.append(operand)
                new_maps.append(on_new_loops(indexing_map.results))
        rebuilt = operation.clone()
        for position, operand in enumerate(operands):
            rebuilt.operands[position] = operand
        rebuilt.attributes["indexing_maps"] = ir.ArrayAttr.get(
            [ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, results)) for results in new_maps])
        rebuilt.attributes["iterator_types"] = ir.ArrayAttr.get(
            [iterators[channels_first_loop.index(loop)] for loop in range(rank)])
        rebuilt.results[0].set_type(operands[-1].type)
        _renumber_loop_indices(rebuilt, channels_first_loop)
        back = _back_to_channels_first(rebuilt.results[0])
    operation.results[0].replace_all_uses_with(back)
    operation.erase()
    return True


def _renumber_loop_indices(generic: ir.Operation, channels_first_loop) -> None:
    """A body that reads its loop positions (`linalg.index`: torch-mlir's average pool counts each
    window's elements in from them) reads the same loop on the channels-last numbering."""
    def renumber(operation: ir.Operation) -> ir.WalkResult:
        if operation.name == "linalg.index":
            loop = ir.IntegerAttr(operation.attributes["dim"])
            operation.attributes["dim"] = ir.IntegerAttr.get(loop.type, channels_first_loop[loop.value])
        return ir.WalkResult.ADVANCE

    for block in generic.regions[0].blocks:
        for operation in block.operations:
            operation.operation.walk(renumber)


def _dims_or_constants(indexing_map: ir.AffineMap) -> bool:
    return all(isinstance(expr, (ir.AffineDimExpr, ir.AffineConstantExpr)) for expr in indexing_map.results)


_PURE = {"linalg.transpose", "tensor.empty", "tensor.pad", "tensor.extract_slice", "arith.constant",
         "tensor.collapse_shape", "tensor.expand_shape",
         "linalg.fill", "linalg.broadcast"}
