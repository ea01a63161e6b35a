"""One-op ONNX models of ResNet-50's heaviest kernels, for `tools/bench_consumer.py --model-file`:
how fast IREE runs the product or convolution itself, against onnxruntime's, apart from any
form of ours (docs/performance.md, "ResNet-50's floor in IREE").

    python tools/kernel_models.py DIRECTORY   # writes DIRECTORY/NAME.onnx for each model below

Weights are seeded constants (initializers), as a network's are; the input is the activation.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _model(name: str, node: onnx.NodeProto, input_shape, output_shape, weights) -> onnx.ModelProto:
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _weight(name: str, shape) -> onnx.TensorProto:
    return numpy_helper.from_array(np.random.default_rng(0).standard_normal(shape).astype(np.float32), name)


def matmul_784x1152x128() -> onnx.ModelProto:
    """Stage 2's 3x3 convolution as our Linalg hands it to IREE: patches [784, 1152] times the filter."""
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    return _model("matmul_784x1152x128", node, [784, 1152], [784, 128], [_weight("w", (1152, 128))])


def conv3x3_128_28() -> onnx.ModelProto:
    """The same convolution as ONNX has it: 128 to 128 channels, 3x3, padded, on a 28x28 image."""
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    return _model("conv3x3_128_28", node, [1, 128, 28, 28], [1, 128, 28, 28], [_weight("w", (128, 128, 3, 3))])


def conv1x1_256_1024_14() -> onnx.ModelProto:
    """Stage 3's widening 1x1 convolution, 256 to 1024 channels on a 14x14 image (a [196, 256] x
    [256, 1024] product)."""
    node = helper.make_node("Conv", ["x", "w"], ["y"])
    return _model("conv1x1_256_1024_14", node, [1, 256, 14, 14], [1, 1024, 14, 14], [_weight("w", (1024, 256, 1, 1))])


MODELS = {function.__name__: function for function in (matmul_784x1152x128, conv3x3_128_28, conv1x1_256_1024_14)}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    directory = Path(sys.argv[1])
    directory.mkdir(parents=True, exist_ok=True)
    for name, build in MODELS.items():
        model = build()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, directory / f"{name}.onnx")
        print(directory / f"{name}.onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main())
