"""The machinery LSTM, GRU and RNN share: one layer run over a sequence, in one or two directions.

**The time loop.** The input projection X·Wᵀ (+ the biases that do not depend on the state) of
all time steps is one `aten.matmul` before the loop; the loop carries only the recurrent part.
The loop itself takes one of two forms:

- *unrolled*, when the sequence length is known at conversion time and at most `UNROLL_LIMIT`
  (on TOSA and StableHLO at any static length): one copy of the cell per step, `aten.stack` of
  the step outputs. Every torch-mlir lowering takes it, and the IR is plain dataflow that the
  backends fuse; its size grows with the length (~25 torch ops per step and direction).
- `torch.prim.Loop`, when the length is only known at run time (or is longer than the limit on
  Linalg and Torch output): the states and, if Y is used, one [T, B, H] buffer per direction
  (written with `aten.slice_scatter`) are loop-carried. torch-mlir lowers it to `scf.for` on
  Linalg only: its TOSA and StableHLO pipelines have no conversion for `torch.prim.Loop`, so a
  dynamic sequence length fails there with a message that says to fix the dim (`--dim`).

The reverse direction reads and writes step T-1-t.

**sequence_lens.** A batch entry's steps at or beyond its length leave the state unchanged and
output zeros (a `where` on `lengths > t`), so Y_h and Y_c are the state at the entry's last valid
step. The reverse direction walks from T-1 down: its masked steps come first and keep the
initial state, so it starts at step length-1 as ONNX says. An entry of length 0 ends with zero
states, as onnxruntime gives. The mask is built from the run-time lengths; a literal
`sequence_lens` equal to T everywhere needs none.

**Activations** (`activations`, `activation_alpha`, `activation_beta`): names are matched
without case as onnxruntime does; the alpha and beta lists are consumed in order by the
activations that take them; a missing value takes the default of the ONNX operator of that name
(LeakyRelu 0.01, ThresholdedRelu 1.0, HardSigmoid 0.2/0.5, Elu 1.0, Affine 1.0/0.0), as the
ONNX specification says (onnxruntime takes 0 for ThresholdedRelu and Affine), and ScaledTanh,
which has none, needs both. A list of one direction's activations serves both
directions of a bidirectional layer. `clip` bounds every gate's input to the activation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import LOOPLESS_TARGETS, OnnxNode
from .tensor_loop import run_tensor_loop

# Static lengths up to this are unrolled on Linalg and for Torch output; beyond it a
# `torch.prim.Loop` keeps the IR small. TOSA and StableHLO always unroll a static length.
UNROLL_LIMIT = 64

# Which of alpha and beta each activation takes, and the defaults of the ONNX ops of that name.
ACTIVATION_PARAMETERS = {
    "relu": (False, False), "tanh": (False, False), "sigmoid": (False, False),
    "affine": (True, True), "leakyrelu": (True, False), "thresholdedrelu": (True, False),
    "scaledtanh": (True, True), "hardsigmoid": (True, True), "elu": (True, False),
    "softsign": (False, False), "softplus": (False, False),
}
ACTIVATION_DEFAULTS = {
    "affine": (1.0, 0.0), "leakyrelu": (0.01, None), "thresholdedrelu": (1.0, None),
    "hardsigmoid": (0.2, 0.5), "elu": (1.0, None),
}


@dataclass(frozen=True)
class Activation:
    name: str  # lower case
    alpha: float | None = None
    beta: float | None = None


def parse_activations(node: OnnxNode, defaults: Sequence[str], directions: int) -> list[list[Activation]]:
    """The activations of each direction (`len(defaults)` per direction)."""
    count = len(defaults)
    # Not the schema default: RNN's lists Tanh twice whatever the direction.
    names = node.attr_strings("activations", None) or list(defaults) * directions
    if len(names) not in (count, count * directions):
        node.fail(f"'activations' lists {len(names)} functions; {count} per direction are needed")
    alphas = iter(node.attr_floats("activation_alpha", None) or [])
    betas = iter(node.attr_floats("activation_beta", None) or [])
    parsed = []
    for name in names:
        key = name.lower()
        if key not in ACTIVATION_PARAMETERS:
            node.fail(f"activation '{name}' is not one of the RNN activations ({', '.join(ACTIVATION_PARAMETERS)})")
        takes_alpha, takes_beta = ACTIVATION_PARAMETERS[key]
        default_alpha, default_beta = ACTIVATION_DEFAULTS.get(key, (None, None))
        alpha = next(alphas, default_alpha) if takes_alpha else None
        beta = next(betas, default_beta) if takes_beta else None
        if (takes_alpha and alpha is None) or (takes_beta and beta is None):
            node.fail(f"activation '{name}' needs its values in activation_alpha and activation_beta")
        parsed.append(Activation(key, alpha, beta))
    if len(parsed) == count:
        parsed = parsed * directions
    return [parsed[d * count : (d + 1) * count] for d in range(directions)]


def activate(b: TorchBuilder, activation: Activation, x: ir.Value) -> ir.Value:
    """One activation of an RNN cell, with its alpha and beta."""
    name, alpha, beta, x_type = activation.name, activation.alpha, activation.beta, x.type
    if name in ("relu", "tanh", "sigmoid"):
        return b.op(f"aten.{name}", x_type, x)
    if name == "affine":
        return b.scalar_op("aten.add.Scalar", b.scalar_op("aten.mul.Scalar", x, alpha), beta)
    if name == "leakyrelu":
        return b.op("aten.leaky_relu", x_type, x, b.constant_float(alpha))
    if name == "thresholdedrelu":
        return b.op("aten.threshold", x_type, x, b.constant_float(alpha), b.constant_float(0.0))
    if name == "scaledtanh":
        return b.scalar_op("aten.mul.Scalar", b.op("aten.tanh", x_type, b.scalar_op("aten.mul.Scalar", x, beta)), alpha)
    if name == "hardsigmoid":
        shifted = b.scalar_op("aten.add.Scalar", b.scalar_op("aten.mul.Scalar", x, alpha), beta)
        return b.op("aten.clamp", x_type, shifted, b.constant_float(0.0), b.constant_float(1.0))
    if name == "elu":
        one = b.constant_float(1.0)
        return b.op("aten.elu", x_type, x, b.constant_float(alpha), one, one)
    if name == "softsign":
        denominator = b.scalar_op("aten.add.Scalar", b.op("aten.abs", x_type, x), 1.0)
        return b.binary("aten.div.Tensor", x, denominator)
    assert name == "softplus"
    return b.op("aten.softplus", x_type, x, b.constant_int(1), b.constant_int(20))


# A step: (builder, direction index, projected input of the step [B, G*H], states, t) -> new states.
# The first state is the hidden state H, which is also the step's output. t is the step's time
# index: an int, a `!torch.int`, or a [] si64 tensor (tensor_loop.py).
Step = Callable[[TorchBuilder, int, ir.Value, tuple, object], tuple]


class RecurrentLayer:
    """The operands of one LSTM/GRU/RNN node, time-major, and the loop over its time steps.

    Inputs: X (0), W (1), R (2), B (3), sequence_lens (4), initial_h (5), initial_c (6), P (7).
    W and R are [D, G*H, K] (K the input or hidden size), or [D, K, G*H] with `weights_transposed`
    (com.microsoft DynamicQuantizeLSTM's layout, whose pattern multiplies by them itself).
    """

    def __init__(self, node: OnnxNode, b: TorchBuilder, gates: int, layout: int, weights_transposed: bool = False):
        self.node, self.b, self.gates, self.layout = node, b, gates, layout
        self.weights_transposed = weights_transposed
        if layout not in (0, 1):
            node.fail(f"layout {layout} is not 0 or 1")
        for index, what in ((0, "X"), (1, "W"), (2, "R")):
            if node.input_info(index).rank != 3:
                node.fail(f"{what} needs rank 3")
        x = node.input(0)
        self.x = self.batch_major_to_time_major(x) if layout == 1 else x
        self.element = b.info(self.x).element
        direction = node.attr_string("direction", "forward")  # the schemas before 7 default to "foward"
        self.directions = {"forward": ["forward"], "reverse": ["reverse"], "bidirectional": ["forward", "reverse"]}.get(
            direction
        )
        if self.directions is None:
            node.fail(f"direction '{direction}' is not forward, reverse or bidirectional")
        for index, what in ((1, "W"), (2, "R")):
            count = node.input_info(index).sizes[0]
            if count is not None and count != len(self.directions):
                node.fail(f"{what}'s dim 0 (directions) is {count}; direction '{direction}' needs {len(self.directions)}")
        self.hidden = self._hidden_size()
        self.steps, self.batch = b.dim(self.x, 0), b.dim(self.x, 1)
        if self.steps == 0:
            node.fail("the sequence is empty (length 0)")
        self.lengths = self._lengths()

    def _hidden_size(self) -> int:
        hidden = self.node.attr_int("hidden_size", None)
        rows_dim, columns_dim = (2, 1) if self.weights_transposed else (1, 2)
        from_r = self.node.input_info(2).sizes[columns_dim]
        if hidden is None:
            hidden = from_r
        if hidden is None:
            self.node.fail("the hidden size is unknown: give hidden_size or a static R")
        if from_r is not None and from_r != hidden:
            where = "dim 1" if self.weights_transposed else "last dim"
            self.node.fail(f"hidden_size {hidden} does not match R's {where} {from_r}")
        for index, what in ((1, "W"), (2, "R")):
            rows = self.node.input_info(index).sizes[rows_dim]
            if rows is not None and rows != self.gates * hidden:
                self.node.fail(f"{what} has {rows} rows (dim {rows_dim}); {self.gates} gates of hidden_size {hidden} "
                               f"need {self.gates * hidden}")
        return hidden

    def _lengths(self) -> ir.Value | None:
        """sequence_lens as si64 [B], or None when every entry runs the whole sequence."""
        if not self.node.has_input(4):
            return None
        literal = self.node.constant_input(4)
        if literal is not None and isinstance(self.steps, int) and (literal == self.steps).all():
            return None
        return self.b.to_dtype(self.node.input(4), "si64")

    # -- operands --------------------------------------------------------------
    def batch_major_to_time_major(self, value: ir.Value) -> ir.Value:
        """Swap dims 0 and 1 (layout 1's [B, T, ...] and [B, D, H] to [T, B, ...] and [D, B, H])."""
        return self.transpose(value, 0, 1)

    def transpose(self, value: ir.Value, first: int, second: int) -> ir.Value:
        b = self.b
        sizes = list(b.info(value).sizes)
        sizes[first], sizes[second] = sizes[second], sizes[first]
        return b.op(
            "aten.transpose.int", b.tensor_type(sizes, b.info(value).element), value,
            b.constant_int(first), b.constant_int(second),
        )

    def select(self, value: ir.Value, index, b: TorchBuilder | None = None) -> ir.Value:
        """value[index] along dim 0 (`index` an int or a `!torch.int`)."""
        b = b or self.b
        info = b.info(value)
        return b.op(
            "aten.select.int", b.tensor_type(info.sizes[1:], info.element), value, b.constant_int(0),
            b.dim_value(index),
        )

    def direction_input(self, index: int, direction: int) -> ir.Value | None:
        """Input `index` (W, R, B, P: [D, ...]) of one direction, or None if absent."""
        value = self.node.optional_input(index)
        return None if value is None else self.select(value, direction)

    def gate_slice(self, value: ir.Value, first_gate: int, gate_count: int = 1, b: TorchBuilder | None = None):
        """Gates [first, first+count) of the last dim of `value` (each `hidden` wide)."""
        b = b or self.b
        info = b.info(value)
        dim = info.rank - 1
        start, end = first_gate * self.hidden, (first_gate + gate_count) * self.hidden
        if start == 0 and info.sizes[dim] == end:
            return value
        return b.slice_range(value, dim, start, end)

    def biases(self, direction: int) -> tuple[ir.Value | None, ir.Value | None]:
        """(Wb, Rb) of one direction, each [G*H], or (None, None) without B."""
        bias = self.direction_input(3, direction)
        if bias is None:
            return None, None
        return self.gate_slice(bias, 0, self.gates), self.gate_slice(bias, self.gates, self.gates)

    def transposed_recurrence(self, direction: int) -> ir.Value:
        """Rᵀ of one direction: [H, G*H], so that a step computes H·Rᵀ with one `aten.mm`."""
        recurrence = self.direction_input(2, direction)
        return recurrence if self.weights_transposed else self.transpose(recurrence, 0, 1)

    def project(self, direction: int, bias: ir.Value | None) -> ir.Value:
        """X·Wᵀ (+ bias) of one direction for all time steps at once: [T, B, G*H]."""
        b = self.b
        weights = self.direction_input(1, direction)
        weights_t = weights if self.weights_transposed else self.transpose(weights, 0, 1)
        x_info = b.info(self.x)
        projected_type = b.tensor_type([x_info.sizes[0], x_info.sizes[1], self.gates * self.hidden], self.element)
        projected = b.op("aten.matmul", projected_type, self.x, weights_t)
        return projected if bias is None else b.binary("aten.add.Tensor", projected, bias, projected_type)

    def initial_state(self, index: int, direction: int) -> ir.Value:
        """initial_h (5) or initial_c (6) of one direction as [B, H]; zeros when absent."""
        b = self.b
        value = self.node.optional_input(index)
        if value is None:
            return b.full([self.batch, self.hidden], 0.0, self.element)
        if self.layout == 1:
            value = self.batch_major_to_time_major(value)
        return self.select(value, direction)

    # -- the time loop ---------------------------------------------------------
    def run(self, projections: list, initial_states: list[tuple], step: Step, want_y: bool):
        """Run every direction over the sequence: ([Y per direction [T, B, H]] or None, [final states])."""
        steps, target = self.steps, self.node.target
        if isinstance(steps, int) and (steps <= UNROLL_LIMIT or target in LOOPLESS_TARGETS):
            outputs, finals = self._run_unrolled(projections, initial_states, step, want_y)
        elif target == "tosa":
            self.node.fail(
                "the sequence length is dynamic, and on tosa the step outputs would grow at run time, which "
                "torch-mlir's TOSA lowering cannot take: fix the length at compile time (--dim NAME=SIZE)"
            )
        else:
            run_loop = self._run_loop if target not in LOOPLESS_TARGETS else partial(run_tensor_loop, self)
            loops = [
                run_loop(direction, projections[direction], initial_states[direction], step, want_y)
                for direction in range(len(self.directions))
            ]
            outputs, finals = ([output for output, _ in loops] if want_y else None), [final for _, final in loops]
        return outputs, [self._zero_for_empty_entries(states) for states in finals]

    def _zero_for_empty_entries(self, states: tuple) -> tuple:
        """The final states of an entry of length 0 are zeros (as onnxruntime gives), not the initial ones."""
        if self.lengths is None:
            return states
        b = self.b
        zeros = b.full([self.batch, self.hidden], 0.0, self.element)
        _, states = self._masked(b, 0, states, tuple(b.cast_to(zeros, state.type) for state in states))
        return states

    def _masked(self, b: TorchBuilder, t, new_states: tuple, old_states: tuple):
        """(output, states) of a step: entries whose length is <= t keep their state and output 0."""
        if self.lengths is None:
            return new_states[0], new_states
        lengths_info = b.info(self.lengths)
        valid = b.op("aten.gt.Scalar", b.tensor_type(lengths_info.sizes, "i1"), self.lengths, b.dim_value(t))
        valid = b.unsqueeze(valid, 1)
        states = tuple(
            b.op("aten.where.self", old.type, valid, new, old) for new, old in zip(new_states, old_states)
        )
        output = b.op("aten.where.ScalarOther", old_states[0].type, valid, new_states[0], b.constant_float(0.0))
        return output, states

    def _step(self, b: TorchBuilder, direction: int, projected: ir.Value, t, states: tuple, step: Step):
        new_states = tuple(b.cast_to(new, old.type) for new, old in zip(step(b, direction, projected, states, t), states))
        return self._masked(b, t, new_states, states)

    def _run_unrolled(self, projections, initial_states, step: Step, want_y: bool):
        b = self.b
        outputs, finals = [], []
        for direction, name in enumerate(self.directions):
            states = initial_states[direction]
            per_step = [None] * self.steps
            order = range(self.steps) if name == "forward" else reversed(range(self.steps))
            for t in order:
                projected = self.select(projections[direction], t)
                per_step[t], states = self._step(b, direction, projected, t, states, step)
            finals.append(states)
            outputs.append(self.stack(per_step, 0) if want_y else None)
        return (outputs if want_y else None), finals

    def _run_loop(self, direction: int, projection: ir.Value, initial_states: tuple, step: Step, want_y: bool):
        """One direction's `torch.prim.Loop` over the time steps: (Y [T, B, H] or None, final states).

        The states, then the Y buffer, are loop-carried. Each direction has its own loop: with
        both in one, IREE computed the forward direction wrongly when both initial states were
        slices of one initial_h (the reference runner did not)."""
        b = self.b
        carried = list(initial_states)
        if want_y:
            carried.append(b.full([self.steps, self.batch, self.hidden], 0.0, self.element))
        true = b.constant_bool(True)
        loop = ir.Operation.create(
            "torch.prim.Loop", results=[value.type for value in carried],
            operands=[b.dim_value(self.steps), true, *carried], regions=1, loc=b.location,
            ip=ir.InsertionPoint(b.anchor),
        )
        types = [b.type("!torch.int")] + [value.type for value in carried]
        body = loop.regions[0].blocks.append(*types, arg_locs=[b.location] * len(types))
        index, arguments = body.arguments[0], list(body.arguments[1:])
        condition = ir.Operation.create(
            "torch.prim.Loop.condition", operands=[true, *arguments], loc=b.location, ip=ir.InsertionPoint(body)
        )
        inner = TorchBuilder(condition, b.location)
        t = index if self.directions[direction] == "forward" else inner.dim_sub(inner.dim_sub(self.steps, 1), index)
        states = tuple(arguments[: len(initial_states)])
        output, states = self._step(inner, direction, self.select(projection, t, inner), t, states, step)
        yielded = list(states) + ([self._write_step(inner, arguments[-1], output, t)] if want_y else [])
        for position, value in enumerate(yielded):
            condition.operands[position + 1] = value
        results = list(loop.results)
        return (results[-1] if want_y else None), tuple(results[: len(initial_states)])

    def _write_step(self, b: TorchBuilder, buffer: ir.Value, output: ir.Value, t) -> ir.Value:
        """buffer[t] = output, as `aten.slice_scatter` along dim 0."""
        return b.op(
            "aten.slice_scatter", buffer.type, buffer, b.unsqueeze(output, 0), b.constant_int(0),
            b.dim_value(t), b.dim_value(b.dim_add(t, 1)), b.constant_int(1),
        )

    # -- outputs ---------------------------------------------------------------
    def stack(self, values: Sequence[ir.Value], dim: int) -> ir.Value:
        """`aten.stack` along a new dim `dim` (one value: `aten.unsqueeze`)."""
        b = self.b
        if len(values) == 1:
            return b.unsqueeze(values[0], dim)
        sizes = list(b.info(values[0]).sizes)
        sizes.insert(dim, len(values))
        return b.op("aten.stack", b.tensor_type(sizes, self.element), b.tensor_list(list(values)), b.constant_int(dim))

    def results(self, outputs, finals: list[tuple]) -> list:
        """[Y, Y_h, Y_c] (up to the node's result count) in the node's layout; None where unused."""
        node, b = self.node, self.b
        results = []
        for index in range(node.num_results):
            if not node.result_is_used(index):
                results.append(None)
                continue
            if index == 0:
                value = self.stack(outputs, 1)  # [T, D, B, H]
                if self.layout == 1:
                    sizes = b.info(value).sizes
                    value = b.op(
                        "aten.permute", b.tensor_type([sizes[2], sizes[0], sizes[1], sizes[3]], self.element),
                        value, b.int_list([2, 0, 1, 3]),
                    )
            else:
                value = self.stack([states[index - 1] for states in finals], 0)  # [D, B, H]
                if self.layout == 1:
                    value = self.batch_major_to_time_major(value)
            results.append(b.cast_to(value, node.result_type(index)))
        return results

