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


def ms_attention(unidirectional=0):
    """onnxruntime's Attention: input [1, 3, 8] projected to Q, K, V of 2 heads of 4."""
    rng = np.random.default_rng(3)
    node = helper.make_node("Attention", ["x", "weights", "bias"], ["y"], domain=MICROSOFT, num_heads=2,
                            unidirectional=unidirectional)
    return _model([node], [_value("x", [1, 3, 8])], [_value("y", [1, 3, 8])],
                  [_constant("weights", rng.standard_normal((8, 24)) * 0.5), _constant("bias", rng.standard_normal(24))],
                  microsoft=True)


def resize(mode, coordinate_mode, scales=None, sizes=None, opset=13, nearest_mode="floor"):
    """Resize of a [1, 2, 3, 4] input by constant scales or sizes."""
    inputs = ["x", "", "scales"] if sizes is None else ["x", "", "", "sizes"]
    initializers = [_constant("scales", scales)] if sizes is None else [
        numpy_helper.from_array(np.asarray(sizes, np.int64), "sizes")]
    node = helper.make_node("Resize", inputs, ["y"], mode=mode, coordinate_transformation_mode=coordinate_mode,
                            nearest_mode=nearest_mode)
    out = sizes or [int(d * s) for d, s in zip([1, 2, 3, 4], scales)]
    return _model([node], [_value("x", [1, 2, 3, 4])], [_value("y", out)], initializers, opset=opset)


def upsample():
    """Upsample-9 (nearest, asymmetric, floor) of a [1, 2, 3, 4] input by 2 and 1.5."""
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode="nearest")
    return _model([node], [_value("x", [1, 2, 3, 4])], [_value("y", [1, 2, 6, 6])], [_constant("scales", [1, 1, 2, 1.5])],
                  opset=9)


def global_average_pool():
    node = helper.make_node("GlobalAveragePool", ["x"], ["y"])
    return _model([node], [_value("x", [2, 3, 4, 4])], [_value("y", [2, 3, 1, 1])])


def global_max_pool():
    node = helper.make_node("GlobalMaxPool", ["x"], ["y"])
    return _model([node], [_value("x", [2, 3, 4, 4])], [_value("y", [2, 3, 1, 1])])


def average_pool_3d():
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2, 2], strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1],
                            count_include_pad=0)
    return _model([node], [_value("x", [1, 2, 3, 4, 4])], [_value("y", [1, 2, 4, 3, 3])])


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
    "ms_attention": ms_attention,
    "ms_attention_causal": lambda: ms_attention(unidirectional=1),
    "resize_nearest": lambda: resize("nearest", "asymmetric", scales=[1, 1, 2, 1.5]),
    "resize_bilinear": lambda: resize("linear", "half_pixel", sizes=[1, 2, 5, 7]),
    "resize_bilinear_scales": lambda: resize("linear", "half_pixel", scales=[1, 1, 2, 0.5]),
    "resize_align_corners": lambda: resize("linear", "align_corners", sizes=[1, 2, 5, 7]),
    "upsample": upsample,
    "global_average_pool": global_average_pool,
    "global_max_pool": global_max_pool,
    "average_pool_3d": average_pool_3d,
}

if __name__ == "__main__":
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
