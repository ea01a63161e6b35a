"""The quantization step of each value of a quantized model, for `verify`'s comparison.

Two correct implementations of a quantized model differ by whole steps: a value that lands near
the middle between two integers rounds one way in onnxruntime and the other way here (onnxruntime
itself differs from itself by a step between its optimized and unoptimized runs). So `verify`
compares a value that a quantized path produced in units of its step, and one step is a match.

The step of a value, in its real (dequantized) units, is found by one walk in graph order:

- where a value is quantized, the step is its scale (the largest, if per channel):
  DequantizeLinear's output has its scale input; QuantizeLinear's, the QLinear* ops' and
  com.microsoft's quantized ops' integer outputs have their output scale (`y_scale`);
  DynamicQuantizeLinear's output has the scale it computes (read from onnxruntime's run);
- an integer accumulator (MatMulInteger, ConvInteger) has one input step through the largest
  weight: max |B - B_zero_point| units (what one element of A rounding the other way moves);
- after that, through float ops: Add, Sub and Sum add their operands' steps; Mul by a value off
  the quantized path multiplies the step by that value's largest magnitude (which turns the
  integer accumulator's units into real ones), Div divides it by the smallest; a product of two
  quantized values takes step_a * max|b| + step_b * max|a|; a normalization (LayerNormalization,
  com.microsoft's SkipLayerNormalization, InstanceNormalization, BatchNormalization) multiplies it
  by max |gamma| / the smallest standard deviation it divides by; every other op keeps the
  largest step of its inputs (a ReLU, a reshape, a pooling, a softmax never magnify a difference).

An integer output of a quantized op (a QuantizeLinear at the graph's end) matches within one
integer unit. Values a float path computes without any quantized op before them have no step and
are compared with rtol/atol as usual. Values the rule needs from the run (scales computed at run
time, the other operand of a Mul, a normalization's input) are extra outputs of onnxruntime's run.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

# Ops whose integer outputs are quantized with the scale at this input index (`y_scale`).
OUTPUT_SCALE_INPUT = {
    ("", "QuantizeLinear"): 1,
    ("", "QLinearConv"): 6,
    ("", "QLinearMatMul"): 6,
    ("com.microsoft", "QLinearAdd"): 6,
    ("com.microsoft", "QLinearMul"): 6,
    ("com.microsoft", "QLinearSigmoid"): 3,
    ("com.microsoft", "QLinearLeakyRelu"): 3,
    ("com.microsoft", "QLinearSoftmax"): 3,
    ("com.microsoft", "QLinearAveragePool"): 3,
    ("com.microsoft", "QLinearGlobalAveragePool"): 3,
    ("com.microsoft", "QLinearReduceMean"): 3,
    ("com.microsoft", "QLinearWhere"): 5,
    ("com.microsoft", "QLinearConcat"): 0,
    ("com.microsoft", "QGemm"): 7,
    ("com.microsoft", "QuantizeLinear"): 1,
}
DEQUANTIZE = {("", "DequantizeLinear"), ("com.microsoft", "DequantizeLinear")}
ACCUMULATORS = {("", "MatMulInteger"): (1, 3), ("", "ConvInteger"): (1, 3)}  # (B, B zero point) inputs
NORMALIZATIONS = {"LayerNormalization", "SkipLayerNormalization", "SimplifiedLayerNormalization",
                  "SkipSimplifiedLayerNormalization", "InstanceNormalization", "BatchNormalization"}
FLOAT_OUTPUT_QUANTIZED = {("com.microsoft", "MatMulIntegerToFloat"), ("com.microsoft", "DynamicQuantizeMatMul"),
                          ("com.microsoft", "MatMulNBits"), ("com.microsoft", "QAttention"),
                          ("com.microsoft", "DynamicQuantizeLSTM")}


def _domain(node) -> str:
    return "" if node.domain in ("", "ai.onnx") else node.domain


class QuantizationSteps:
    """`needed`: names of values the rule reads from the run; `steps(values)`: step per value."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        graph = model.graph
        self.constants = {tensor.name: tensor for tensor in graph.initializer}
        for node in graph.node:
            if node.op_type == "Constant" and _domain(node) == "" and node.attribute and node.attribute[0].name == "value":
                self.constants[node.output[0]] = node.attribute[0].t
        self.quantized = self._has_quantized_ops()
        self.needed: list[str] = []
        self._walk({}, collect=True)

    def _has_quantized_ops(self) -> bool:
        return any((_domain(node), node.op_type) in OUTPUT_SCALE_INPUT or (_domain(node), node.op_type) in DEQUANTIZE
                   or (_domain(node), node.op_type) in ACCUMULATORS or (_domain(node), node.op_type) in FLOAT_OUTPUT_QUANTIZED
                   or node.op_type == "DynamicQuantizeLinear" for node in self.model.graph.node)

    def steps(self, values: dict) -> dict:
        """Step of every value on a quantized path: name -> (step, integer_units)."""
        return self._walk(values, collect=False)

    def _walk(self, values: dict, collect: bool) -> dict:
        self._collecting = collect
        steps: dict[str, tuple[float, bool]] = {}  # name -> (step in real units, whether the value is integer)
        inputs_names = {value.name for value in self.model.graph.input}

        def value(name):
            if name in self.constants:
                return numpy_helper.to_array(self.constants[name])
            if name in values:
                return np.asarray(values[name])
            if collect and name and name not in self.needed and (name in produced or name in inputs_names):
                self.needed.append(name)
            return None

        def largest(name, minimum=False):
            array = value(name)
            if array is None and collect:  # the first walk only learns what it reads: go on as if 1
                return 1.0
            if array is None or array.size == 0 or array.dtype.kind not in "fiu":
                return None
            magnitudes = np.abs(array.astype(np.float64))
            return float(magnitudes.min() if minimum else magnitudes.max())

        def step_of(name):
            return steps.get(name, (None, False))[0]

        produced = {output for node in self.model.graph.node for output in node.output}
        for node in self.model.graph.node:
            key = (_domain(node), node.op_type)
            in_steps = [step_of(name) for name in node.input if name]
            known = [s for s in in_steps if s is not None]
            result = None
            integer = False
            if key in DEQUANTIZE:
                result = largest(node.input[1])
            elif key in OUTPUT_SCALE_INPUT:
                index = OUTPUT_SCALE_INPUT[key]
                result = largest(node.input[index]) if index < len(node.input) and node.input[index] else None
                integer = index < len(node.input) and bool(node.input[index])
                if result is None and not integer:  # QGemm without y_scale: a float output
                    result = max(known, default=None)
            elif node.op_type == "DynamicQuantizeLinear":
                scale = largest(node.output[1])
                if scale is not None:
                    steps[node.output[0]] = (scale, True)
                continue
            elif key in ACCUMULATORS:
                b_index, zero_index = ACCUMULATORS[key]
                weights = value(node.input[b_index])
                if weights is not None:
                    zero = value(node.input[zero_index]) if len(node.input) > zero_index and node.input[zero_index] else 0
                    zero = 0 if zero is None else zero
                    result = float(np.abs(weights.astype(np.int64) - np.asarray(zero).astype(np.int64)).max()) if weights.size else 0.0
                else:
                    result = 1.0
            elif key in FLOAT_OUTPUT_QUANTIZED:
                result = max(known, default=None)
            elif not known:
                continue
            elif node.op_type in ("Add", "Sub", "Sum"):
                result = sum(known)
            elif node.op_type in ("Mul", "Div") and len(node.input) == 2:
                a, b = node.input
                if step_of(a) is not None and step_of(b) is not None and node.op_type == "Mul":
                    a_max, b_max = largest(a), largest(b)
                    result = None if a_max is None or b_max is None else step_of(a) * b_max + step_of(b) * a_max
                elif step_of(a) is not None:
                    other = largest(b, minimum=node.op_type == "Div")
                    if other is not None:
                        result = step_of(a) / other if node.op_type == "Div" else step_of(a) * other
                        if node.op_type == "Div" and other == 0:
                            result = None
                elif node.op_type == "Mul":
                    other = largest(a)
                    result = None if other is None else step_of(b) * other
                # A divisor on the quantized path: left without a step (compared with rtol/atol).
            elif node.op_type in NORMALIZATIONS:
                result = self._normalization_step(node, known, largest, value)
            else:
                result = max(known)
            if result is None:
                continue
            for output in node.output[:1] if key in FLOAT_OUTPUT_QUANTIZED or node.op_type in NORMALIZATIONS else node.output:
                if output:
                    steps[output] = (result, integer)
        return steps

    def _normalization_step(self, node, known, largest, value):
        step = max(known)
        if node.op_type == "BatchNormalization":
            scale, variance = value(node.input[1]), value(node.input[4])
            if scale is None or variance is None:
                return step if self._collecting else None
            epsilon = next((a.f for a in node.attribute if a.name == "epsilon"), 1e-5)
            return step * float(np.abs(scale / np.sqrt(variance + epsilon)).max())
        gamma = largest(node.input[1]) if len(node.input) > 1 else 1.0
        data = value(node.input[0])
        if isinstance(gamma, float) and data is None and self._collecting:
            return step
        if gamma is None or data is None:
            return None
        data = data.astype(np.float64)
        if node.op_type.startswith("Skip"):
            skip = value(node.input[1])
            if skip is None:
                return step if self._collecting else None
            data = data + skip
            gamma = largest(node.input[2])
            if gamma is None:
                return None
        if node.op_type == "InstanceNormalization":
            axes = tuple(range(2, data.ndim))
        else:
            axis = next((a.i for a in node.attribute if a.name == "axis"), -1)
            axes = tuple(range(axis % data.ndim, data.ndim))
        spread = np.sqrt(np.mean(np.square(data - (0 if "Simplified" in node.op_type else data.mean(axis=axes, keepdims=True))), axis=axes))
        epsilon = next((a.f for a in node.attribute if a.name == "epsilon"), 1e-5)
        return step * gamma / float(np.sqrt(spread.min() ** 2 + epsilon))
