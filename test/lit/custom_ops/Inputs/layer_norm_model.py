"""Writes the seed's LayerNorm example as an ONNX model: LayerNormalization over the last dim of a
4x4 input, weight ones, bias zeros, epsilon 1e-5 (opset 17)."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [4, 4])
y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, 4])
weight = numpy_helper.from_array(np.ones(4, np.float32), "weight")
bias = numpy_helper.from_array(np.zeros(4, np.float32), "bias")
node = helper.make_node("LayerNormalization", ["input", "weight", "bias"], ["output"], axis=-1, epsilon=1e-5)
graph = helper.make_graph([node], "layer_norm", [x], [y], [weight, bias])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
