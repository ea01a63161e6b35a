"""StableHLO 2-D convolutions and pools in channels-last form, with the layout carried between them.

torch-mlir's StableHLO lowering keeps ONNX's NCHW: `stablehlo.convolution` with dimension numbers
`[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]` and `stablehlo.reduce_window` pools over NCHW with window
`[1, 1, kh, kw]`. IREE's CPU code generation is written for channels-last windows (NHWC images, HWIO
filters): it ran ResNet-50 from this output 1.2-1.3 times slower than from our Linalg (whose
channels-last step, linalg/channels_last.py, is this step's model) and 1.4-1.7 times slower than from
our TOSA (NHWC `tosa.conv2d`), MobileNetV3-Small 2.1-2.4 times slower than from our Linalg. With this
step both run about as fast as from our Linalg and TOSA (docs/performance.md).

So this step writes each static 2-D convolution of NCHW images (grouped and depthwise ones too: the
feature group count means the same in either layout; a ConvTranspose's, whose filter is HWOI and
flipped, too) as `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, with a constant filter transposed here,
at compile time, when its bytes are known (literal elements, or the importer's weights), else by a
`stablehlo.transpose` the consumer folds; and each pool as the same `reduce_window` over NHWC (its
window, strides, dilations and padding permuted). Its result goes back to NCHW through one
`stablehlo.transpose`. Then, in program order, each op that reads such a transposed result and means
the same in any layout is rewritten on NHWC too: elementwise ops (rank-0 operands, such as a clamp's
bounds, kept), `broadcast_in_dim` of a 4-D operand, `pad`, `slice`, `concatenate` (along any dim,
channels included) and `reduce_window`, each giving its result back through a transpose (a pad or a
broadcast, which can be much larger than what it reads, only when an op carried too reads it: else
the transpose stays on the smaller side); and a `reduce` whose kept dims keep their order (a global
pool's reduce over H and W gives the same [N, C] from NHWC) reads the NHWC operand directly. An
operand such an op needs in NHWC comes from: the source of a transpose back (free), a constant
transposed at compile time, a `broadcast_in_dim` rebuilt with its broadcast dimensions permuted (a
per-channel bias or scale: its [C, 1, 1] operand reshaped to [1, 1, C]), a reshape where only size-1
dims move (a squeeze and excite block's [N, C, 1, 1]), else a transpose (where the graph enters the
region: the image). The transposes back that no rewritten op left a reader for (where the graph
leaves the region: a flatten, a result) remain; the others are dead and erased, with the broadcasts
and constants only they read. Ops with a dynamic dimension are left as they are.

Numbers are unchanged: each rewritten op computes the same sums over the same elements. Can go when
torch-mlir's StableHLO lowering (or IREE's input conversion) emits channels-last windows with the
transposes propagated; `compile --conv-layout as-imported` skips it.
"""

from __future__ import annotations

import re

import numpy as np
from torch_mlir import ir

from ...ir_walk import erase_unread
from ..torch.rewriting import defining_op, ops_named
from ..transposed_constants import transposed_constant

TO_CHANNELS_LAST = (0, 2, 3, 1)  # NCHW -> NHWC
TO_CHANNELS_FIRST = (0, 3, 1, 2)  # NHWC -> NCHW
# dim d of the NCHW form is dim CHANNELS_LAST_POSITION[d] of the NHWC form
CHANNELS_LAST_POSITION = (0, 3, 1, 2)
# A convolution on NCHW images; its filter's layout is any order of o, i, 0, 1 (OIHW from a Conv,
# HWOI from a ConvTranspose).
NCHW_CONVOLUTION = re.compile(r"#stablehlo\.conv<\[b, f, 0, 1\]x\[([oi01, ]+)\]->\[b, f, 0, 1\]>")
NHWC_CONVOLUTION = "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"
HWIO = ("0", "1", "i", "o")

# Ops computing each element from the elements at the same position of their operands.
ELEMENTWISE = {f"stablehlo.{name}" for name in (
    "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "convert", "cosine", "divide",
    "exponential", "exponential_minus_one", "floor", "is_finite", "log", "log_plus_one", "logistic",
    "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt", "power", "remainder",
    "round_nearest_afz", "round_nearest_even", "rsqrt", "select", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sine", "sqrt", "subtract", "tan", "tanh", "xor")}
# Ops rewritten on NHWC when they read a value the step has in NHWC.
CARRIED = ELEMENTWISE | {"stablehlo.broadcast_in_dim", "stablehlo.pad", "stablehlo.slice", "stablehlo.concatenate",
                         "stablehlo.reduce_window", "stablehlo.reduce"}
# The attributes that give a value per dim (pad, slice, reduce_window), permuted with the dims.
_PER_DIM_ATTRIBUTES = ("edge_padding_low", "edge_padding_high", "interior_padding", "start_indices", "limit_indices",
                       "strides", "window_dimensions", "window_strides", "base_dilations", "window_dilations")
# Carried ops whose result can be much larger than their operand: carried only when an op that is
# carried too reads them, else the transpose back would move more than the transpose before them
# (torch-mlir pads a 2x2 image to 320x320 for an adaptive average pool).
GROWING = {"stablehlo.pad", "stablehlo.broadcast_in_dim"}
# What a rewrite can leave unread: erased when it is.
_PURE = {"stablehlo.transpose", "stablehlo.reshape", "stablehlo.broadcast_in_dim", "stablehlo.constant",
         "stablehlo.convert", "stablehlo.reverse"}


def convolutions_channels_last(module: ir.Module) -> int:
    """Rewrite the module's NCHW convolutions and pools and the ops between them (module docstring);
    the count of ops rewritten."""
    with module.context:
        rewriter = _ChannelsLast()
        for operation in ops_named(module, None):
            if not _static(operation):
                continue
            if _is_nchw_convolution(operation) or _is_nchw_pool(operation) or (
                    operation.name in CARRIED and any(_is_channels_first_transpose(value) for value in operation.operands)
                    and (operation.name not in GROWING or _read_in_the_region(operation))):
                rewriter.rewrite(operation)
        if rewriter.rewritten:
            erase_unread(module, _PURE)
    return rewriter.rewritten


def _read_in_the_region(operation: ir.Operation) -> bool:
    """Whether an op that the rewrite would carry reads `operation`'s result."""
    for use in operation.results[0].uses:
        reader = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if reader.name in CARRIED or _is_nchw_convolution(reader) or _is_nchw_pool(reader):
            return True
    return False


def _static(operation: ir.Operation) -> bool:
    values = list(operation.operands) + list(operation.results)
    return all(isinstance(value.type, ir.RankedTensorType) and value.type.has_static_shape for value in values)


def _is_nchw_convolution(operation: ir.Operation) -> bool:
    return (operation.name == "stablehlo.convolution" and _filter_to_hwio(operation) is not None
            and _integer(operation, "batch_group_count", 1) == 1)


def _filter_to_hwio(convolution: ir.Operation) -> list[int] | None:
    """The permutation taking a 2-D NCHW convolution's filter to HWIO; None for another convolution."""
    match = NCHW_CONVOLUTION.fullmatch(str(convolution.attributes["dimension_numbers"]))
    labels = [label.strip() for label in match.group(1).split(",")] if match else []
    return [labels.index(label) for label in HWIO] if sorted(labels) == sorted(HWIO) else None


def _is_nchw_pool(operation: ir.Operation) -> bool:
    """A reduce window of rank 4 whose window covers one image and one channel at a time."""
    return (operation.name == "stablehlo.reduce_window" and operation.results[0].type.rank == 4
            and _integers(operation, "window_dimensions")[:2] == [1, 1])


def _integer(operation: ir.Operation, name: str, default: int) -> int:
    return ir.IntegerAttr(operation.attributes[name]).value if name in operation.attributes else default


def _integers(operation: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(operation.attributes[name]))


def _permutation(operation: ir.Operation) -> tuple[int, ...]:
    return tuple(_integers(operation, "permutation"))


def _is_channels_first_transpose(value: ir.Value) -> bool:
    owner = defining_op(value)
    return owner is not None and owner.name == "stablehlo.transpose" and _permutation(owner) == TO_CHANNELS_FIRST


def _permuted_type(type_: ir.RankedTensorType, permutation) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([type_.shape[axis] for axis in permutation], type_.element_type, type_.encoding)


def _create(name: str, result_type: ir.Type, operands, **attributes) -> ir.Value:
    return ir.Operation.create(name, results=[result_type], operands=list(operands), attributes=attributes).result


def _transpose(value: ir.Value, permutation) -> ir.Value:
    return _create("stablehlo.transpose", _permuted_type(value.type, permutation), [value],
                   permutation=ir.DenseI64ArrayAttr.get(list(permutation)))


def _constant(attribute: ir.Attribute) -> ir.Value:
    return _create("stablehlo.constant", attribute.type, [], value=attribute)


class _ChannelsLast:
    """The rewrites, and the NHWC form made for each NCHW value read (one per value, made right after
    its definition so that it serves every reader)."""

    def __init__(self):
        self.forms: dict[ir.Value, ir.Value] = {}
        self.rewritten = 0

    def rewrite(self, operation: ir.Operation) -> None:
        """`operation` rebuilt on NHWC before itself; its NHWC results read back through a transpose."""
        with operation.location, ir.InsertionPoint(operation):
            if operation.name == "stablehlo.reduce":
                rebuilt = self._reduce(operation)
                if rebuilt is None:
                    return
                replacements = rebuilt
            else:
                if any(result.type.rank != 4 for result in operation.results):
                    return
                replacements = [_transpose(result, TO_CHANNELS_FIRST) for result in self._rebuilt(operation)]
            for old, new in zip(operation.results, replacements):
                old.replace_all_uses_with(new)
        operation.erase()
        self.rewritten += 1

    def _rebuilt(self, operation: ir.Operation) -> list[ir.Value]:
        """The NHWC form of `operation`, whose results are all 4-D: its 4-D operands in NHWC (a
        convolution's filter in HWIO), its attributes that name dims permuted."""
        name = operation.name
        if name == "stablehlo.broadcast_in_dim":
            return [self._broadcast(operation)]
        operands = [self._filter(operand, _filter_to_hwio(operation)) if name == "stablehlo.convolution" and position == 1
                    else self.channels_last(operand) if operand.type.rank == 4 else operand
                    for position, operand in enumerate(operation.operands)]
        rebuilt = operation.clone()  # after what the operands needed
        for position, operand in enumerate(operands):
            rebuilt.operands[position] = operand
        if name == "stablehlo.convolution":
            rebuilt.attributes["dimension_numbers"] = ir.Attribute.parse(NHWC_CONVOLUTION)
        elif name == "stablehlo.concatenate":
            dimension = ir.IntegerAttr(operation.attributes["dimension"])
            rebuilt.attributes["dimension"] = ir.IntegerAttr.get(dimension.type, CHANNELS_LAST_POSITION[dimension.value])
        for attribute in _PER_DIM_ATTRIBUTES:
            if attribute in operation.attributes and name != "stablehlo.convolution":  # its are per spatial dim
                values = _integers(operation, attribute)
                rebuilt.attributes[attribute] = ir.DenseI64ArrayAttr.get([values[axis] for axis in TO_CHANNELS_LAST])
        if name == "stablehlo.reduce_window" and "padding" in operation.attributes:
            rows = np.array(ir.DenseIntElementsAttr(operation.attributes["padding"]), np.int64).reshape(4, 2)
            rebuilt.attributes["padding"] = ir.DenseIntElementsAttr.get(np.ascontiguousarray(rows[list(TO_CHANNELS_LAST)]))
        for result in rebuilt.results:
            result.set_type(_permuted_type(result.type, TO_CHANNELS_LAST))
        return list(rebuilt.results)

    def _reduce(self, operation: ir.Operation) -> list[ir.Value] | None:
        """A reduce of the NHWC inputs over the same dims, when the dims it keeps come out in the
        same order (then its results are the same); None when they do not."""
        dimensions = _integers(operation, "dimensions")
        count = len(operation.results)
        kept = [CHANNELS_LAST_POSITION[dim] for dim in range(4) if dim not in dimensions]
        if not dimensions or kept != sorted(kept) or any(operand.type.rank != 4 for operand in operation.operands[:count]):
            return None
        inputs = [self.channels_last(operation.operands[position]) for position in range(count)]
        rebuilt = operation.clone()
        for position, value in enumerate(inputs):
            rebuilt.operands[position] = value
        rebuilt.attributes["dimensions"] = ir.DenseI64ArrayAttr.get(sorted(CHANNELS_LAST_POSITION[dim] for dim in dimensions))
        return list(rebuilt.results)

    def channels_last(self, value: ir.Value) -> ir.Value:
        """`value` (NCHW) in NHWC (module docstring), made once, right after its definition."""
        owner = defining_op(value)
        if owner is not None and owner.name == "stablehlo.transpose" and _permutation(owner) == TO_CHANNELS_FIRST:
            return owner.operands[0]
        if value in self.forms:
            return self.forms[value]
        point = ir.InsertionPoint.after(owner) if owner is not None else ir.InsertionPoint.at_block_begin(value.owner)
        with point:
            if owner is not None and owner.name == "stablehlo.constant":
                folded = transposed_constant(owner.attributes["value"], _permuted_type(value.type, TO_CHANNELS_LAST),
                                             TO_CHANNELS_LAST)
                form = _constant(folded) if folded is not None else self._permuted(value, TO_CHANNELS_LAST)
            elif owner is not None and owner.name == "stablehlo.broadcast_in_dim":
                form = self._broadcast(owner)
            else:
                form = self._permuted(value, TO_CHANNELS_LAST)
        self.forms[value] = form
        return form

    def _broadcast(self, broadcast: ir.Operation) -> ir.Value:
        """`broadcast`'s result in NHWC: its broadcast dimensions moved to their NHWC positions, in
        order, its operand permuted to match."""
        operand = broadcast.operands[0]
        positions = [CHANNELS_LAST_POSITION[dim] for dim in _integers(broadcast, "broadcast_dimensions")]
        order = sorted(range(len(positions)), key=positions.__getitem__)
        if order != list(range(len(positions))):
            if tuple(order) == TO_CHANNELS_LAST:  # a 4-D operand broadcast along the same dims
                operand = self.channels_last(operand)
            else:
                operand = self._permuted(operand, order)
        return _create("stablehlo.broadcast_in_dim", _permuted_type(broadcast.results[0].type, TO_CHANNELS_LAST),
                       [operand], broadcast_dimensions=ir.DenseI64ArrayAttr.get(sorted(positions)))

    @staticmethod
    def _permuted(value: ir.Value, permutation) -> ir.Value:
        """`value` transposed by `permutation`: a reshape (of what a reshape reshaped) when only
        size-1 dims move, else a transpose."""
        shape = value.type.shape
        moved = [axis for axis in permutation if shape[axis] != 1]
        if moved != sorted(moved):
            return _transpose(value, permutation)
        owner = defining_op(value)
        source = owner.operands[0] if owner is not None and owner.name == "stablehlo.reshape" else value
        return _create("stablehlo.reshape", _permuted_type(value.type, permutation), [source])

    def _filter(self, value: ir.Value, permutation) -> ir.Value:
        """A filter permuted: its bytes transposed at compile time when known (a constant, through
        transposes and then a reshape, which keeps the bytes in order; a reverse, a ConvTranspose's
        flipped window, kept after it on the permuted dims), else a transpose."""
        owner = defining_op(value)
        if owner is not None and owner.name == "stablehlo.reverse":
            reversed_dims = [list(permutation).index(dim) for dim in _integers(owner, "dimensions")]
            source = self._filter(owner.operands[0], permutation)
            return _create("stablehlo.reverse", source.type, [source],
                           dimensions=ir.DenseI64ArrayAttr.get(sorted(reversed_dims)))
        composed = list(permutation)
        while owner is not None and owner.name == "stablehlo.transpose":
            inner = _permutation(owner)
            composed = [inner[axis] for axis in composed]
            owner = defining_op(owner.operands[0])
        if owner is not None and owner.name == "stablehlo.reshape":
            owner = defining_op(owner.operands[0])  # read the constant's bytes in the reshaped shape
        if owner is not None and owner.name == "stablehlo.constant":
            folded = transposed_constant(owner.attributes["value"], _permuted_type(value.type, permutation), composed)
            if folded is not None:
                return _constant(folded)
        return self._permuted(value, permutation)
