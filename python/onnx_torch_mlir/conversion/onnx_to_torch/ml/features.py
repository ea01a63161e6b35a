"""ai.onnx.ml feature operators (all version 1 unless said):

- ArrayFeatureExtractor(X, Y): the columns Y (int64, any shape, read flattened) of X's last
  axis: `aten.index_select`. As in onnxruntime (and ONNX's reference), a 1-D X gives a [1, K]
  result, not [K].
- Binarizer(X): 1 where X > threshold, else 0, in X's type.
- Scaler(X): (X - offset) * scale, float; one value, or one per feature.
- Normalizer(X): each row over its MAX (of the values, not of their magnitudes, as onnxruntime
  divides), L1 (sum of |x|) or L2 (root of the sum of squares) norm, float.
- Imputer(X): X where it is not `replaced_value_*` (NaN matches NaN), else the imputed value of
  the feature (one value, or one per feature), in X's type.
- OneHotEncoder(X): float [..., categories]: 1 where X equals the category (`cats_int64s`;
  `zeros=0` and a value in no category: onnxruntime fails at run time, here it is a row of zeros).
- LabelEncoder(X) on numbers (versions 2 and 4: `keys_*`/`values_*`, `*_tensor`): the value of
  the key X equals, else the default; from version 4 a NaN key matches NaN (before, as in
  onnxruntime, nothing equals NaN). Version 1 maps integers to strings
  and back: the importer refuses it (`importer/ml_types.py`).
- FeatureVectorizer(X1, X2, ...): the inputs' columns side by side, each input cut or padded with
  zeros to its `inputdimensions` entry, float.

String operators (LabelEncoder on strings, ...) cannot be imported: torch has no string tensors.
"""

from __future__ import annotations

import numpy as np

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .scores import ML, concat_columns


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


def _per_feature(node: OnnxNode, values, what: str) -> np.ndarray:
    """One value, or one per feature of X's last axis."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    width = (node.input_info(0).sizes or [None])[-1]
    if len(array) != 1 and width is not None and len(array) != width:
        node.fail(f"'{what}' has {len(array)} values for {width} features")
    return array


@converts("Scaler", since=1, domain=ML)
def scaler(node: OnnxNode, b: TorchBuilder):
    """Y = (X - offset) * scale, float32."""
    x = b.to_dtype(node.input(0), "f32")
    offset = _per_feature(node, node.attr_floats("offset", None) or [0.0], "offset")
    scale = _per_feature(node, node.attr_floats("scale", None) or [1.0], "scale")
    shifted = b.binary("aten.sub.Tensor", x, b.literal(offset.astype(np.float32), "f32"))
    return b.cast_to(b.binary("aten.mul.Tensor", shifted, b.literal(scale.astype(np.float32), "f32")),
                     node.result_type())


@converts("Normalizer", since=1, domain=ML)
def normalizer(node: OnnxNode, b: TorchBuilder):
    """Y = X / norm(row) (X where the norm is 0), float32; MAX is the largest value, not magnitude."""
    info = node.input_info(0)
    if info.rank not in (1, 2):
        node.fail(f"input 'X' must be [N, F] or [F], not rank {info.rank}")
    x = b.to_dtype(node.input(0), "f32")
    norm = node.attr_string("norm", "MAX")
    dims, keep = b.int_list([info.rank - 1]), b.constant_bool(True)
    reduced = b.reduced_type(x, [info.rank - 1], True)
    if norm == "MAX":
        total = b.op("aten.amax", reduced, x, dims, keep)
    elif norm == "L1":
        total = b.op("aten.sum.dim_IntList", reduced, b.unary("aten.abs", x), dims, keep, b.constant_none())
    elif norm == "L2":
        squares = b.binary("aten.mul.Tensor", x, x)
        total = b.unary("aten.sqrt", b.op("aten.sum.dim_IntList", reduced, squares, dims, keep, b.constant_none()))
    else:
        node.fail(f"norm '{norm}' is not one of MAX, L1, L2")
    zero = b.op("aten.eq.Scalar", b.tensor_type(b.info(total).sizes, "i1"), total, b.constant_float(0.0))
    divisor = b.op("aten.where.ScalarSelf", b.type_like(total), zero, b.constant_float(1.0), total)
    return b.cast_to(b.binary("aten.div.Tensor", x, divisor), node.result_type())


@converts("Imputer", since=1, domain=ML)
def imputer(node: OnnxNode, b: TorchBuilder):
    """Y = imputed value of the feature where X is the replaced value (NaN matches NaN), else X."""
    x, info = node.input(0), node.input_info(0)
    if info.is_float:
        replaced = node.attr_float("replaced_value_float", 0.0)
        imputed = node.attr_floats("imputed_value_floats", None)
    else:
        replaced = node.attr_int("replaced_value_int64", 0)
        imputed = node.attr_ints("imputed_value_int64s", None)
    if not imputed:
        which = "floats" if info.is_float else "int64s"
        node.fail(f"'imputed_value_{which}' is required for input type {info.element}")
    values = _per_feature(node, imputed, "imputed values")
    mask_type = b.tensor_type(info.sizes, "i1")
    if info.is_float and np.isnan(replaced):
        matches = b.op("aten.isnan", mask_type, x)
    else:
        constant = b.constant_float(replaced) if info.is_float else b.constant_int(int(replaced))
        matches = b.op("aten.eq.Scalar", mask_type, x, constant)
    numpy_type = np.float64 if info.element == "f64" else np.float32 if info.is_float else np.int64
    literal = b.literal(values.astype(numpy_type), info.element) if info.element in ("f32", "f64", "si64") else None
    if literal is None:
        literal = b.to_dtype(b.literal(values.astype(np.float32), "f32"), info.element)
    return b.cast_to(b.op("aten.where.self", b.type_like(x), matches, literal, x), node.result_type())


@converts("OneHotEncoder", since=1, domain=ML)
def one_hot_encoder(node: OnnxNode, b: TorchBuilder):
    """Y[..., c] = 1.0 where X == cats_int64s[c], float32."""
    if node.attr_strings("cats_strings", None):
        node.fail("string categories ('cats_strings') need string tensors, which torch does not have")
    categories = node.attr_ints("cats_int64s", None)
    if not categories:
        node.fail("'cats_int64s' is required")
    info = node.input_info(0)
    if info.rank is None:
        node.fail("input 'X' needs a static rank")
    x = b.unsqueeze(node.input(0), info.rank)
    literal = b.literal(np.asarray(categories, dtype=np.int64), "si64")
    if not info.is_integer:  # onnxruntime compares a float input as int64 (truncated)
        x = b.to_dtype(x, "si64")
    equal = b.op("aten.eq.Tensor", b.tensor_type([*info.sizes, len(categories)], "i1"), x, literal)
    return b.cast_to(b.to_dtype(equal, "f32"), node.result_type())


def _encoder_table(node: OnnxNode, side: str):
    """(values, element) of LabelEncoder's keys or values, from `{side}s_tensor` or the lists."""
    tensor = node.attr_tensor(f"{side}s_tensor", None) if node.opset >= 4 else None
    if tensor is not None:
        array = np.asarray(tensor).reshape(-1)
        if array.dtype.kind in "OSU":
            return None, "string"
        return array, "f32" if array.dtype.kind == "f" else "si64"
    for suffix, element in (("int64s", "si64"), ("floats", "f32")):
        values = node.attr_ints(f"{side}s_{suffix}", None) if suffix == "int64s" else node.attr_floats(
            f"{side}s_{suffix}", None)
        if values:
            return np.asarray(values), element
    if node.attr_strings(f"{side}s_strings", None):
        return None, "string"
    return None, None


@converts("LabelEncoder", since=2, domain=ML)
def label_encoder(node: OnnxNode, b: TorchBuilder):
    """Y = values[k] where X == keys[k] (the first), else the default; numbers only."""
    keys, key_element = _encoder_table(node, "key")
    values, value_element = _encoder_table(node, "value")
    if "string" in (key_element, value_element) or keys is None or values is None:
        node.fail("string keys or values need string tensors, which torch does not have; "
                  "only numeric keys and values (keys_int64s/keys_floats, values_int64s/values_floats) convert")
    if len(keys) != len(values):
        node.fail(f"{len(keys)} keys and {len(values)} values")
    result_element = node.result_info().element
    default = _encoder_default(node, value_element)
    x, info = node.input(0), node.input_info(0)
    flat = b.unsqueeze(x, info.rank)
    sizes = [*info.sizes, len(keys)]
    key_literal = b.literal(keys.astype(np.float32 if key_element == "f32" else np.int64), key_element)
    matches = b.op("aten.eq.Tensor", b.tensor_type(sizes, "i1"), flat, key_literal)
    if key_element == "f32" and np.isnan(keys).any() and node.opset >= 4:
        both_nan = b.binary("aten.logical_and", b.op("aten.isnan", b.tensor_type([*info.sizes, 1], "i1"), flat),
                            b.literal(np.isnan(keys), "i1"))
        matches = b.binary("aten.logical_or", matches, both_nan)
    # The first matching key: its index among [keys..., default].
    found = b.op("aten.any.dim", b.tensor_type(info.sizes, "i1"), matches, b.constant_int(info.rank),
                 b.constant_bool(False))
    first = b.op("aten.argmax", b.tensor_type(info.sizes, "si64"), b.to_dtype(matches, "si64"),
                 b.constant_int(info.rank), b.constant_bool(False))
    index = b.op("aten.where.ScalarOther", b.type_like(first), found, first, b.constant_int(len(keys)))
    table = np.concatenate([values.astype(np.float64), [default]])
    numpy_type = np.float32 if value_element == "f32" else np.int64
    table_literal = b.literal(table.astype(numpy_type), value_element)
    picked = b.op("aten.index_select", b.tensor_type([b.info(b.flatten(index)).sizes[0]], value_element),
                  table_literal, b.constant_int(0), b.flatten(index))
    return b.cast_to(b.to_dtype(b.reshape(picked, b.dims(index), info.sizes), result_element), node.result_type())


def _encoder_default(node: OnnxNode, element: str) -> float:
    tensor = node.attr_tensor("default_tensor", None) if node.opset >= 4 else None
    if tensor is not None:
        return float(np.asarray(tensor).reshape(-1)[0])
    if element == "si64":
        return float(node.attr_int("default_int64", -1))
    return float(node.attr_float("default_float", -0.0))


@converts("FeatureVectorizer", since=1, domain=ML)
def feature_vectorizer(node: OnnxNode, b: TorchBuilder):
    """Y = the inputs' columns side by side (each cut or zero-padded to its inputdimensions), float32."""
    widths = node.attr_ints("inputdimensions", None) or []
    if len(widths) != node.num_inputs:
        node.fail(f"'inputdimensions' has {len(widths)} entries for {node.num_inputs} inputs")
    pieces = []
    for index, width in enumerate(widths):
        info = node.input_info(index)
        if info.rank not in (1, 2):
            node.fail(f"input {index} must be [N, C] or [C], not rank {info.rank}")
        x = b.to_dtype(node.input(index), "f32")
        x = b.unsqueeze(x, 0) if info.rank == 1 else x
        have = b.info(x).sizes[1]
        if have is None:
            node.fail(f"input {index} needs a static number of columns")
        if have > width:
            one = b.constant_int(1)
            x = b.op("aten.slice.Tensor", b.tensor_type([b.info(x).sizes[0], width], "f32"), x, one,
                     b.constant_int(0), b.constant_int(width), one)
        elif have < width:
            x = b.op("aten.constant_pad_nd", b.tensor_type([b.info(x).sizes[0], width], "f32"), x,
                     b.int_list([0, width - have]), b.constant_float(0.0))
        pieces.append(x)
    return b.cast_to(concat_columns(b, pieces) if len(pieces) > 1 else pieces[0], node.result_type())
