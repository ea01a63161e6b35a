"""onnxruntime's reference for a model with int8 weights, computed without its saturating kernels.

The upstream behaviour worked around: on x86-64 CPUs with AVX2 or AVX-512 but without VNNI,
onnxruntime multiplies uint8 activations by int8 weights (U8S8) with VPMADDUBSW, which adds pairs of
products in 16 bits and clamps the sums. onnxruntime's quantization documentation says so ("When and
why do I need to try U8U8?", docs/performance/model-optimizations/quantization.md: the instruction
"might suffer from saturation issues", "there is no such issue on other CPU architectures (x64
with VNNI and ARM)"). On such a CPU its MatMulInteger is off exact integer arithmetic by up to
651887 (`uint8_int8_saturation`), so its outputs for a model with int8 weights are no reference.

The workaround: the reference is computed from an in-memory copy of the model whose int8 weights
are uint8, `w + 128` with zero point `z + 128`. `(w + 128) - (z + 128) = w - z`, so every weight
has the same real value and the copy is the same model; onnxruntime then runs its uint8 x uint8
kernels, which do not saturate. Per-tensor, per-channel and blocked zero points are shifted alike.
The file on disk is never touched. Rewritten: the int8 initializers in the weight slots of the
ops below (every slot of a type-constrained group together: DynamicQuantizeLSTM's W and R share
one type), and the int8 initializers dequantized by a DequantizeLinear that feeds a MatMul, Gemm,
Conv or ConvTranspose (the QDQ form, which onnxruntime fuses into QLinearMatMul, QGemm,
QLinearConv). Every op listed accepts uint8 weights in its schema. Left as is, and reported:
a node of these ops whose int8 weight or zero point is not an initializer of the main graph
(computed, a Constant node, or inside a subgraph). ConvInteger is not listed: onnxruntime has no
int8-weight kernel for it, so nothing there saturates. int8 activations (S8S8) are not touched.

onnxruntime's session option `session.x64quantprecision` runs the same rewrite inside onnxruntime
(Avx2WeightS8ToU8Transformer), but only for the opset versions it lists (QLinearMatMul 10 and
QLinearConv 10, not QLinearMatMul 21), which is why the harness does it itself.

When it can go: when the references are computed on a CPU with AVX-VNNI (the probe then reads 0
and nothing is rewritten), or when onnxruntime stops using VPMADDUBSW for U8S8 on CPUs without it.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

# (domain, op type) -> the (weight, scale, zero point) input slots of a node's int8 weights. They share
# one type constraint, so a node's are rewritten together or not at all. A scale of None: the op has
# no scale (an absent zero point then becomes a scalar).
WEIGHT_SLOTS = {
    ("", "QLinearMatMul"): ((3, 4, 5),),
    ("", "QLinearConv"): ((3, 4, 5),),
    ("", "MatMulInteger"): ((1, None, 3),),
    ("com.microsoft", "QLinearConv"): ((3, 4, 5),),
    ("com.microsoft", "QGemm"): ((3, 4, 5),),
    ("com.microsoft", "DynamicQuantizeMatMul"): ((1, 2, 3),),
    ("com.microsoft", "MatMulIntegerToFloat"): ((1, 3, 5),),
    ("com.microsoft", "QAttention"): ((1, 4, 7),),
    ("com.microsoft", "DynamicQuantizeLSTM"): ((1, 8, 9), (2, 10, 11)),
    ("", "DequantizeLinear"): ((0, 1, 2),),
    ("com.microsoft", "DequantizeLinear"): ((0, 1, 2),),
}
# What a dequantized int8 weight must feed for onnxruntime to fuse it into a U8S8 kernel.
FUSED_CONSUMERS = {"MatMul", "Gemm", "Conv", "ConvTranspose"}


@functools.cache
def uint8_int8_saturation() -> int:
    """How far onnxruntime's MatMulInteger of uint8 by int8 is from exact integer arithmetic on this
    CPU, on operands near their extremes: 0 where it is exact. Without AVX-VNNI its x86 kernels add
    pairs of products in 16 bits (vpmaddubsw), which saturate (measured 651887 on an AMD EPYC)."""
    import onnxruntime
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "probe",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [4, 64]),
         helper.make_tensor_value_info("b", TensorProto.INT8, [64, 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [4, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    rng = np.random.default_rng(0)
    a = rng.integers(200, 256, (4, 64)).astype(np.uint8)
    b = rng.integers(100, 128, (64, 8)).astype(np.int8)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"a": a, "b": b})
    return int(np.abs(got.astype(np.int64) - a.astype(np.int64) @ b.astype(np.int64)).max())


@dataclass
class Rewrite:
    """What `int8_weights_as_uint8` did: nodes per op type whose int8 weights are now uint8, and the
    nodes with int8 weights it left as they are, with the reason."""

    nodes: dict[str, int] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)

    def record(self) -> dict:
        return {"int8 weights as uint8": dict(sorted(self.nodes.items())), "left": self.left}


def needs_rewrite(header) -> bool:
    """Whether `header` (a model, its weights' data not needed) has an op listed in WEIGHT_SLOTS
    with an int8 initializer: the models whose reference this module changes."""
    from onnx import TensorProto

    int8 = {tensor.name for tensor in header.graph.initializer if tensor.data_type == TensorProto.INT8}
    return any((_domain(node), node.op_type) in WEIGHT_SLOTS and int8.intersection(node.input) for node in header.graph.node)


def int8_weights_as_uint8(model):
    """A copy of `model` whose int8 weights (see the module docstring) are uint8 with the zero point
    moved by 128 (the same real values), and the Rewrite that says what changed."""
    import onnx
    from onnx import TensorProto, numpy_helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    consumers = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            consumers[name].append(node)
    converted = {}  # an int8 initializer's name -> the name of its uint8 copy
    rewrite = Rewrite()

    def is_int8(name: str) -> bool:
        return name in initializers and initializers[name].data_type == TensorProto.INT8

    def as_uint8(name: str) -> str:
        if name not in converted:
            values = numpy_helper.to_array(initializers[name]).astype(np.int16) + 128
            converted[name] = _unused_name(f"{name}.uint8", initializers)
            initializers[converted[name]] = numpy_helper.from_array(values.astype(np.uint8), converted[name])
            graph.initializer.append(initializers[converted[name]])
        return converted[name]

    def obstacle(node, groups) -> str | None:
        """Why `node`'s int8 weights cannot be rewritten; None when they can."""
        for weight, scale, zero_point in groups:
            name = _input(node, weight)
            if not is_int8(name):
                return f"weight {name or '(absent)'} is not an int8 initializer"
            zero_point_name = _input(node, zero_point)
            if zero_point_name and not is_int8(zero_point_name):
                return f"zero point {zero_point_name} is not an int8 initializer"
            if not zero_point_name and scale is not None and _input(node, scale) not in initializers:
                return f"no zero point, and scale {_input(node, scale)} is no initializer to take its shape from"
        return None

    for node in graph.node:
        groups = WEIGHT_SLOTS.get((_domain(node), node.op_type))
        if groups is None:
            continue
        if node.op_type == "DequantizeLinear":
            if not is_int8(node.input[0]) or not any(c.op_type in FUSED_CONSUMERS for c in consumers[node.output[0]]):
                continue  # an activation, or a weight no U8S8 kernel reads
        elif not any(is_int8(_input(node, weight)) for weight, _, _ in groups):
            continue  # uint8 weights, or int8 ones that are activations (S8S8): nothing to do
        reason = obstacle(node, groups)
        if reason:
            rewrite.left.append(f"{node.op_type} {node.name or node.output[0]}: {reason}")
            continue
        while len(node.input) < max(zero_point for _, _, zero_point in groups) + 1:
            node.input.append("")
        for weight, scale, zero_point in groups:
            if node.input[zero_point]:
                node.input[zero_point] = as_uint8(node.input[zero_point])
            else:  # an absent zero point is 0; as uint8, 128 in the scale's shape
                shape = () if scale is None else tuple(initializers[node.input[scale]].dims)
                name = _unused_name(f"{node.input[weight]}.uint8_zero_point", initializers)
                initializers[name] = numpy_helper.from_array(np.full(shape, 128, np.uint8), name)
                graph.initializer.append(initializers[name])
                node.input[zero_point] = name
            node.input[weight] = as_uint8(node.input[weight])
        rewrite.nodes[node.op_type] = rewrite.nodes.get(node.op_type, 0) + 1
    _drop_unused_initializers(copy, set(converted))
    return copy, rewrite


def _domain(node) -> str:
    return "" if node.domain in ("", "ai.onnx") else node.domain


def _input(node, index: int) -> str:
    return node.input[index] if index < len(node.input) else ""


def _unused_name(name: str, taken) -> str:
    candidate, suffix = name, 1
    while candidate in taken:
        candidate, suffix = f"{name}.{suffix}", suffix + 1
    return candidate


def _drop_unused_initializers(model, names: set[str]) -> None:
    """Remove the initializers among `names` that nothing reads any more (an int8 weight read only
    through its uint8 copy), so the session does not hold both."""
    used = {value.name for value in [*model.graph.input, *model.graph.output]}

    def collect(graph) -> None:
        for node in graph.node:
            used.update(node.input)
            for attribute in node.attribute:
                for subgraph in [attribute.g, *attribute.graphs]:
                    collect(subgraph)

    collect(model.graph)
    kept = [tensor for tensor in model.graph.initializer if tensor.name not in names or tensor.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
