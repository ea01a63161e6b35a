"""LSTM, GRU and RNN: one time step of each cell; `sequence.py` runs it over the sequence.

Versions: 1 has `output_sequence` (whether Y is produced: we produce every output that is
used), 7 drops it; GRU 3 adds `linear_before_reset`; 14 adds `layout` (1: X, Y, the initial and
final states batch-major); 22 only adds bfloat16. So each op has a pattern at 1 and at 14
(and GRU at 3), and they differ only in the attributes they read.

Gate orders of W, R and B: LSTM i, o, f, c (P: i, o, f); GRU z, r, h; RNN one gate.
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .sequence import RecurrentLayer, activate, parse_activations


def _add(b: TorchBuilder, x: ir.Value, y: ir.Value | None) -> ir.Value:
    return x if y is None else b.binary("aten.add.Tensor", x, y)


def _mul(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.binary("aten.mul.Tensor", x, y)


def _mm(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    x_info, y_info = b.info(x), b.info(y)
    return b.op("aten.mm", b.tensor_type([x_info.sizes[0], y_info.sizes[1]], x_info.element), x, y)


def _clipped(b: TorchBuilder, x: ir.Value, clip: float | None) -> ir.Value:
    """`clip` bounds the input of every gate's activation to [-clip, clip]."""
    if clip is None:
        return x
    return b.op("aten.clamp", x.type, x, b.constant_float(-clip), b.constant_float(clip))


def _bias_sum(b: TorchBuilder, first: ir.Value | None, second: ir.Value | None) -> ir.Value | None:
    if first is None:
        return second
    return _add(b, first, second)


def _layer(node: OnnxNode, b: TorchBuilder, gates: int, layout: int, defaults: list[str]):
    layer = RecurrentLayer(node, b, gates, layout)
    activations = parse_activations(node, defaults, len(layer.directions))
    return layer, activations, node.attr_float("clip", None)


# -- RNN ---------------------------------------------------------------------------------------
def _rnn(node: OnnxNode, b: TorchBuilder, layout: int):
    """Ht = f(Xt·Wᵀ + Ht-1·Rᵀ + Wb + Rb)."""
    layer, activations, clip = _layer(node, b, 1, layout, ["Tanh"])
    directions = range(len(layer.directions))
    projections = [layer.project(d, _bias_sum(b, *layer.biases(d))) for d in directions]
    recurrences = [layer.transposed_recurrence(d) for d in directions]

    def step(sb: TorchBuilder, d: int, projected: ir.Value, states: tuple, t) -> tuple:
        gate = _add(sb, projected, _mm(sb, states[0], recurrences[d]))
        return (activate(sb, activations[d][0], _clipped(sb, gate, clip)),)

    initial = [(layer.initial_state(5, d),) for d in directions]
    return layer.results(*layer.run(projections, initial, step, node.result_is_used(0)))


@converts("RNN", since=1)
def rnn(node: OnnxNode, b: TorchBuilder):
    return _rnn(node, b, 0)


@converts("RNN", since=14)
def rnn_with_layout(node: OnnxNode, b: TorchBuilder):
    return _rnn(node, b, node.attr_int("layout"))


# -- GRU ---------------------------------------------------------------------------------------
def _gru(node: OnnxNode, b: TorchBuilder, layout: int, linear_before_reset: int):
    """zt = f(Xt·Wzᵀ + Ht-1·Rzᵀ + Wbz + Rbz), rt likewise with r;
    ht = g(Xt·Whᵀ + (rt ⊙ Ht-1)·Rhᵀ + Rbh + Wbh), or with linear_before_reset
    ht = g(Xt·Whᵀ + rt ⊙ (Ht-1·Rhᵀ + Rbh) + Wbh); Ht = (1 - zt) ⊙ ht + zt ⊙ Ht-1.

    Wb and Rbz, Rbr join the input projection; Rbh does too unless linear_before_reset puts it
    under rt."""
    layer, activations, clip = _layer(node, b, 3, layout, ["Sigmoid", "Tanh"])
    directions = range(len(layer.directions))
    projections, hidden_biases, update_reset_weights, hidden_weights = [], [], [], []
    for d in directions:
        input_bias, recurrent_bias = layer.biases(d)
        hidden_bias = None
        if recurrent_bias is not None and linear_before_reset:
            hidden_bias = layer.gate_slice(recurrent_bias, 2)
            update_reset_bias = _add(b, layer.gate_slice(input_bias, 0, 2), layer.gate_slice(recurrent_bias, 0, 2))
            input_bias = b.op(
                "aten.cat", b.type_like(input_bias),
                b.tensor_list([update_reset_bias, layer.gate_slice(input_bias, 2)]), b.constant_int(0),
            )
        else:
            input_bias = _bias_sum(b, input_bias, recurrent_bias)
        projections.append(layer.project(d, input_bias))
        hidden_biases.append(hidden_bias)
        recurrence = layer.transposed_recurrence(d)  # [H, 3H]
        update_reset_weights.append(layer.gate_slice(recurrence, 0, 2))
        hidden_weights.append(layer.gate_slice(recurrence, 2))

    def step(sb: TorchBuilder, d: int, projected: ir.Value, states: tuple, t) -> tuple:
        f, g = activations[d]
        h = states[0]
        update_reset = _add(sb, layer.gate_slice(projected, 0, 2, sb), _mm(sb, h, update_reset_weights[d]))
        update = activate(sb, f, _clipped(sb, layer.gate_slice(update_reset, 0, 1, sb), clip))
        reset = activate(sb, f, _clipped(sb, layer.gate_slice(update_reset, 1, 1, sb), clip))
        if linear_before_reset:
            recurrent = _mul(sb, reset, _add(sb, _mm(sb, h, hidden_weights[d]), hidden_biases[d]))
        else:
            recurrent = _mm(sb, _mul(sb, reset, h), hidden_weights[d])
        candidate = activate(sb, g, _clipped(sb, _add(sb, layer.gate_slice(projected, 2, 1, sb), recurrent), clip))
        # (1 - z) ⊙ ĥ + z ⊙ H = ĥ + z ⊙ (H - ĥ)
        return (_add(sb, candidate, _mul(sb, update, sb.binary("aten.sub.Tensor", h, candidate))),)

    initial = [(layer.initial_state(5, d),) for d in directions]
    return layer.results(*layer.run(projections, initial, step, node.result_is_used(0)))


@converts("GRU", since=1)
def gru(node: OnnxNode, b: TorchBuilder):
    return _gru(node, b, 0, 0)


@converts("GRU", since=3)
def gru_with_linear_before_reset(node: OnnxNode, b: TorchBuilder):
    return _gru(node, b, 0, node.attr_int("linear_before_reset"))


@converts("GRU", since=14)
def gru_with_layout(node: OnnxNode, b: TorchBuilder):
    return _gru(node, b, node.attr_int("layout"), node.attr_int("linear_before_reset"))


# -- LSTM --------------------------------------------------------------------------------------
def _lstm(node: OnnxNode, b: TorchBuilder, layout: int):
    """it = f(Xt·Wiᵀ + Ht-1·Riᵀ + Pi ⊙ Ct-1 + Wbi + Rbi), ft likewise with f (or 1 - it with
    input_forget), ct = g(Xt·Wcᵀ + Ht-1·Rcᵀ + Wbc + Rbc), Ct = ft ⊙ Ct-1 + it ⊙ ct,
    ot = f(Xt·Woᵀ + Ht-1·Roᵀ + Po ⊙ Ct + Wbo + Rbo), Ht = ot ⊙ h(Ct)."""
    layer = RecurrentLayer(node, b, 4, layout)
    directions = range(len(layer.directions))
    projections = [layer.project(d, _bias_sum(b, *layer.biases(d))) for d in directions]
    recurrences = [layer.transposed_recurrence(d) for d in directions]
    return run_lstm(node, b, layer, projections, lambda sb, d, hidden, t: _mm(sb, hidden, recurrences[d]))


def run_lstm(node: OnnxNode, b: TorchBuilder, layer: RecurrentLayer, projections: list, recurrent_product,
             gate_biases: list | None = None, activation=activate):
    """The LSTM cell of `_lstm` over the sequence, from the projected inputs of each direction
    ([T, B, 4H]) and `recurrent_product(builder, direction, Ht-1, t)`, Ht-1·Rᵀ [B, 4H] at step t
    (DynamicQuantizeLSTM computes both its own way). The biases are in the projections, or, in
    `gate_biases` ([4H] per direction), added to each gate after the products and the peephole
    term, where onnxruntime adds them; `activation(builder, Activation, x)` computes f, g and h."""
    activations = parse_activations(node, ["Sigmoid", "Tanh", "Tanh"], len(layer.directions))
    clip = node.attr_float("clip", None)
    input_forget = node.attr_int("input_forget", 0)
    directions = range(len(layer.directions))
    peepholes = []
    for d in directions:
        peephole = layer.direction_input(7, d)  # [3H]: i, o, f
        peepholes.append(None if peephole is None else [layer.gate_slice(peephole, gate) for gate in range(3)])
    biases = [[None] * 4 if gate_biases is None or gate_biases[d] is None
              else [layer.gate_slice(gate_biases[d], gate) for gate in range(4)] for d in directions]

    def step(sb: TorchBuilder, d: int, projected: ir.Value, states: tuple, t) -> tuple:
        f, g, h = activations[d]
        hidden, cell = states
        gates = _add(sb, projected, recurrent_product(sb, d, hidden, t))
        input_gate, output_gate, forget_gate, cell_gate = (layer.gate_slice(gates, k, 1, sb) for k in range(4))
        peephole, bias = peepholes[d], biases[d]
        if peephole is not None:
            input_gate = _add(sb, input_gate, _mul(sb, peephole[0], cell))
            forget_gate = _add(sb, forget_gate, _mul(sb, peephole[2], cell))
        input_gate = activation(sb, f, _clipped(sb, _add(sb, input_gate, bias[0]), clip))
        if input_forget:
            forget_gate = sb.op(
                "aten.rsub.Scalar", input_gate.type, input_gate, sb.constant_float(1.0), sb.constant_int(1)
            )
        else:
            forget_gate = activation(sb, f, _clipped(sb, _add(sb, forget_gate, bias[2]), clip))
        cell_gate = activation(sb, g, _clipped(sb, _add(sb, cell_gate, bias[3]), clip))
        new_cell = _add(sb, _mul(sb, forget_gate, cell), _mul(sb, input_gate, cell_gate))
        if peephole is not None:
            output_gate = _add(sb, output_gate, _mul(sb, peephole[1], new_cell))
        output_gate = activation(sb, f, _clipped(sb, _add(sb, output_gate, bias[1]), clip))
        return _mul(sb, output_gate, activation(sb, h, new_cell)), new_cell

    initial = [(layer.initial_state(5, d), layer.initial_state(6, d)) for d in directions]
    return layer.results(*layer.run(projections, initial, step, node.result_is_used(0)))


@converts("LSTM", since=1)
def lstm(node: OnnxNode, b: TorchBuilder):
    return _lstm(node, b, 0)


@converts("LSTM", since=14)
def lstm_with_layout(node: OnnxNode, b: TorchBuilder):
    return _lstm(node, b, node.attr_int("layout"))
