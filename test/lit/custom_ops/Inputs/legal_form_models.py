"""Writes one small ONNX model whose op has a composite Torch form kept when backend-legal:
`legal_form_models.py NAME OUT.onnx` (NAME is a key of MODELS)."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MICROSOFT = "com.microsoft"


def _model(nodes, inputs, outputs, initializers=(), opset=17, microsoft=False):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(MICROSOFT, 1)] if microsoft else [])
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _value(name, shape, element=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, element, shape)


def _constant(name, values):
    return numpy_helper.from_array(np.asarray(values, np.float32), name)


def unary(op_type, shape=(2, 3, 4, 4), domain="", **attributes):
    node = helper.make_node(op_type, ["x"], ["y"], domain=domain, **attributes)
    return _model([node], [_value("x", list(shape))], [_value("y", list(shape))], microsoft=bool(domain))


def instance_norm():
    node = helper.make_node("InstanceNormalization", ["x", "scale", "bias"], ["y"], epsilon=1e-5)
    return _model([node], [_value("x", [2, 3, 4, 4])], [_value("y", [2, 3, 4, 4])],
                  [_constant("scale", [1.0, 2.0, 0.5]), _constant("bias", [0.0, 0.1, 0.2])])


def prelu():
    """A per-channel slope of shape [C, 1]: aten.prelu's weight is it as [C]. (2-D input: torch-mlir's
    own lowering of aten.prelu, which the numeric test runs, broadcasts the weight along the last
    dim rather than dim 1.)"""
    node = helper.make_node("PRelu", ["x", "slope"], ["y"])
    return _model([node], [_value("x", [2, 3])], [_value("y", [2, 3])], [_constant("slope", [0.1, 0.2, 0.3])])


def contrib_layer_norm():
    """onnxruntime's LayerNormalization in the default domain before opset 17."""
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1, epsilon=1e-5)
    return _model([node], [_value("x", [2, 4])], [_value("y", [2, 4])],
                  [_constant("scale", np.ones(4)), _constant("bias", np.zeros(4))], opset=16)


def simplified_layer_norm():
    node = helper.make_node("SimplifiedLayerNormalization", ["x", "scale"], ["y"], axis=-1, epsilon=1e-5)
    return _model([node], [_value("x", [2, 4])], [_value("y", [2, 4])], [_constant("scale", np.ones(4))], opset=16)


def skip_layer_norm():
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta"], ["y"], domain=MICROSOFT)
    return _model([node], [_value("x", [1, 2, 4]), _value("skip", [1, 2, 4])], [_value("y", [1, 2, 4])],
                  [_constant("gamma", np.ones(4)), _constant("beta", np.zeros(4))], microsoft=True)


MODELS = {
    "instance_norm": instance_norm,
    "hard_sigmoid": lambda: unary("HardSigmoid", alpha=1 / 6, beta=0.5),
    "selu": lambda: unary("Selu"),
    "celu": lambda: unary("Celu", alpha=2.0),
    "prelu": prelu,
    "fast_gelu": lambda: unary("FastGelu", domain=MICROSOFT),
    "quick_gelu": lambda: unary("QuickGelu", domain=MICROSOFT, alpha=1.0),
    "contrib_layer_norm": contrib_layer_norm,
    "simplified_layer_norm": simplified_layer_norm,
    "skip_layer_norm": skip_layer_norm,
}

if __name__ == "__main__":
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
