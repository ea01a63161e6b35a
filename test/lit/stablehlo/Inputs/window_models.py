"""Pools and transposed convolutions on a dynamic image size for the StableHLO window lit test:
`window_models.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _model(node, channels, initializers=()):
    graph = helper.make_graph(
        [node], "windows", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", channels, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _weight(shape):
    return numpy_helper.from_array(np.random.default_rng(0).standard_normal(shape).astype(np.float32), "w")


def pooler():
    """EfficientNet's pooler: a 320x320 ceil-mode AveragePool at stride 320."""
    return _model(helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[320, 320], strides=[320, 320],
                                   ceil_mode=1, count_include_pad=1), 4)


def up_convolution():
    """UNet's up-convolution: a 2x2 ConvTranspose at stride 2."""
    return _model(helper.make_node("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[2, 2], strides=[2, 2]), 6,
                  [_weight((6, 3, 2, 2))])


def transposed_convolution():
    """A 3x3 ConvTranspose at stride 2 (its windows overlap)."""
    return _model(helper.make_node("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                   pads=[1, 1, 1, 1]), 4, [_weight((4, 5, 3, 3))])


def audio_front_end():
    """A 1-D audio front end: 256-sample kernel at stride 128 on a dynamic length."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], strides=[128])], "windows",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, "L"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [_weight((16, 1, 256))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


MODELS = {"pooler": pooler, "up_convolution": up_convolution, "transposed_convolution": transposed_convolution,
          "audio_front_end": audio_front_end}

if __name__ == "__main__":
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
