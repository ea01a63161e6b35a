"""Small convolution networks for the channels-last lit test and its numeric check:
`channels_last_models.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _weight(name, shape, seed):
    return numpy_helper.from_array(np.random.default_rng(seed).standard_normal(shape).astype(np.float32), name)


def _model(nodes, input_shape, initializers, output_shape):
    graph = helper.make_graph(
        nodes, "channels_last", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def block():
    """A residual block as vision models have it: a padded strided 3x3 convolution with a bias, Relu,
    a max pool, a depthwise 3x3 convolution (group = channels), the residual Add, a 1x1 convolution,
    a global average pool and a flatten."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=8),
        helper.make_node("Add", ["c2", "p1"], ["a2"]),
        helper.make_node("Conv", ["a2", "w3", "b3"], ["c3"]),
        helper.make_node("GlobalAveragePool", ["c3"], ["g3"]),
        helper.make_node("Flatten", ["g3"], ["y"]),
    ]
    initializers = [_weight("w1", (8, 3, 3, 3), 1), _weight("b1", (8,), 2), _weight("w2", (8, 1, 3, 3), 3),
                    _weight("w3", (16, 8, 1, 1), 4), _weight("b3", (16,), 5)]
    return _model(nodes, [2, 3, 12, 10], initializers, [2, 16])


def grouped():
    """A grouped convolution (2 groups of 4 channels, not depthwise) between two plain ones, and an
    average pool: the grouped form is left as torch-mlir lowers it, between channels-last neighbours."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=2),
        helper.make_node("AveragePool", ["c2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p2", "w3"], ["y"]),
    ]
    initializers = [_weight("w1", (8, 3, 3, 3), 6), _weight("w2", (8, 4, 3, 3), 7), _weight("w3", (4, 8, 1, 1), 8)]
    return _model(nodes, [1, 3, 8, 8], initializers, [1, 4, 4, 4])


def wide():
    """A padded strided 3x3 convolution of 32 to 32 channels with a bias, Relu, and a 1x1 convolution: the
    first is written as image patches times the filter matrix, the second is left as it is."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["y"]),
    ]
    initializers = [_weight("w1", (32, 32, 3, 3), 9), _weight("b1", (32,), 10), _weight("w2", (16, 32, 1, 1), 11)]
    return _model(nodes, [2, 32, 12, 10], initializers, [2, 16, 6, 5])


def patches():
    """A 4x4 convolution with stride 4 over 3 channels (ConvNeXt's and a ViT's stem): its windows do not
    overlap, so it is written as image patches times the filter matrix though it is narrow."""
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["y"], strides=[4, 4])]
    initializers = [_weight("w1", (8, 3, 4, 4), 12), _weight("b1", (8,), 13)]
    return _model(nodes, [2, 3, 16, 12], initializers, [2, 8, 4, 3])


def large_patches():
    """A 9x9 convolution with stride 9 over 3 channels (ViT's 16x16 stem, smaller): more kernel positions
    than one slice each is worth, windows that tile the image."""
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["y"], strides=[9, 9])]
    initializers = [_weight("w1", (8, 3, 9, 9), 14), _weight("b1", (8,), 15)]
    return _model(nodes, [2, 3, 18, 27], initializers, [2, 8, 2, 3])


def upsampling():
    """A 2x2 stride-2 ConvTranspose of 8 to 4 channels with a bias (a UNet's upsampling): its windows
    tile the output, so it is one matrix product and a reordering, not a convolution of a zero-inserted input."""
    nodes = [helper.make_node("ConvTranspose", ["x", "w1", "b1"], ["y"], strides=[2, 2])]
    initializers = [_weight("w1", (8, 4, 2, 2), 16), _weight("b1", (4,), 17)]
    return _model(nodes, [2, 8, 3, 5], initializers, [2, 4, 6, 10])


def one_d():
    """1-D windows as an audio front end has them: a padded convolution with a bias, Relu, a depthwise
    convolution, the residual Add, a max pool, a strided convolution, an average pool and Sigmoid."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["d1"], pads=[2, 2], group=8),
        helper.make_node("Add", ["d1", "r1"], ["a1"]),
        helper.make_node("MaxPool", ["a1"], ["m1"], kernel_shape=[2], strides=[2]),
        helper.make_node("Conv", ["m1", "w3"], ["c2"], strides=[2], pads=[1, 1]),
        helper.make_node("AveragePool", ["c2"], ["p2"], kernel_shape=[3], pads=[1, 1], strides=[1]),
        helper.make_node("Sigmoid", ["p2"], ["y"]),
    ]
    initializers = [_weight("w1", (8, 4, 3), 14), _weight("b1", (8,), 15), _weight("w2", (8, 1, 5), 16),
                    _weight("w3", (6, 8, 3), 17)]
    return _model(nodes, [2, 4, 32], initializers, [2, 6, 8])


def swapped():
    """A transformer's Transpose of its last two dims, then Relu: no window, nothing to rewrite."""
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]), helper.make_node("Relu", ["t"], ["y"])]
    return _model(nodes, [2, 5, 7], [], [2, 7, 5])


MODELS = {function.__name__: function for function in (block, grouped, wide, patches, large_patches, upsampling, one_d, swapped)}

if __name__ == "__main__":
    model = MODELS[sys.argv[1]]()
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[2])
