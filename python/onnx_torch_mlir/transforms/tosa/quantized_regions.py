"""QDQ graphs as integer TOSA: int8 tensors, int32 accumulators, `tosa.rescale`.

A QDQ model (onnxruntime's `quantize_static` in QDQ format) computes every op in float between a
DequantizeLinear and a QuantizeLinear. Compiled op by op, our TOSA does the same: a convolution on
float32 values, then the float emulation of QuantizeLinear's division and rounding (exact, but ~90
float ops each). TOSA's integer profile and Vela (Ethos-U) want the quantized computation itself:
int8 x int8 products into int32, requantization by a `tosa.rescale` with an int32 multiplier and a
shift fixed at compile time. Integer arithmetic is also exact in every implementation, so the
reference model, our runner and IREE agree bit for bit (float convolutions sum in different orders).

Mechanism: on TOSA, the conversion wraps each QuantizeLinear to int8 or uint8 and each DequantizeLinear
of int8, uint8 or int32 (literal float32 parameters) in a marker call
(conversion/.../quantization/tosa_markers.py).

uint8 (onnxruntime's default QUInt8 activations) is computed as int8: q - 128 with the zero point moved
by 128 has the same real values, and TOSA's integer ops and Vela take int8. After torch-mlir's
lowering a uint8 tensor is i8 bits (the marker says "unsigned"); the int8 form is those bits with the
top bit flipped (`tosa.bitwise_xor` with -128), and the walk's DequantizeLinear markers read that
form. With quantized_io=int8 a uint8 model's input and output are int8 q - 128.

- `quantization_markers_as_custom_ops` (before torch-mlir's pipeline) makes each marker call a
  `tosa.custom` (domain "onnx_torch_mlir", operator "quantize_linear"/"dequantize_linear", the
  parameters as JSON) between `torch_c` casts, which torch-mlir's TOSA lowering carries through (as
  for dynamic_rows.py's markers); the marker's operands are its input and its float computation.
- `quantized_regions_as_integer` (after the pipeline) starts at each QuantizeLinear marker and
  walks back through the float ops torch-mlir made of the region, to the DequantizeLinear markers:
  * `exact(v)`: v as integers q with real value scale * (q - zero point), scale per element where it
    varies (per-channel weights): a dequantized tensor (int8, or an int32 bias); transposes,
    reshapes and slices of one; `tosa.conv2d`/`depthwise_conv2d`/`matmul` of int8 operands (int32
    accumulators, zero points as the ops' operands, the float bias made int32 in the accumulator's
    scale); an int32 `tosa.add` of a constant in the same scale (a Gemm's bias); `tosa.reduce_sum`
    (widened to int32 first); `tosa.mul` by a positive constant (a mean's 1/N goes into the scale).
  * `requantize(v, scale, zero point)`: v quantized to int8: monotone ops commute with rounding,
    so a clamp (Relu, Clip) becomes an int8 clamp to the quantized bounds, a max pool an int8 max
    pool, a transpose, reshape, slice, gather or nearest resize the same op on int8, a pad with its pad value
    quantized, a concatenation of its inputs each requantized (a convolution's per-channel rescale then
    runs on NHWC, channels last, as TOSA's per_channel RESCALE wants); the sum of two int8 tensors
    (Add) rescales both to int32 at a common scale of 2^-20 * 2 * max(scales) (TensorFlow Lite's
    left shift of 20), adds, and rescales back; the product of two int8 tensors (Mul: SiLU's
    x * sigmoid(x), a squeeze-excite gate) widens both to int32 without their zero points,
    multiplies and rescales; anything else with an exact form is one rescale; and an elementwise
    float function of one int8 tensor (Sigmoid, Tanh, HardSwish, GELU's erf form, ... : the float
    ops of `_TABLE_OPS` and scalar constants) is a `tosa.table`, the function evaluated in numpy at
    the 256 int8 values and quantized (as TensorFlow Lite's TOSA legalization builds its tables).
  The marker becomes the integer result where the walk succeeds and its float computation where it
  does not (an op the walk does not know, the graph's float input); DequantizeLinear markers become
  their float computation (read only by float ops then, the graph's output), and the float ops
  left unread are erased.

What stays float: the graph's input QuantizeLinear and output DequantizeLinear (float32 in, float32
out), and regions of ops the walk does not know. With the route option quantized_io=int8,
`quantized_inputs_and_outputs_as_int8` (before the walk) leaves those two to the caller: the int8
tensors become the function's inputs and results, and no float op is left (Vela refuses a graph
with any). Results are within one quantization step of
onnxruntime's float computation: each rescale rounds once, half up where ONNX rounds half to even.

It can go when torch-mlir's TOSA lowering turns QDQ patterns into integer TOSA itself (it fuses
per-tensor dequantize -> conv/matmul only, and requantizes in float).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from ...conversion.onnx_to_torch.quantization.tosa_markers import DEQUANTIZE, PARAMETERS, PREFIX, QUANTIZE
from ...importer.tensors import resource_bytes
from ...ir_walk import ops_named
from ..torch.custom_ops import builtin_tensor_type, load_backend_dialects
from ..torch.rewriting import defining_op
from .rescale import TosaBuilder

MARKER_DOMAIN = "onnx_torch_mlir"
_ADD_SHIFT = 20  # TensorFlow Lite's left shift for a quantized addition's common scale
_SAME_SCALE = 1e-6  # relative: float32 products of the same scales (onnxruntime's bias scale)


def quantization_markers_as_custom_ops(module: ir.Module) -> int:
    """Each marker call as the marker `tosa.custom` (module docstring); the count."""
    marked = 0
    with module.context, ir.Location.unknown():
        declarations = {ir.StringAttr(op.attributes["sym_name"]).value: op
                        for op in ops_named(module, ("func.func",)) if PARAMETERS in op.attributes}
        if not declarations:
            return 0  # before loading dialects: a context that has torch_c loaded otherwise misprints its ops
        load_backend_dialects(module.context)
        for call in ops_named(module, ("func.call",)):
            callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
            declaration = declarations.get(callee)
            if declaration is None:
                continue
            ip = ir.InsertionPoint(call)
            operands = [ir.Operation.create("torch_c.to_builtin_tensor", results=[builtin_tensor_type(value.type)],
                                            operands=[value], loc=call.location, ip=ip).results[0]
                        for value in call.operands]
            result_type = call.results[0].type
            custom = ir.Operation.create("tosa.custom", results=[builtin_tensor_type(result_type)], operands=operands,
                                         attributes={
                "domain_name": ir.StringAttr.get(MARKER_DOMAIN),
                "operator_name": ir.StringAttr.get(callee[len(PREFIX):].partition("$")[0]),
                "implementation_attrs": declaration.attributes[PARAMETERS],
            }, loc=call.location, ip=ip)
            back = ir.Operation.create("torch_c.from_builtin_tensor", results=[result_type], operands=[custom.results[0]],
                                       loc=call.location, ip=ip)
            call.results[0].replace_all_uses_with(back.results[0])
            call.erase()
            marked += 1
        for declaration in declarations.values():
            declaration.erase()
    return marked


def quantized_regions_as_integer(module: ir.Module) -> int:
    """Resolve every marker (module docstring); the count of QuantizeLinear markers made integer."""
    made_integer = 0
    with module.context, ir.Location.unknown():
        markers = [op for op in ops_named(module, ("tosa.custom",)) if _is_marker(op)]
        if not markers:
            return 0
        walk = _Walk()
        dequantizations = [marker for marker in markers if _operator(marker) == DEQUANTIZE]
        for marker in markers:
            if _operator(marker) != QUANTIZE:
                continue
            parameters = _signed(_parameters(marker))
            integer = None
            if _static(marker.results[0].type):
                integer = walk.requantize(marker.operands[0], parameters["scale"][0], parameters["zero_point"][0])
            made_integer += integer is not None
            computed = integer if integer is not None else marker.operands[1]
            if _parameters(marker).get("unsigned"):
                computed = _unsigned_for_others(marker, integer)
            marker.results[0].replace_all_uses_with(computed)
            marker.erase()
        for marker in dequantizations:
            marker.results[0].replace_all_uses_with(marker.operands[1])
            marker.erase()
        for function in ops_named(module, ("func.func",)):
            _fold_double_flips(function)
            _erase_unread(function)
    return made_integer


def _parameters(marker: ir.Operation) -> dict:
    return json.loads(ir.StringAttr(marker.attributes["implementation_attrs"]).value)


def _signed(parameters: dict) -> dict:
    """The parameters of a uint8 quantization for its int8 form q - 128 (the zero point moved by 128:
    the real values are the same)."""
    if not parameters.get("unsigned"):
        return parameters
    moved = dict(parameters, zero_point=[zero_point - 128 for zero_point in parameters["zero_point"]])
    del moved["unsigned"]
    return moved


_FLIP = -128  # uint8 bits <-> int8 q - 128: the top bit flipped


def _flipped(value: ir.Value, before: ir.Operation) -> ir.Value:
    """`value` (i8) with its top bit flipped: uint8 bits as int8 minus 128, and back."""
    b = TosaBuilder(before, before.location)
    flip = b.constant(np.full([1] * len(_shape(value)), _FLIP), 8)
    return b.create("tosa.bitwise_xor", value.type, [value, flip])


def _unsigned_for_others(marker: ir.Operation, integer: ir.Value | None) -> ir.Value:
    """A uint8 QuantizeLinear marker's DequantizeLinear markers read its int8 form (`integer`, or
    the flipped bits of its float computation) with their parameters made signed; what its other
    readers get: the uint8 bits."""
    _dequantizations_read_signed(marker, integer if integer is not None else _flipped(marker.operands[1], marker))
    return _flipped(integer, marker) if integer is not None else marker.operands[1]


def _dequantizations_read_signed(marker: ir.Operation, signed: ir.Value) -> None:
    """The uint8 DequantizeLinear markers reading `marker`'s result read `signed` (its int8 form)."""
    for use in list(marker.results[0].uses):
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if use.operand_number == 0 and _is_marker(user) and _operator(user) == DEQUANTIZE \
                and _parameters(user).get("unsigned"):
            user.operands[0] = signed
            user.attributes["implementation_attrs"] = ir.StringAttr.get(
                json.dumps(_signed(_parameters(user)), separators=(",", ":")))


_LAYOUT_OPS = ("tosa.reshape", "tosa.transpose", "tosa.slice")


def _fold_double_flips(function: ir.Operation) -> None:
    """flip(layout(flip(x))) is layout(x), for a chain of layout ops, maybe empty (an int8 output
    of a uint8 model with quantized_io=int8; a uint8 QOperator Flatten between two quantized ops)."""
    for op in ops_named(function, ("tosa.bitwise_xor",)):
        if not _is_flip(op):
            continue
        chain, inner = [], defining_op(op.operands[0])
        while inner is not None and inner.name in _LAYOUT_OPS:
            chain.append(inner)
            inner = defining_op(inner.operands[0])
        if inner is None or inner.name != "tosa.bitwise_xor" or not _is_flip(inner):
            continue
        value = inner.operands[0]
        for layout in reversed(chain):
            clone = layout.clone(ip=ir.InsertionPoint(op))
            clone.operands[0] = value
            value = clone.results[0]
        op.results[0].replace_all_uses_with(value)


def _is_flip(op: ir.Operation) -> bool:
    values = _integer_constant(op.operands[1])
    return values is not None and _element(op.operands[0]) == "i8" and bool(np.all(values == _FLIP))


def quantized_inputs_and_outputs_as_int8(module: ir.Module) -> int:
    """Route option quantized_io=int8: each entry function's float input read only by
    QuantizeLinear markers to int8 of one scale and zero point becomes that int8 input, and each
    result that is a DequantizeLinear marker of a per-tensor int8 tensor becomes that int8 result
    (the caller quantizes and dequantizes with the model's parameters); the count of changed
    inputs and results."""
    changed = 0
    with module.context, ir.Location.unknown():
        for function in ops_named(module, ("func.func",)):
            if not function.regions or not function.regions[0].blocks:
                continue
            block = function.regions[0].blocks[0]
            for argument in block.arguments:
                markers = _only_quantized(argument)
                if not markers or len({str(marker.attributes["implementation_attrs"]) for marker in markers}) != 1:
                    continue
                argument.set_type(markers[0].results[0].type)
                for marker in markers:
                    others = argument
                    if _parameters(marker).get("unsigned"):  # the input is int8 q - 128
                        _dequantizations_read_signed(marker, argument)
                        others = _flipped(argument, marker)
                    marker.results[0].replace_all_uses_with(others)
                    marker.erase()
                _erase_unread(function)  # the float computations of the quantization, which read the input
                changed += 1
            terminator = block.operations[len(block.operations) - 1].operation
            for index, result in enumerate(terminator.operands):
                marker = defining_op(result)
                if marker is None or not _is_marker(marker) or _operator(marker) != DEQUANTIZE:
                    continue
                parameters = _parameters(marker)
                if _element(marker.operands[0]) != "i8" or parameters["axis"] is not None:
                    continue
                terminator.operands[index] = marker.operands[0]
                if parameters.get("unsigned"):  # the result is int8 q - 128
                    terminator.operands[index] = _flipped(marker.operands[0], terminator)
                changed += 1
            if changed:
                function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                    [argument.type for argument in block.arguments], [value.type for value in terminator.operands]))
    return changed


def _only_quantized(argument: ir.Value) -> list[ir.Operation]:
    """The QuantizeLinear markers of `argument` when every path from it ends in one (the markers'
    float computations read it too), else []."""
    markers, seen, pending = {}, set(), [argument]
    while pending:
        for use in pending.pop().uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if _is_marker(user) and _operator(user) == QUANTIZE:
                if use.operand_number == 0:
                    markers[str(user.location) + str(id(user))] = user
                continue
            if user.name == "func.return" or user.regions or not user.results:
                return []
            for result in user.results:
                if result not in seen:
                    seen.add(result)
                    pending.append(result)
    return list(markers.values())


def _is_marker(op: ir.Operation) -> bool:
    if op.name != "tosa.custom":
        return False
    return ir.StringAttr(op.attributes["domain_name"]).value == MARKER_DOMAIN and _operator(op) in (QUANTIZE, DEQUANTIZE)


def _operator(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["operator_name"]).value


def _static(value_type: ir.Type) -> bool:
    return isinstance(value_type, ir.RankedTensorType) and value_type.has_static_shape


def _erase_unread(function: ir.Operation) -> None:
    """The TOSA ops (and constants) of the function's body that nothing reads any more."""
    if not function.regions or not function.regions[0].blocks:
        return
    for op in reversed(list(function.regions[0].blocks[0].operations)):
        op = op.operation
        pure = (op.name.startswith("tosa.") and op.name != "tosa.custom" and not op.regions) or op.name in (
            "arith.constant", "tensor.cast")
        if pure and op.results and all(not list(result.uses) for result in op.results):
            op.erase()


# --------------------------------------------------------------------------------------------------
# the walk


@dataclass(frozen=True)
class _Integer:
    """A tensor as integers: real value = scale * (integers - zero_point). `scale` has the tensor's
    rank, with size 1 along the dims it does not vary on. A constant holds `array`, else `value`."""

    value: ir.Value | None
    array: np.ndarray | None
    scale: np.ndarray
    zero_point: int
    bits: int

    def real(self) -> np.ndarray:
        return self.scale * (self.array.astype(np.float64) - self.zero_point)


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _element(value: ir.Value) -> str:
    return str(ir.RankedTensorType(value.type).element_type)


def _compressed(scale: np.ndarray) -> np.ndarray:
    """`scale` with every dim it does not vary along reduced to size 1."""
    for axis in range(scale.ndim):
        if scale.shape[axis] > 1 and np.all(scale == np.take(scale, [0], axis=axis)):
            scale = np.take(scale, [0], axis=axis)
    return scale


def _per_last_dim(scale: np.ndarray) -> np.ndarray | None:
    """The factors of a rescale: one, or one per element of the last dim; None if the scale varies
    along another dim."""
    scale = _compressed(scale)
    if scale.size == 1:
        return scale.reshape(1)
    if all(size == 1 for size in scale.shape[:-1]):
        return scale.reshape(-1)
    return None


_NUMPY_ELEMENTS = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}


def _constant(value: ir.Value, elements: tuple) -> np.ndarray | None:
    """The values of a `tosa.const` (or a tensor `arith.constant`, which TorchToTosa leaves) of one of
    `elements` (dense or an importer's resource), else None."""
    op = defining_op(value)
    element = _element(value)
    if op is None or op.name not in ("tosa.const", "arith.constant") or element not in elements:
        return None
    shape = _shape(value)
    attribute = op.attributes["values" if op.name == "tosa.const" else "value"]
    attribute = attribute.maybe_downcast() if hasattr(attribute, "maybe_downcast") else attribute
    if isinstance(attribute, ir.DenseElementsAttr):
        if attribute.is_splat:
            values = np.array(attribute.get_splat_value().value, dtype=_NUMPY_ELEMENTS[element])
            return np.broadcast_to(values, shape)
        try:
            return np.array(attribute).reshape(shape)
        except (TypeError, ValueError):
            return None
    data = resource_bytes(attribute)
    if data is None:
        return None
    return np.frombuffer(data, dtype=_NUMPY_ELEMENTS[element]).reshape(shape)


def _shape_constant(value: ir.Value) -> list[int] | None:
    """The values of a `tosa.const_shape`, else None."""
    op = defining_op(value)
    if op is None or op.name != "tosa.const_shape":
        return None
    return [int(v) for v in np.array(ir.DenseElementsAttr(op.attributes["values"]))]


def _float_constant(value: ir.Value) -> np.ndarray | None:
    values = _constant(value, ("f32", "f16"))
    return None if values is None else values.astype(np.float64)


def _integer_constant(value: ir.Value) -> np.ndarray | None:
    values = _constant(value, ("i8", "i32"))
    return None if values is None else values.astype(np.int64)


def _quantized(real: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """ONNX's QuantizeLinear to int8 of `real`: float32 division, rounded half to even."""
    with np.errstate(over="ignore", invalid="ignore"):
        quotient = np.asarray(real, np.float32) / np.float32(scale)
    quotient = np.nan_to_num(quotient.astype(np.float64), nan=0.0, posinf=1e9, neginf=-1e9)
    return np.clip(np.round(quotient) + zero_point, -128, 127).astype(np.int64)


class _Walk:
    """`exact` and `requantize` of the module docstring, each value's answer kept."""

    def __init__(self):
        self.exact_forms: dict = {}
        self.requantized: dict = {}

    # -- exact forms --------------------------------------------------------------------------------

    def exact(self, value: ir.Value) -> _Integer | None:
        if value not in self.exact_forms:
            self.exact_forms[value] = None  # while in progress: a cycle through _quantized_elsewhere
            op = defining_op(value)
            form = None
            if op is not None and _static(value.type):
                handler = _EXACT.get(op.name)
                form = handler(self, op) if handler else None
                if form is None:
                    form = self._quantized_elsewhere(value)
            self.exact_forms[value] = form
        return self.exact_forms[value]

    def _quantized_elsewhere(self, value: ir.Value) -> _Integer | None:
        """A float value the walk has no exact form of, which a per-tensor QuantizeLinear marker also
        reads, as that marker's integers: off the float value by at most half that marker's step. A
        QOperator model reduces a HardSwish's float output (ReduceMean) while its QLinearMul reads the
        quantized one; an integer graph has only the latter."""
        for use in value.uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if use.operand_number != 0 or not _is_marker(user) or _operator(user) != QUANTIZE \
                    or not _static(user.results[0].type):
                continue
            parameters = _signed(_parameters(user))
            if parameters["axis"] is not None:
                continue
            scale, zero_point = parameters["scale"][0], parameters["zero_point"][0]
            integer = self.requantize(value, scale, zero_point)
            if integer is not None:
                rank = len(_shape(value))
                return _Integer(integer, None, np.full([1] * rank, scale), zero_point, 8)
        return None

    def _dequantized(self, op: ir.Operation) -> _Integer | None:
        if not _is_marker(op) or _operator(op) != DEQUANTIZE:
            return None
        parameters = _parameters(op)
        q = op.operands[0]
        if _element(q) not in ("i8", "i32") or len(set(parameters["zero_point"])) != 1:
            return None
        if parameters.get("unsigned"):  # uint8 bits read through a layout op (a Flatten) or an input
            q = _flipped(q, op)
            parameters = _signed(parameters)
        array = _integer_constant(q)
        rank = len(_shape(q))
        scale = np.array(parameters["scale"], np.float64)
        if parameters["axis"] is None:
            scale = scale[:1].reshape([1] * rank)
        else:
            scale = scale.reshape([-1 if axis == parameters["axis"] else 1 for axis in range(rank)])
        bits = 8 if _element(q) == "i8" else 32
        return _Integer(None if array is not None else q, array, scale, parameters["zero_point"][0], bits)

    def _transpose(self, op: ir.Operation) -> _Integer | None:
        x = self.exact(op.operands[0])
        if x is None:
            return None
        perms = list(ir.DenseI32ArrayAttr(op.attributes["perms"]))
        scale = np.transpose(x.scale, perms)
        if x.array is not None:
            return _Integer(None, np.transpose(x.array, perms), scale, x.zero_point, x.bits)
        value = TosaBuilder(op, op.location).like("tosa.transpose", op, [x.value], x.bits)
        return _Integer(value, None, scale, x.zero_point, x.bits)

    def _reshape(self, op: ir.Operation) -> _Integer | None:
        x = self.exact(op.operands[0])
        if x is None:
            return None
        shape = _shape(op.results[0])
        scale = _compressed(np.broadcast_to(x.scale, _shape(op.operands[0])).reshape(shape))
        if x.array is not None:
            return _Integer(None, x.array.reshape(shape), scale, x.zero_point, x.bits)
        value = TosaBuilder(op, op.location).like("tosa.reshape", op, [x.value, op.operands[1]], x.bits)
        return _Integer(value, None, scale, x.zero_point, x.bits)

    def _slice(self, op: ir.Operation) -> _Integer | None:
        """A slice (TorchToTosa cuts a strided convolution's input to the windows it reads) on the
        integers, the scale along every dim it varies on sliced alike."""
        x = self.exact(op.operands[0])
        start, size = _shape_constant(op.operands[1]), _shape_constant(op.operands[2])
        if x is None or x.array is not None or start is None or size is None:
            return None
        window = tuple(slice(begin, begin + count) if extent > 1 else slice(None)
                       for begin, count, extent in zip(start, size, x.scale.shape))
        value = TosaBuilder(op, op.location).like("tosa.slice", op, [x.value, op.operands[1], op.operands[2]], x.bits)
        return _Integer(value, None, x.scale[window], x.zero_point, x.bits)

    def _convolution(self, op: ir.Operation) -> _Integer | None:
        """tosa.conv2d (weights [O, KH, KW, I]) or depthwise_conv2d ([KH, KW, C, M]) on int8."""
        x, weights = self.exact(op.operands[0]), self.exact(op.operands[1])
        if x is None or weights is None or x.bits != 8 or weights.bits != 8:
            return None
        x_scale = _compressed(x.scale)
        if x_scale.size != 1:
            return None
        weight_scale = np.broadcast_to(weights.scale, _shape(op.operands[1]))
        if op.name == "tosa.conv2d":
            per_output = weight_scale[:, 0, 0, 0]
            uniform = np.all(weight_scale == per_output[:, None, None, None])
        else:
            per_output = weight_scale[0, 0].reshape(-1)
            uniform = np.all(weight_scale == weight_scale[:1, :1])
        if not uniform:
            return None
        accumulator_scale = float(x_scale.reshape(-1)[0]) * per_output
        bias = self._bias(op.operands[2], accumulator_scale)
        if bias is None:
            return None
        b = TosaBuilder(op, op.location)
        x_value = x.value if x.array is None else b.constant(x.array, 8)
        weight_value = weights.value if weights.array is None else b.constant(weights.array, 8)
        value = b.like(op.name, op, [x_value, weight_value, b.constant(bias, 32),
                                     b.zero_point(x.zero_point, 8), b.zero_point(weights.zero_point, 8)],
                       32, {"acc_type": ir.TypeAttr.get(b.integer(32))})
        return _Integer(value, None, accumulator_scale.reshape([1, 1, 1, -1]), 0, 32)

    def _bias(self, bias: ir.Value, accumulator_scale: np.ndarray) -> np.ndarray | None:
        """The bias as int32 in the accumulator's scale (one per output channel)."""
        form = self.exact(bias)
        if form is not None and form.array is not None:
            if form.bits == 32 and form.zero_point == 0 and np.allclose(
                    np.broadcast_to(form.scale, form.array.shape), accumulator_scale, rtol=_SAME_SCALE, atol=0):
                integers = form.array
            else:
                integers = np.round(form.real() / accumulator_scale)
        else:
            real = _float_constant(bias)
            if real is None:
                return None
            integers = np.round(real / accumulator_scale)
        integers = np.broadcast_to(integers, accumulator_scale.shape)
        if np.any(np.abs(integers) >= 2**31):
            return None
        return integers.astype(np.int64)

    def _matmul(self, op: ir.Operation) -> _Integer | None:
        """tosa.matmul [N, H, C] x [N, C, W] of int8: scales may vary along H (a) and W (b)."""
        a, b_form = self.exact(op.operands[0]), self.exact(op.operands[1])
        if a is None or b_form is None or a.bits != 8 or b_form.bits != 8:
            return None
        a_scale = np.broadcast_to(a.scale, _shape(op.operands[0]))
        b_scale = np.broadcast_to(b_form.scale, _shape(op.operands[1]))
        if not (np.all(a_scale == a_scale[:, :, :1]) and np.all(b_scale == b_scale[:, :1, :])):
            return None
        b = TosaBuilder(op, op.location)
        operands = [form.value if form.array is None else b.constant(form.array, 8) for form in (a, b_form)]
        value = b.like("tosa.matmul", op, operands + [b.zero_point(a.zero_point, 8), b.zero_point(b_form.zero_point, 8)], 32)
        return _Integer(value, None, _compressed(a_scale[:, :, :1] * b_scale[:, :1, :]), 0, 32)

    def _add(self, op: ir.Operation) -> _Integer | None:
        """An int32 sum with a constant (a bias) or with a tensor of the same scale."""
        forms = [self.exact(operand) for operand in op.operands]
        constants = [_float_constant(operand) if form is None else (form.real() if form.array is not None else None)
                     for operand, form in zip(op.operands, forms)]
        shape = _shape(op.results[0])
        b = TosaBuilder(op, op.location)
        if constants[0] is None and constants[1] is None:
            if any(form is None for form in forms) or forms[0].bits != 32 or forms[1].bits != 32 or forms[0].zero_point or forms[1].zero_point:
                return None
            scales = [np.broadcast_to(form.scale, shape) for form in forms]
            if not np.allclose(scales[0], scales[1], rtol=_SAME_SCALE, atol=0):
                return None
            value = b.like("tosa.add", op, [forms[0].value, forms[1].value], 32)
            return _Integer(value, None, forms[0].scale, 0, 32)
        tensor_index = 0 if constants[0] is None else 1
        tensor, constant = forms[tensor_index], constants[1 - tensor_index]
        if tensor is None or constant is None or tensor.array is not None or tensor.bits != 32 or tensor.zero_point:
            return None
        scale = np.broadcast_to(tensor.scale, shape)
        integers = np.round(np.broadcast_to(constant, shape) / scale)
        if np.any(np.abs(integers) >= 2**31):
            return None
        operands = [tensor.value, b.constant(integers, 32)]
        value = b.like("tosa.add", op, operands if tensor_index == 0 else operands[::-1], 32)
        return _Integer(value, None, tensor.scale, 0, 32)

    def _reduce_sum(self, op: ir.Operation) -> _Integer | None:
        x = self.exact(op.operands[0])
        if x is None or x.array is not None:
            return None
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        scale = np.broadcast_to(x.scale, _shape(op.operands[0]))
        if not np.all(scale == np.take(scale, [0], axis=axis)):
            return None
        b = TosaBuilder(op, op.location)
        wide = x.value
        if x.bits == 8:
            wide = b.rescale(x.value, np.ones(1), x.zero_point, 0, 32)
        elif x.zero_point:
            return None
        value = b.like("tosa.reduce_sum", op, [wide], 32)
        return _Integer(value, None, _compressed(np.take(scale, [0], axis=axis)), 0, 32)

    def _multiply(self, op: ir.Operation) -> _Integer | None:
        """A product by a positive float constant: the constant goes into the scale."""
        x, factor = self.exact(op.operands[0]), _float_constant(op.operands[1])
        if x is None or factor is None or not np.all(factor > 0) or _shape(op.operands[0]) != _shape(op.results[0]):
            return None
        shift = _integer_constant(op.operands[2]) if len(op.operands) > 2 else np.zeros(1)
        if shift is None or np.any(shift != 0):
            return None
        return _Integer(x.value, x.array, _compressed(x.scale * factor), x.zero_point, x.bits)

    # -- int8 results -------------------------------------------------------------------------------

    def requantize(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        """`value` (float) as int8 of `scale` and `zero_point`, as QuantizeLinear gives it (within
        one step); None where the walk does not know the computation."""
        key = (value, scale, zero_point)
        if key not in self.requantized:
            op = defining_op(value)
            result = None
            if op is not None and _static(value.type):
                handler = _REQUANTIZE.get(op.name)
                result = handler(self, op, scale, zero_point) if handler else None
                if result is None:
                    result = self._rescaled(value, scale, zero_point)
                if result is None:
                    result = self._looked_up(value, scale, zero_point)
            self.requantized[key] = result
        return self.requantized[key]

    def _rescaled(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        form = self.exact(value)
        if form is None:
            return None
        op = defining_op(value)
        b = TosaBuilder(op, op.location)
        if form.array is not None:
            return b.constant(_quantized(form.real(), scale, zero_point), 8)
        factors = _per_last_dim(np.broadcast_to(form.scale, _shape(value)) / scale)
        if factors is None:
            return None
        if form.bits == 8 and factors.size == 1 and factors[0] == 1.0 and form.zero_point == zero_point:
            return form.value
        return b.rescale(form.value, factors, form.zero_point, zero_point, 8)

    def _looked_up(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        """An elementwise float computation of one int8 tensor (Sigmoid, Tanh, HardSwish, SiLU's
        x * sigmoid(x), ...) as a `tosa.table`: the computation evaluated at the 256 int8 values and
        quantized."""
        found = _elementwise_of_one(self, value)
        if found is None:
            return None
        source, values = found
        b = TosaBuilder(defining_op(value), defining_op(value).location)
        table = b.constant(_quantized(values, scale, zero_point), 8)
        return b.create("tosa.table", ir.RankedTensorType.get(_shape(value), b.integer(8)), [source.value, table])

    def _requantize_product(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """The product of two int8 tensors (a squeeze-excite gate): both widened to int32 without
        their zero points, multiplied, rescaled to int8."""
        forms = [self.exact(operand) for operand in op.operands[:2]]
        if any(form is None or form.array is not None or form.bits != 8 or _compressed(form.scale).size != 1
               for form in forms) or _integer_constant(op.operands[2]) is None:
            return None
        b = TosaBuilder(op, op.location)
        wide = [b.rescale(form.value, np.ones(1), form.zero_point, 0, 32) for form in forms]
        shift = b.constant(np.zeros(1), 8)
        product = b.like("tosa.mul", op, wide + [shift], 32)
        factor = np.prod([float(_compressed(form.scale).reshape(-1)[0]) for form in forms]) / scale
        return b.rescale(product, np.array([factor]), 0, zero_point, 8)

    def _requantize_dequantized(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        form = self._dequantized(op)
        if (form is not None and form.array is None and form.bits == 8 and form.scale.size == 1
                and float(form.scale.reshape(-1)[0]) == scale and form.zero_point == zero_point):
            return form.value
        return None

    def _requantize_clamp(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        x = self.requantize(op.operands[0], scale, zero_point)
        if x is None:
            return None
        low = int(_quantized(np.array(ir.FloatAttr(op.attributes["min_val"]).value), scale, zero_point))
        high = int(_quantized(np.array(ir.FloatAttr(op.attributes["max_val"]).value), scale, zero_point))
        if (low, high) == (-128, 127):
            return x
        i8 = TosaBuilder.integer(8)
        return TosaBuilder(op, op.location).like("tosa.clamp", op, [x], 8, {
            "min_val": ir.IntegerAttr.get(i8, low), "max_val": ir.IntegerAttr.get(i8, high)})

    def _requantize_layout(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """Max pools, transposes and reshapes: the same op on int8 (rounding is monotone)."""
        x = self.requantize(op.operands[0], scale, zero_point)
        if x is None:
            return None
        return TosaBuilder(op, op.location).like(op.name, op, [x] + list(op.operands)[1:], 8)

    def _requantize_concat(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """A concatenation: each input requantized to the result's scale, then concatenated on int8."""
        parts = [self.requantize(operand, scale, zero_point) for operand in op.operands]
        if any(part is None for part in parts):
            return None
        return TosaBuilder(op, op.location).like("tosa.concat", op, parts, 8)

    def _requantize_resize(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """A nearest-neighbour resize picks values: the same op on int8 (a bilinear one interpolates)."""
        if "NEAREST" not in str(op.attributes["mode"]):
            return None
        return self._requantize_layout(op, scale, zero_point)

    def _requantize_gather(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """A gather picks values (TorchToTosa's nearest upsampling): the same op on int8 values."""
        x = self.requantize(op.operands[0], scale, zero_point)
        if x is None:
            return None
        return TosaBuilder(op, op.location).like("tosa.gather", op, [x, op.operands[1]], 8)

    def _requantize_pad(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """A pad: the same op on int8, its float pad value quantized."""
        x, value = self.requantize(op.operands[0], scale, zero_point), _float_constant(op.operands[2])
        if x is None or value is None:
            return None
        b = TosaBuilder(op, op.location)
        pad_value = b.constant(_quantized(value, scale, zero_point).reshape(_shape(op.operands[2])), 8)
        return b.like("tosa.pad", op, [x, op.operands[1], pad_value], 8)

    def _requantize_sum(self, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
        """The sum of two int8 tensors: both rescaled to int32 at a common scale, added, rescaled back."""
        forms = [self.exact(operand) for operand in op.operands]
        if any(form is None or form.array is not None or form.bits != 8 or _compressed(form.scale).size != 1
               for form in forms):
            return None
        scales = [float(_compressed(form.scale).reshape(-1)[0]) for form in forms]
        common = 2 * max(scales) / (1 << _ADD_SHIFT)
        b = TosaBuilder(op, op.location)
        wide = [b.rescale(form.value, np.array([form_scale / common]), form.zero_point, 0, 32)
                for form, form_scale in zip(forms, scales)]
        if any(value is None for value in wide):
            return None
        total = b.like("tosa.add", op, wide, 32)
        return b.rescale(total, np.array([common / scale]), 0, zero_point, 8)


# Elementwise float TOSA ops a table can hold: numpy on float32, given the operands' values and the op.
_TABLE_OPS = {
    "tosa.sigmoid": lambda a, op: 1 / (1 + np.exp(-a[0])),
    "tosa.tanh": lambda a, op: np.tanh(a[0]),
    "tosa.exp": lambda a, op: np.exp(a[0]),
    "tosa.log": lambda a, op: np.log(a[0]),
    "tosa.erf": lambda a, op: _erf(a[0]),
    "tosa.abs": lambda a, op: np.abs(a[0]),
    "tosa.negate": lambda a, op: -a[0],
    "tosa.reciprocal": lambda a, op: 1 / a[0],
    "tosa.rsqrt": lambda a, op: 1 / np.sqrt(a[0]),
    "tosa.floor": lambda a, op: np.floor(a[0]),
    "tosa.ceil": lambda a, op: np.ceil(a[0]),
    "tosa.add": lambda a, op: a[0] + a[1],
    "tosa.sub": lambda a, op: a[0] - a[1],
    "tosa.mul": lambda a, op: a[0] * a[1],
    "tosa.pow": lambda a, op: np.power(a[0], a[1]),
    "tosa.maximum": lambda a, op: np.maximum(a[0], a[1]),
    "tosa.minimum": lambda a, op: np.minimum(a[0], a[1]),
    "tosa.clamp": lambda a, op: np.clip(a[0], ir.FloatAttr(op.attributes["min_val"]).value,
                                        ir.FloatAttr(op.attributes["max_val"]).value),
}
_TABLE_OPERANDS = {"tosa.negate": 1, "tosa.mul": 2}  # the rest are zero points and the shift


def _erf(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _elementwise_of_one(walk: "_Walk", value: ir.Value):
    """(the int8 form, the values at its 256 codes) when `value` is an elementwise float function
    (`_TABLE_OPS`, scalar constants) of one per-tensor int8 tensor of its shape, else None."""
    sources: dict = {}
    codes = np.arange(-128, 128, dtype=np.float64)
    evaluated: dict = {}

    def evaluate(v: ir.Value, depth: int):
        if v in evaluated:
            return evaluated[v]
        result = None
        form = walk.exact(v) if _static(v.type) else None
        constant = _float_constant(v)
        op = defining_op(v)
        if constant is not None:
            flat = np.asarray(constant).reshape(-1)
            result = np.full(256, flat[0]) if flat.size and np.all(flat == flat[0]) else None
        elif form is not None and form.array is None and form.bits == 8 and _compressed(form.scale).size == 1 \
                and _shape(v) == _shape(value):
            sources[form.value] = form
            result = float(_compressed(form.scale).reshape(-1)[0]) * (codes - form.zero_point)
        elif op is not None and op.name in _TABLE_OPS and depth < 64 and _shape(v) == _shape(value) \
                and _element(v) == "f32":
            count = _TABLE_OPERANDS.get(op.name, len(op.operands))
            operands = [evaluate(operand, depth + 1) for operand in list(op.operands)[:count]]
            if all(operand is not None for operand in operands):
                with np.errstate(all="ignore"):
                    result = np.asarray(_TABLE_OPS[op.name]([o.astype(np.float32) for o in operands], op),
                                        np.float64)
        evaluated[v] = result
        return result

    values = evaluate(value, 0)
    if values is None or len(sources) != 1 or defining_op(value) is None:
        return None
    if walk.exact(value) is not None:
        return None  # a plain rescale
    return next(iter(sources.values())), values


_EXACT = {
    "tosa.custom": _Walk._dequantized,
    "tosa.transpose": _Walk._transpose,
    "tosa.reshape": _Walk._reshape,
    "tosa.slice": _Walk._slice,
    "tosa.conv2d": _Walk._convolution,
    "tosa.depthwise_conv2d": _Walk._convolution,
    "tosa.matmul": _Walk._matmul,
    "tosa.add": _Walk._add,
    "tosa.reduce_sum": _Walk._reduce_sum,
    "tosa.mul": _Walk._multiply,
}
_REQUANTIZE = {
    "tosa.custom": _Walk._requantize_dequantized,
    "tosa.clamp": _Walk._requantize_clamp,
    "tosa.max_pool2d": _Walk._requantize_layout,
    "tosa.transpose": _Walk._requantize_layout,
    "tosa.reshape": _Walk._requantize_layout,
    "tosa.slice": _Walk._requantize_layout,
    "tosa.add": _Walk._requantize_sum,
    "tosa.mul": _Walk._requantize_product,
    "tosa.concat": _Walk._requantize_concat,
    "tosa.resize": _Walk._requantize_resize,
    "tosa.pad": _Walk._requantize_pad,
    "tosa.gather": _Walk._requantize_gather,
}
