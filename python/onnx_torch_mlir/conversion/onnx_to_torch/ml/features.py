"""ai.onnx.ml feature operators: ArrayFeatureExtractor, Binarizer (domain `ai.onnx.ml`, version 1).

- ArrayFeatureExtractor(X, Y): the columns Y (int64, any shape, read flattened) of X's last
  axis: `aten.index_select`. As in onnxruntime (and ONNX's reference), a 1-D X gives a [1, K]
  result, not [K].
- Binarizer(X): 1 where X > threshold, else 0, in X's type.

TreeEnsemble and TreeEnsembleRegressor are `ml_tree_ensemble.py`.
String operators (LabelEncoder on strings, ...) cannot be imported: torch has no string tensors.
"""

from __future__ import annotations

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

ML = "ai.onnx.ml"


@converts("ArrayFeatureExtractor", since=1, domain=ML)
def array_feature_extractor(node: OnnxNode, b: TorchBuilder):
    """Z[..., k] = X[..., Y.flatten()[k]]; a 1-D X gives [1, K]."""
    x, indices = node.input(0), node.input(1)
    info = node.input_info(0)
    if info.rank is None or info.rank == 0:
        node.fail("input 'X' needs a static rank of at least 1")
    indices = b.to_dtype(b.flatten(indices), "si64")
    count = b.info(indices).sizes[0]
    sizes = [*info.sizes[:-1], count]
    selected = b.op("aten.index_select", b.tensor_type(sizes, info.element), x, b.constant_int(info.rank - 1), indices)
    if info.rank == 1:
        selected = b.unsqueeze(selected, 0)
    return b.cast_to(selected, node.result_type())


@converts("Binarizer", since=1, domain=ML)
def binarizer(node: OnnxNode, b: TorchBuilder):
    """Y = 1 if X > threshold else 0 (X's type)."""
    x = node.input(0)
    info = node.input_info(0)
    threshold = node.attr_float("threshold")
    above = b.op("aten.gt.Scalar", b.tensor_type(info.sizes, "i1"), x, b.constant_float(threshold))
    return b.cast_to(b.to_dtype(above, info.element), node.result_type())
