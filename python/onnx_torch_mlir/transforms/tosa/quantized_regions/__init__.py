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
(conversion/.../quantization/tosa_markers.py). uint8 (onnxruntime's default QUInt8 activations) is
computed as int8 q - 128 (markers.py); with quantized_io=int8 a uint8 model's input and output are
int8 q - 128.

- `quantization_markers_as_custom_ops` (before torch-mlir's pipeline) makes each marker call a
  `tosa.custom` (domain "onnx_torch_mlir", operator "quantize_linear"/"dequantize_linear", the
  parameters as JSON) between `torch_c` casts, which torch-mlir's TOSA lowering carries through (as
  for dynamic_rows.py's markers); the marker's operands are its input and its float computation.
- `quantized_regions_as_integer` (after the pipeline) starts at each QuantizeLinear marker and
  walks back through the float ops torch-mlir made of the region, to the DequantizeLinear markers
  (walk.py): exact integer forms (exact_forms.py: convolutions, matmuls, biases, sums, layout
  ops), int8 results (requantized_forms.py: clamps, pools, sums and products of int8 tensors,
  concatenations, pads), tables of elementwise functions (tables.py), and, with quantized_io=int8
  only, Softmax and LayerNormalization in integer arithmetic (normalizations.py, fixed_point.py).
  The marker becomes the integer result where the walk succeeds and its float computation where it
  does not (an op the walk does not know, the graph's float input); DequantizeLinear markers become
  their float computation (read only by float ops then, the graph's output), and the float ops
  left unread are erased.

What stays float: the graph's input QuantizeLinear and output DequantizeLinear (float32 in, float32
out), and regions of ops the walk does not know. With the route option quantized_io=int8,
`quantized_inputs_and_outputs_as_int8` (before the walk) leaves those two to the caller: the int8
tensors become the function's inputs and results, and no float op is left (Vela refuses a graph
with any). Results are within one quantization step of onnxruntime's float computation: each
rescale rounds once, half up where ONNX rounds half to even.

It can go when torch-mlir's TOSA lowering turns QDQ patterns into integer TOSA itself (it fuses
per-tensor dequantize -> conv/matmul only, and requantizes in float).
"""

from __future__ import annotations

from torch_mlir import ir

from ....conversion.onnx_to_torch.quantization.tosa_markers import DEQUANTIZE, PARAMETERS, PREFIX, QUANTIZE
from ....ir_walk import ops_named
from ...torch.custom_ops import builtin_tensor_type, load_backend_dialects
from ...torch.rewriting import defining_op
from .integers import element, static
from .markers import (MARKER_DOMAIN, dequantizations_read_signed, flipped, is_flip, is_marker, operator, parameters,
                      signed, unsigned_for_others)
from .walk import Walk


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


def quantized_regions_as_integer(module: ir.Module, approximations: bool = False) -> int:
    """Resolve every marker (module docstring); the count of QuantizeLinear markers made integer.

    `approximations`: Softmax and LayerNormalization in integer arithmetic too. Those are within a
    step of onnxruntime's float computation, op by op, but not exact, and the steps add up through a
    network (the zoo's QOperator BERT: 0.08 off where the float forms are exact), so they are made
    only where no float op may be left (quantized_io=int8, an NPU's graph); elsewhere the ops stay
    the float computation the QDQ model defines."""
    made_integer = 0
    with module.context, ir.Location.unknown():
        markers = [op for op in ops_named(module, ("tosa.custom",)) if is_marker(op)]
        if not markers:
            return 0
        walk = Walk(approximations)
        dequantizations = [marker for marker in markers if operator(marker) == DEQUANTIZE]
        for marker in markers:
            if operator(marker) != QUANTIZE:
                continue
            marker_parameters = signed(parameters(marker))
            integer = None
            if static(marker.results[0].type):
                integer = walk.requantize(marker.operands[0], marker_parameters["scale"][0],
                                          marker_parameters["zero_point"][0])
            made_integer += integer is not None
            computed = integer if integer is not None else marker.operands[1]
            if parameters(marker).get("unsigned"):
                computed = unsigned_for_others(marker, integer)
            marker.results[0].replace_all_uses_with(computed)
            marker.erase()
        for marker in dequantizations:
            marker.results[0].replace_all_uses_with(marker.operands[1])
            marker.erase()
        for function in ops_named(module, ("func.func",)):
            _fold_double_flips(function)
            _erase_unread(function)
    return made_integer


_LAYOUT_OPS = ("tosa.reshape", "tosa.transpose", "tosa.slice")


def _fold_double_flips(function: ir.Operation) -> None:
    """flip(layout(flip(x))) is layout(x), for a chain of layout ops, maybe empty (an int8 output
    of a uint8 model with quantized_io=int8; a uint8 QOperator Flatten between two quantized ops)."""
    for op in ops_named(function, ("tosa.bitwise_xor",)):
        if not is_flip(op):
            continue
        chain, inner = [], defining_op(op.operands[0])
        while inner is not None and inner.name in _LAYOUT_OPS:
            chain.append(inner)
            inner = defining_op(inner.operands[0])
        if inner is None or inner.name != "tosa.bitwise_xor" or not is_flip(inner):
            continue
        value = inner.operands[0]
        for layout in reversed(chain):
            clone = layout.clone(ip=ir.InsertionPoint(op))
            clone.operands[0] = value
            value = clone.results[0]
        op.results[0].replace_all_uses_with(value)


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
                    if parameters(marker).get("unsigned"):  # the input is int8 q - 128
                        dequantizations_read_signed(marker, argument)
                        others = flipped(argument, marker)
                    marker.results[0].replace_all_uses_with(others)
                    marker.erase()
                _erase_unread(function)  # the float computations of the quantization, which read the input
                changed += 1
            terminator = block.operations[len(block.operations) - 1].operation
            for index, result in enumerate(terminator.operands):
                marker = defining_op(result)
                if marker is None or not is_marker(marker) or operator(marker) != DEQUANTIZE:
                    continue
                marker_parameters = parameters(marker)
                if element(marker.operands[0]) != "i8" or marker_parameters["axis"] is not None:
                    continue
                terminator.operands[index] = marker.operands[0]
                if marker_parameters.get("unsigned"):  # the result is int8 q - 128
                    terminator.operands[index] = flipped(marker.operands[0], terminator)
                changed += 1
            if changed:
                function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                    [argument.type for argument in block.arguments], [value.type for value in terminator.operands]))
    return changed


def _only_quantized(argument: ir.Value) -> list[ir.Operation]:
    """The QuantizeLinear markers of `argument` when every path from it ends in one that quantizes
    the argument itself (the markers' float computations read it too), else []. A QuantizeLinear of
    something computed from the argument (a BERT's embeddings gathered by its token ids) leaves the
    argument as it is: the int8 tensor would not be the model's input."""
    markers, seen, pending = {}, set(), [argument]
    while pending:
        for use in pending.pop().uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if is_marker(user) and operator(user) == QUANTIZE:
                if use.operand_number == 0:
                    if user.operands[0] != argument:
                        return []
                    markers[str(user.location) + str(id(user))] = user
                continue
            if user.name == "func.return" or user.regions or not user.results:
                return []
            for result in user.results:
                if result not in seen:
                    seen.add(result)
                    pending.append(result)
    return list(markers.values())


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


