"""Result types of `ai.onnx.ml` operators where ONNX's shape inference gives none (or no shape).

ONNX's schemas for the classic-ML domain type few results: `Scaler`, `Normalizer`, `Imputer`,
`LinearRegressor`, `SVMRegressor` and `FeatureVectorizer` get nothing, `SVMClassifier` and
`TreeEnsembleClassifier` (version 1) a label of unknown shape and no scores. skl2onnx and
onnxmltools write exactly those ops, so without these functions a converted scikit-learn model
stops at its first node. `ML_RESULT_TYPES` maps each op to a function of the node's input types
and attributes (the `contrib_types` contract: a dim is an int, a name or None; one entry per
output). The shapes are onnxruntime's (`core/providers/cpu/ml/*.cc`), which its kernels write
and skl2onnx's declarations follow:

- a classifier's label is `[N]` (int64, or string with `classlabels_strings`), its scores
  `[N, C]` float: C is the number of classes, except LinearClassifier with one intercept and two
  labels (C = 2), and SVMClassifier with support vectors and no `prob_a` (one score per pair of
  classes, 2 for two classes);
- regressors give float `[N, targets]` (SVMRegressor one target);
- an `[F]` input counts as one row (N = 1).

Maps and sequences of maps (`ZipMap`, `CastMap`, `DictVectorizer`) cannot be typed as tensors:
`map_problem` gives the one-line reason the importer reports for them (a ZipMap that gives a graph
output is compiled as its dense input before this check: `zipmap.py`).
"""

from __future__ import annotations

from onnx import TensorProto

from .contrib_types import ContribNode, TensorType

FLOAT, INT64, STRING = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING
MAP_OPERATORS = ("ZipMap", "CastMap", "DictVectorizer")


def _rows(node: ContribNode):
    """N of an [N, F] (or [F]: 1) input; None when its rank is unknown."""
    dims = node.dims(0)
    if dims is None:
        return None
    return 1 if len(dims) <= 1 else dims[0]


def _count(node: ContribNode, *names) -> int:
    """The length of the first attribute of `names` the node has (a tensor attribute counts its elements)."""
    for name in names:
        value = node.attribute(name)
        if value is not None:
            if hasattr(value, "dims"):
                size = 1
                for dim in value.dims:
                    size *= dim
                return size
            return len(value)
    return 0


def _label_element(node: ContribNode, strings: str) -> int:
    return STRING if node.attribute(strings) else INT64


def _same_dims(element_type: int | None):
    """Typed like input 0's dims; the element type is `element_type` (None: input 0's)."""

    def infer(node: ContribNode) -> list:
        found = node.input(0)
        if found is None:
            return [TensorType(element_type, None)] if element_type is not None else []
        return [found if element_type is None else found.with_element_type(element_type)]

    return infer


def _float_rows_by(width):
    """Float [N, width(node)]."""

    def infer(node: ContribNode) -> list:
        return [TensorType(FLOAT, (_rows(node), width(node)))]

    return infer


def label_encoder(node: ContribNode) -> list:
    """Input dims; the element type of the values (version 1: int64 in, string out and back)."""
    values = node.attribute("values_tensor")
    if values is not None:
        element = values.data_type
    elif node.attribute("values_strings") is not None:
        element = STRING
    elif node.attribute("values_int64s") is not None:
        element = INT64
    elif node.attribute("values_floats") is not None:
        element = FLOAT
    else:  # version 1: classes_strings maps int64 <-> string
        element = STRING if node.element_type(0) == INT64 else INT64
    return _same_dims(element)(node)


def one_hot_encoder(node: ContribNode) -> list:
    """Float, the input dims and one more: the categories."""
    dims = node.dims(0)
    width = _count(node, "cats_int64s", "cats_strings")
    return [TensorType(FLOAT, None if dims is None else (*dims, width))]


def linear_classifier(node: ContribNode) -> list:
    labels = _count(node, "classlabels_ints", "classlabels_strings")
    classes = _count(node, "intercepts")
    scores = 2 if classes == 1 and labels == 2 else classes
    rows = _rows(node)
    return [TensorType(_label_element(node, "classlabels_strings"), (rows,)), TensorType(FLOAT, (rows, scores))]


def svm_classifier(node: ContribNode) -> list:
    classes = _count(node, "classlabels_ints", "classlabels_strings")
    if _count(node, "vectors_per_class") and not _count(node, "prob_a"):
        scores = 2 if classes <= 2 else classes * (classes - 1) // 2
    else:
        scores = classes
    rows = _rows(node)
    return [TensorType(_label_element(node, "classlabels_strings"), (rows,)), TensorType(FLOAT, (rows, scores))]


def tree_ensemble_classifier(node: ContribNode) -> list:
    classes = _count(node, "classlabels_int64s", "classlabels_strings")
    rows = _rows(node)
    return [TensorType(_label_element(node, "classlabels_strings"), (rows,)), TensorType(FLOAT, (rows, classes))]


def tree_ensemble(node: ContribNode) -> list:
    """TreeEnsemble (version 5): X's element type, [N, n_targets]."""
    element = node.element_type(0)
    if element is None:
        return []
    return [TensorType(element, (_rows(node), node.attribute("n_targets")))]


def array_feature_extractor(node: ContribNode) -> list:
    """X's leading dims and the number of indices; a 1-D X gives [1, K]."""
    dims, indices = node.dims(0), node.dims(1)
    if node.input(0) is None:
        return []
    count = None
    if indices is not None and all(isinstance(size, int) for size in indices):
        count = 1
        for size in indices:
            count *= size
    if dims is None:
        return [node.input(0).with_dims(None)]
    leading = [1] if len(dims) == 1 else dims[:-1]
    return [node.input(0).with_dims([*leading, count])]


def feature_vectorizer(node: ContribNode) -> list:
    """Float [N, sum of inputdimensions]."""
    widths = node.attribute("inputdimensions") or []
    return [TensorType(FLOAT, (_rows(node), sum(widths) if widths else None))]


ML_RESULT_TYPES = {
    "Scaler": _same_dims(FLOAT),
    "Normalizer": _same_dims(FLOAT),
    "Binarizer": _same_dims(None),
    "Imputer": _same_dims(None),
    "LabelEncoder": label_encoder,
    "OneHotEncoder": one_hot_encoder,
    "LinearClassifier": linear_classifier,
    "LinearRegressor": _float_rows_by(lambda node: node.attribute("targets", 1)),
    "SVMClassifier": svm_classifier,
    "SVMRegressor": _float_rows_by(lambda node: 1),
    "TreeEnsembleClassifier": tree_ensemble_classifier,
    "TreeEnsembleRegressor": _float_rows_by(lambda node: node.attribute("n_targets", 1)),
    "TreeEnsemble": tree_ensemble,
    "ArrayFeatureExtractor": array_feature_extractor,
    "FeatureVectorizer": feature_vectorizer,
}


def map_problem(op_type: str, opset: int | None) -> str | None:
    """Why an ai.onnx.ml op of maps cannot be imported (None for other ops)."""
    where = f"ai.onnx.ml opset {opset}"
    if op_type == "ZipMap":
        return (f"ZipMap ({where}) whose sequence of maps another node reads: torch cannot carry maps (a ZipMap "
                "that gives a graph output is compiled as its dense probabilities); converting the classifier "
                "with zipmap=False in skl2onnx (options={id(model): {'zipmap': False}}) gives the probabilities "
                "as a tensor")
    if op_type in ("CastMap", "DictVectorizer"):
        return (f"{op_type} ({where}) reads a map, which torch cannot carry; convert the model from tensors "
                "(in skl2onnx, zipmap=False and no DictVectorizer step)")
    return None


STRING_ATTRIBUTES = {
    "classlabels_strings": "the class labels are strings",
    "cats_strings": "the categories are strings",
    "keys_strings": "the keys are strings",
    "values_strings": "the values are strings",
    "classes_strings": "the classes are strings",
}


def string_problem(node) -> str | None:
    """Why an ai.onnx.ml node cannot be carried by torch tensors in the torch-ONNX form: an
    attribute that makes a result or an operand a string tensor (None otherwise)."""
    for attribute in node.attribute:
        reason = STRING_ATTRIBUTES.get(attribute.name)
        if reason and attribute.strings:
            return (f"{reason} ('{attribute.name}'), and torch has no string tensors; a model fitted on "
                    "integer labels or categories converts (skl2onnx then writes int64 ones)")
    return None


def check_torch_carriable(graph, versions: dict, model_name: str) -> None:
    """Raise ImportError_ at the first ai.onnx.ml node of `graph` with string labels or keys."""
    from ..errors import ImportError_
    from .node_structure import node_label

    for index, node in enumerate(graph.node):
        if node.domain != "ai.onnx.ml":
            continue
        problem = string_problem(node)
        if problem:
            label = node_label(index, node)
            raise ImportError_(f"{model_name}: {label[:-1]}, opset {versions.get(node.domain)}): {problem}")


def check_declared_results(graph, versions: dict, model_name: str) -> None:
    """Raise ImportError_ at the first ai.onnx.ml node whose declared result element type is not the
    one the op gives (skl2onnx declares double scores on a version-1 classifier of a double input,
    which onnxruntime refuses too). Inference only completes types, so it would not notice."""
    import onnx

    from ..errors import ImportError_
    from .node_structure import node_label
    from .types import element_type_name

    declared = {}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        if value.type.WhichOneof("value") == "tensor_type" and value.type.tensor_type.elem_type:
            declared[value.name] = value.type.tensor_type.elem_type
    for index, node in enumerate(graph.node):
        function = ML_RESULT_TYPES.get(node.op_type) if node.domain == "ai.onnx.ml" else None
        if function is None:
            continue
        if any(name and name not in declared for name in node.input):
            continue  # typed from the inputs, which are not all known here
        inputs = [TensorType(declared[name], None) if name else None for name in node.input]
        try:
            expected = function(ContribNode(node, inputs, lambda name: None))
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, onnx.checker.ValidationError):
            continue
        for name, found in zip(node.output, expected):
            if found is None or found.element_type is None or name not in declared:
                continue
            if declared[name] != found.element_type:
                label = node_label(index, node)
                raise ImportError_(
                    f"{model_name}: {label[:-1]}, opset {versions.get(node.domain)}): result '{name}' is declared "
                    f"{element_type_name(declared[name]).lower()} but {node.op_type} gives "
                    f"{element_type_name(found.element_type).lower()}")
