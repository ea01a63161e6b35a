"""Channels-last StableHLO (transforms/stablehlo/channels_last.py, the default `conv_layout`) computes
what onnxruntime does, on the reference runner and on IREE (and XLA): small CNNs of convolutions (plain,
grouped, depthwise, transposed), batch norms, pools, pads, slices, concatenations along channels and a squeeze-and-excite
block; a convolution of dynamic batch is left as it is; and the layout is carried so that a residual
network keeps a transpose only where the graph enters and leaves it."""

import importlib.util
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

_LIT_MODELS = Path(__file__).resolve().parent.parent / "lit" / "linalg" / "Inputs" / "channels_last_models.py"
NHWC = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
NCHW = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"


def _lit_model(name: str) -> onnx.ModelProto:
    spec = importlib.util.spec_from_file_location("channels_last_models", _LIT_MODELS)
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    return models.MODELS[name]()


class _Graph:
    """Nodes and seeded initializers of a small test model."""

    def __init__(self, seed: int):
        self.rng, self.nodes, self.initializers = np.random.default_rng(seed), [], []

    def weight(self, name: str, shape, positive: bool = False) -> str:
        values = self.rng.standard_normal(shape).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(np.abs(values) + 0.5 if positive else values, name))
        return name

    def node(self, op_type: str, inputs, output: str, **attributes) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output

    def conv(self, x: str, name: str, channels_in: int, channels_out: int, kernel: int, group: int = 1, **attributes) -> str:
        weight = self.weight(f"{name}.w", (channels_out, channels_in // group, kernel, kernel))
        return self.node("Conv", [x, weight, self.weight(f"{name}.b", (channels_out,))], name, group=group, **attributes)

    def batch_norm(self, x: str, name: str, channels: int) -> str:
        inputs = [x, self.weight(f"{name}.scale", (channels,)), self.weight(f"{name}.bias", (channels,)),
                  self.weight(f"{name}.mean", (channels,)), self.weight(f"{name}.var", (channels,), positive=True)]
        return self.node("BatchNormalization", inputs, name)

    def model(self, input_shape, output: str, output_shape) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)], self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
        onnx.checker.check_model(model, full_check=True)
        return model


def residual() -> onnx.ModelProto:
    """ResNet's stem and basic block: conv-bn-relu, max pool, two conv-bn with the residual Add, Relu,
    then a 1x1 convolution and an average pool (a 4-D result: the graph leaves the region there)."""
    g = _Graph(1)
    stem = g.node("Relu", [g.batch_norm(g.conv("x", "c1", 3, 8, 3, strides=[2, 2], pads=[1, 1, 1, 1]), "n1", 8)], "r1")
    pooled = g.node("MaxPool", [stem], "p1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    branch = g.node("Relu", [g.batch_norm(g.conv(pooled, "c2", 8, 8, 3, pads=[1, 1, 1, 1]), "n2", 8)], "r2")
    branch = g.batch_norm(g.conv(branch, "c3", 8, 8, 3, pads=[1, 1, 1, 1]), "n3", 8)
    joined = g.node("Relu", [g.node("Add", [branch, pooled], "a3")], "r3")
    projected = g.conv(joined, "c4", 8, 4, 1)
    g.node("AveragePool", [projected], "y", kernel_shape=[2, 2], strides=[2, 2])
    return g.model([2, 3, 16, 16], "y", [2, 4, 2, 2])


def depthwise() -> onnx.ModelProto:
    """MobileNetV3's inverted residual: a 1x1 expansion with HardSwish, a depthwise 3x3 stride-2
    convolution, squeeze and excite (global pool, two 1x1 convolutions, HardSigmoid, Mul), a 1x1
    projection; then a global pool and a flatten."""
    g = _Graph(2)
    expanded = g.node("HardSwish", [g.conv("x", "c1", 4, 12, 1)], "h1")
    spatial = g.node("HardSwish", [g.conv(expanded, "c2", 12, 12, 3, group=12, strides=[2, 2], pads=[1, 1, 1, 1])], "h2")
    squeezed = g.node("Relu", [g.conv(g.node("GlobalAveragePool", [spatial], "s1"), "s2", 12, 4, 1)], "s3")
    scale = g.node("HardSigmoid", [g.conv(squeezed, "s4", 4, 12, 1)], "s5", alpha=1.0 / 6)
    projected = g.conv(g.node("Mul", [spatial, scale], "m1"), "c3", 12, 6, 1)
    g.node("Flatten", [g.node("GlobalAveragePool", [projected], "g1")], "y")
    return g.model([1, 4, 10, 10], "y", [1, 6])


def pads_slices_concatenations() -> onnx.ModelProto:
    """A Pad, a Slice of channels, a Concat along channels, a grouped convolution and an average pool
    that does not count its padding, between convolutions."""
    g = _Graph(3)
    first = g.node("Relu", [g.conv("x", "c1", 3, 8, 3)], "r1")
    pads = g.weight("pads", (8,))
    g.initializers[-1] = numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "pads")
    padded = g.node("Pad", [first, pads], "pad1")
    starts, ends, axes = (numpy_helper.from_array(np.array([value], np.int64), name)
                          for value, name in ((2, "starts"), (6, "ends"), (1, "axes")))
    g.initializers += [starts, ends, axes]
    sliced = g.node("Slice", [padded, "starts", "ends", "axes"], "sl1")
    grouped = g.conv(sliced, "c2", 4, 4, 3, group=2, pads=[1, 1, 1, 1])
    joined = g.node("Concat", [grouped, padded], "cat1", axis=1)
    pooled = g.node("AveragePool", [joined], "p1", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0)
    g.conv(pooled, "y", 12, 5, 1)
    return g.model([1, 3, 9, 8], "y", [1, 5, 10, 9])


def upsampling() -> onnx.ModelProto:
    """A decoder's ConvTranspose (torch-mlir: a flipped HWOI filter, the image dilated) between
    convolutions, and a Concat of the upsampled image with a skip connection."""
    g = _Graph(6)
    first = g.node("Relu", [g.conv("x", "c1", 3, 8, 3, strides=[2, 2], pads=[1, 1, 1, 1])], "r1")
    weight = g.weight("t1.w", (8, 4, 3, 3))
    up = g.node("ConvTranspose", [first, weight, g.weight("t1.b", (4,))], "t1", strides=[2, 2], pads=[1, 1, 1, 1],
                output_padding=[1, 1])
    joined = g.node("Concat", [up, g.conv("x", "skip", 3, 4, 1)], "cat", axis=1)
    g.conv(joined, "y", 8, 2, 3, pads=[1, 1, 1, 1])
    return g.model([1, 3, 8, 6], "y", [1, 2, 8, 6])


def three_convolution_residual() -> onnx.ModelProto:
    g = _Graph(4)
    first = g.node("Relu", [g.conv("x", "c1", 3, 8, 3, pads=[1, 1, 1, 1])], "r1")
    second = g.node("Relu", [g.conv(first, "c2", 8, 8, 3, pads=[1, 1, 1, 1])], "r2")
    third = g.conv(second, "c3", 8, 8, 3, pads=[1, 1, 1, 1])
    g.node("Relu", [g.node("Add", [third, first], "a3")], "y")
    return g.model([1, 3, 8, 8], "y", [1, 8, 8, 8])


def dynamic_batch() -> onnx.ModelProto:
    g = _Graph(5)
    g.node("Relu", [g.conv("x", "c1", 3, 4, 3, pads=[1, 1, 1, 1])], "y")
    return g.model(["N", 3, 6, 6], "y", ["N", 4, 6, 6])


MODELS = {"block": lambda: _lit_model("block"), "grouped": lambda: _lit_model("grouped"), "residual": residual,
          "depthwise": depthwise, "pads-slices-concatenations": pads_slices_concatenations,
          "upsampling": upsampling, "three-convolution-residual": three_convolution_residual}


def _input(model: onnx.ModelProto, batch: int = 2) -> np.ndarray:
    shape = [dim.dim_value or batch for dim in model.graph.input[0].type.tensor_type.shape.dim]
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("name", MODELS)
def test_channels_last_stablehlo_matches_onnxruntime(name, consumer):
    model = MODELS[name]()
    x = _input(model)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    text = str(module)
    assert NHWC in text and "[b, f, 0, 1]" not in text  # the rewrite ran, on every convolution
    assert_matches(program(module, "stablehlo", consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_residual_network_keeps_transposes_at_its_edges():
    """One transpose where the image enters, one where the result leaves; the filters are folded."""
    text = str(onnx_torch_mlir.compile(three_convolution_residual(), "stablehlo"))
    assert text.count(NHWC) == 3
    assert len(re.findall(r"= stablehlo\.transpose ", text)) <= 2
    assert "_channels_last> : tensor<3x3x8x8xf32>" in text and "_channels_last> : tensor<3x3x3x8xf32>" in text


def test_global_pool_reads_nhwc_directly():
    """The squeeze-and-excite block and the final global pool and flatten need no transpose back."""
    text = str(onnx_torch_mlir.compile(depthwise(), "stablehlo"))
    transposes = re.findall(r"= stablehlo\.transpose [^\n]*", text)
    assert len(transposes) == 1 and "dims = [0, 2, 3, 1]" in transposes[0], transposes


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_dynamic_batch_is_left_as_imported(consumer):
    model = dynamic_batch()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert NCHW in str(module) and "stablehlo.transpose" not in str(module)
    for batch in (1, 3):
        x = _input(model, batch)
        assert_matches(program(module, "stablehlo", consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_as_imported_keeps_torch_mlir_forms():
    text = str(onnx_torch_mlir.compile(residual(), "stablehlo", conv_layout="as-imported"))
    assert NCHW in text and NHWC not in text and "stablehlo.transpose" not in text


@pytest.mark.parametrize("name", ["residual", "depthwise"])
def test_xla_runs_channels_last(name):
    """XLA, the other StableHLO consumer, takes the NHWC convolutions and the transposed filters inlined."""
    pytest.importorskip("jax")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    model = MODELS[name]()
    x = _input(model)
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    assert NHWC in str(module)
    assert_matches(compile_with_xla(module)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_large_pad_leaving_the_region_stays_nchw():
    """A pad that only a non-carried op reads (here the result) stays NCHW: the transpose back is on
    the convolution's small result, not on the padded one (EfficientNet's adaptive pool: 2x2 padded to
    320x320 had doubled the model's time on IREE)."""
    g = _Graph(7)
    pads = numpy_helper.from_array(np.array([0, 0, 0, 0, 0, 0, 16, 16], np.int64), "pads")
    g.initializers.append(pads)
    g.node("Pad", [g.conv("x", "c1", 3, 4, 3, pads=[1, 1, 1, 1]), "pads"], "y")
    model = g.model([1, 3, 4, 4], "y", [1, 4, 20, 20])
    module = onnx_torch_mlir.compile(model, "stablehlo")
    transposes = re.findall(r"= stablehlo\.transpose [^\n]*", str(module))
    assert len(transposes) == 2 and "(tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>" in transposes[1], transposes
    assert "-> tensor<1x4x20x20xf32>" in str(module)
    x = _input(model)
    assert_matches(program(module, "stablehlo", "reference")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)
