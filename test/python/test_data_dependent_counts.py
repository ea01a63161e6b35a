"""Sizes that depend on the data, as detectors exported with their post-processing in the graph
have them (ultralytics `nms=True`, torchvision-style: scores -> threshold -> NonZero or Compress ->
Gather of the candidate boxes -> NonMaxSuppression -> Gather of the kept boxes), on Linalg,
StableHLO and TOSA, run on the reference CPU runner and on IREE and compared with onnxruntime.

On StableHLO and TOSA each data-dependent count is computed padded to the most there can be and
cut to the count read at run time (conversion/onnx_to_torch/padded_rows.py): NonZero and Compress
pad to their input's elements, NonMaxSuppression takes its boxes padded (a box count known only at
run time) and masks the padding out. One compiled module runs on inputs that select different
numbers of candidates and detections, none included. A box count that is a dynamic graph input:
Linalg takes it as it is, StableHLO pads to it at run time (test_non_zero_run_time_elements.py),
TOSA needs the dim fixed by --dim (the data-dependent counts after it stay data-dependent).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program

BACKENDS = ("linalg-on-tensors", "stablehlo", "tosa")
CLASSES = 3


def _detector(boxes: int | str, selection: str = "nonzero", limit: int = 5, opset: int = 13) -> onnx.ModelProto:
    """boxes [1, N, 4] and scores [1, C, N]: the boxes whose best class score passes 0.5 (NonZero and
    Gather, or Compress), NonMaxSuppression on them (IoU 0.5, score 0.5, `limit` per class), and the
    kept boxes gathered again: selected [M, 3] and detections [1, M, 4]."""
    n = helper.make_node
    if selection == "nonzero":
        candidates = [n("NonZero", ["passes"], ["positions"]),  # [2, K]
                      n("Gather", ["positions", "one"], ["columns"], axis=0),  # [K]
                      n("Gather", ["boxes", "columns"], ["candidate_boxes"], axis=1),  # [1, K, 4]
                      n("Gather", ["scores", "columns"], ["candidate_scores"], axis=2)]  # [1, C, K]
    else:
        candidates = [n("Squeeze", ["passes", "zero"], ["flags"]),  # [N]
                      n("Compress", ["boxes", "flags"], ["candidate_boxes"], axis=1),
                      n("Compress", ["scores", "flags"], ["candidate_scores"], axis=2)]
    nodes = [
        n("ReduceMax", ["scores"], ["best"], axes=[1], keepdims=0),  # [1, N]
        n("Greater", ["best", "threshold"], ["passes"]),
        *candidates,
        n("NonMaxSuppression", ["candidate_boxes", "candidate_scores", "limit", "iou", "threshold_1d"], ["selected"]),
        n("Gather", ["selected", "two"], ["kept"], axis=1),  # [M]
        n("Gather", ["candidate_boxes", "kept"], ["detections"], axis=1),  # [1, M, 4]
    ]
    constants = {"threshold": np.array(0.5, np.float32), "threshold_1d": np.array([0.5], np.float32),
                 "one": np.array(1, np.int64), "two": np.array(2, np.int64), "zero": np.array([0], np.int64),
                 "limit": np.array([limit], np.int64), "iou": np.array([0.5], np.float32)}
    graph = helper.make_graph(
        nodes, "detector",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, boxes, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, CLASSES, boxes])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3]),
         helper.make_tensor_value_info("detections", TensorProto.FLOAT, [1, None, 4])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _ultralytics_nms(boxes: int = 8400, classes: int = 80, max_det: int = 300,
                     expanded_classes: bool = False) -> onnx.ModelProto:
    """As ultralytics exports `nms=True`: the best class of each box, the boxes above conf 0.25
    (NonZero, Transpose, GatherND), one NonMaxSuppression with the boxes offset by class, the first
    max_det kept (Slice), their box, score and class concatenated, zero-padded to [max_det, 6] by a
    Pad whose amount is max_det minus the run-time count: a static output.
    `expanded_classes`: the exporter's own forms after onnxslim: the class offset broadcast to the
    boxes' shape by an Expand whose shape is computed from the candidates' Shape (Reshape to a
    column, Shape -> Gather -> Unsqueeze -> Concat with 4, Where on a literal `shape == -1` mask),
    and the detections flattened and padded by (max_det - count) x 6 values, the pads in torch's
    F.pad order reversed by Reshape and a Slice with step -1."""
    n = helper.make_node
    if expanded_classes:
        shift = [
            n("Reshape", ["box_class", "column"], ["class_column_int"]),  # [K, 1]
            n("Shape", ["box_class"], ["class_shape"]),
            n("Gather", ["class_shape", "zero"], ["class_count"], axis=0),
            n("Unsqueeze", ["class_count", "first"], ["class_count_list"]),
            n("Concat", ["class_count_list", "four"], ["wanted_shape"], axis=0),
            n("Where", ["is_minus_one", "ones", "wanted_shape"], ["expand_shape"]),
            n("Expand", ["class_column_int", "expand_shape"], ["class_grid"]),  # [K, 4]
            n("Cast", ["class_grid"], ["class_grid_value"], to=TensorProto.FLOAT),
            n("Mul", ["class_grid_value", "offset"], ["shift"]),
            n("Cast", ["box_class"], ["class_value"], to=TensorProto.FLOAT),
        ]
    else:
        shift = [
            n("Cast", ["box_class"], ["class_value"], to=TensorProto.FLOAT),
            n("Unsqueeze", ["class_value", "last"], ["class_column"]),  # [K, 1]
            n("Mul", ["class_column", "offset"], ["shift"]),
        ]
    nodes = [
        n("ReduceMax", ["scores"], ["score"], axes=[2], keepdims=0),  # [1, N]
        n("ArgMax", ["scores"], ["best_class"], axis=2, keepdims=0),
        n("Greater", ["score", "conf"], ["mask"]),
        n("NonZero", ["mask"], ["positions"]),  # [2, K]
        n("Transpose", ["positions"], ["index"], perm=[1, 0]),
        n("GatherND", ["boxes", "index"], ["box"]),  # [K, 4]
        n("GatherND", ["score", "index"], ["box_score"]),  # [K]
        n("GatherND", ["best_class", "index"], ["box_class"]),
        *shift,
        n("Add", ["box", "shift"], ["shifted"]),
        n("Unsqueeze", ["shifted", "first"], ["nms_boxes"]),  # [1, K, 4]
        n("Unsqueeze", ["box_score", "first_two"], ["nms_scores"]),  # [1, 1, K]
        n("NonMaxSuppression", ["nms_boxes", "nms_scores", "max_det", "iou"], ["selected"]),
        n("Gather", ["selected", "two"], ["kept_all"], axis=1),
        n("Slice", ["kept_all", "first", "max_det"], ["kept"]),  # [min(M, max_det)]
        n("Gather", ["box", "kept"], ["kept_boxes"], axis=0),
        n("Gather", ["box_score", "kept"], ["kept_scores"], axis=0),
        n("Gather", ["class_value", "kept"], ["kept_classes"], axis=0),
        n("Unsqueeze", ["kept_scores", "last"], ["score_column"]),
        n("Unsqueeze", ["kept_classes", "last"], ["kept_class_column"]),
        n("Concat", ["kept_boxes", "score_column", "kept_class_column"], ["detections"], axis=1),  # [D, 6]
        n("Shape", ["detections"], ["shape"]),
        n("Gather", ["shape", "first"], ["count"], axis=0),
        n("Sub", ["max_det", "count"], ["missing"]),
        *([n("Mul", ["missing", "six"], ["missing_values"]),  # the exporter's form: padded flat,
           n("Concat", ["first", "missing_values"], ["torch_pads"], axis=0),  # torch's F.pad order,
           n("Reshape", ["torch_pads", "pairs"], ["pad_pairs"]),  # reversed pair by pair
           n("Slice", ["pad_pairs", "last", "before_first", "first", "last"], ["reversed_pairs"]),
           n("Reshape", ["reversed_pairs", "last"], ["pads"]),
           n("Reshape", ["detections", "last"], ["flat"]),  # [D * 6]
           n("Pad", ["flat", "pads"], ["flat_output"]),
           n("Reshape", ["flat_output", "output_shape"], ["output"])] if expanded_classes else
          [n("Concat", ["first", "first", "missing", "first"], ["pads"], axis=0),
           n("Pad", ["detections", "pads"], ["output"])]),  # [max_det, 6]
    ]
    constants = {"conf": np.array(0.25, np.float32), "offset": np.array(7680.0, np.float32),
                 "last": np.array([-1], np.int64), "first": np.array([0], np.int64),
                 "first_two": np.array([0, 1], np.int64), "two": np.array(2, np.int64),
                 "max_det": np.array([max_det], np.int64), "iou": np.array([0.7], np.float32),
                 "column": np.array([-1, 1], np.int64), "zero": np.array(0, np.int64),
                 "four": np.array([4], np.int64), "is_minus_one": np.array([False, False]),
                 "ones": np.array([1, 1], np.int64), "six": np.array([6], np.int64),
                 "pairs": np.array([-1, 2], np.int64), "before_first": np.array([-2**63 + 1], np.int64),
                 "output_shape": np.array([max_det, 6], np.int64)}
    graph = helper.make_graph(
        nodes, "ultralytics_nms",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, boxes, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, boxes, classes])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [max_det, 6])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()],
        # onnxslim's symbolic shape inference annotates the flat padded size
        value_info=[helper.make_tensor_value_info("flat_output", TensorProto.FLOAT, [max_det * 6])]
        if expanded_classes else None)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _gather_nd_chain(length: int | str) -> onnx.ModelProto:
    """x [2, L] -> x > 0.5 -> NonZero -> Transpose -> GatherND: the values that pass."""
    n = helper.make_node
    graph = helper.make_graph(
        [n("Greater", ["x", "threshold"], ["mask"]), n("NonZero", ["mask"], ["positions"]),
         n("Transpose", ["positions"], ["index"], perm=[1, 0]), n("GatherND", ["x", "index"], ["values"])],
        "gather_nd_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, length])],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, [None])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "threshold")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _top_k_run_time_k(length: int) -> onnx.ModelProto:
    """TopK of x [2, L] with k a graph input: values and indices [2, k]."""
    graph = helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=-1)], "top_k",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, length]),
         helper.make_tensor_value_info("k", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, [2, None]),
         helper.make_tensor_value_info("indices", TensorProto.INT64, [2, None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _detector_feeds(count: int, seed: int) -> dict:
    """Boxes that overlap at many IoUs; scores whose power `seed` sets how many pass 0.5 (seed 3:
    none)."""
    rng = np.random.default_rng(seed)
    corner = rng.uniform(0, 200, (1, count, 2))
    size = rng.uniform(10, 60, (1, count, 2))
    boxes = np.concatenate([corner, corner + size], axis=2).round(1).astype(np.float32)
    scores = rng.uniform(0, 1, (1, CLASSES, count)) ** (1 + 2 * seed)
    if seed == 3:
        scores *= 0.4
    return {"boxes": boxes, "scores": scores.astype(np.float32)}


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        got = np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def _run_detector(model, backend: str, consumer: str, count: int, dims=None):
    compiled = program(onnx_torch_mlir.compile(model, backend, dims=dims), backend, consumer)
    detections = set()
    for seed in (0, 1, 3):
        feeds = _detector_feeds(count, seed)
        expected = _expected(model, feeds)
        _assert_matches(compiled(*feeds.values()), expected)
        detections.add(expected[0].shape[0])
    assert 0 in detections and len(detections) >= 2  # the count really changes with the data


# The detector with 8400 candidate boxes (a YOLO head at 640x640), NonZero or Compress selecting them.
# IREE compiles slowly: it runs the NonZero form on every backend.
@pytest.mark.parametrize("selection, backend, consumer", [
    (selection, backend, consumer) for selection in ("nonzero", "compress") for backend in BACKENDS
    for consumer in ("reference", "iree") if consumer == "reference" or selection == "nonzero"])
def test_detector_with_8400_boxes_matches_onnxruntime(selection, backend, consumer):
    _run_detector(_detector(8400, selection), backend, consumer, 8400)


# A dynamic box count: Linalg and StableHLO as it is (StableHLO's NonZero pads to the run-time number
# of boxes), TOSA with it fixed (the candidates and the detections stay data-dependent).
@pytest.mark.parametrize("backend, consumer", [("linalg-on-tensors", "reference"), ("linalg-on-tensors", "iree"),
                                               ("stablehlo", "reference"), ("stablehlo", "iree"),
                                               ("tosa", "reference")])
def test_detector_with_a_dynamic_box_count_matches_onnxruntime(backend, consumer):
    model = _detector("boxes")
    dims = None if backend != "tosa" else {"boxes": 300}
    if backend != "tosa":  # one module, two box counts
        compiled = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
        for count in (300, 77):
            for seed in (0, 3):
                feeds = _detector_feeds(count, seed)
                _assert_matches(compiled(*feeds.values()), _expected(model, feeds))
        return
    _run_detector(model, backend, consumer, 300, dims)


@pytest.mark.parametrize("backend, consumer, expanded_classes", [
    *[(backend, "reference", False) for backend in BACKENDS], ("tosa", "iree", False),
    ("stablehlo", "reference", True), ("tosa", "reference", True)])
def test_ultralytics_nms_export_matches_onnxruntime(backend, consumer, expanded_classes):
    """8400 boxes of 80 classes to a static [300, 6]: the candidates (a few hundred to thousands),
    the detections (fewer than 300: zero rows after them) and none at all. With `expanded_classes`
    the boxes reach NonMaxSuppression through an Expand whose shape is computed from the
    candidates' count (StableHLO and TOSA find their padded rows through it), and the detections
    flattened before the Pad (TOSA: a cut of count x 6 values, the pad amount a tensor)."""
    model = _ultralytics_nms(expanded_classes=expanded_classes)
    compiled = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
    for seed, power in ((0, 40), (2, 4000), (3, 0)):  # thousands of candidates, some hundred, none
        rng = np.random.default_rng(seed)
        corner = rng.uniform(0, 600, (1, 8400, 2))
        boxes = np.concatenate([corner, corner + rng.uniform(10, 80, (1, 8400, 2))], axis=2).astype(np.float32)
        scores = (rng.uniform(0, 1, (1, 8400, 80)) ** power * (power > 0)).astype(np.float32)
        feeds = {"boxes": boxes, "scores": scores}
        expected = _expected(model, feeds)
        got = compiled(*feeds.values())
        assert np.asarray(got[0]).shape == (300, 6)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nms_with_no_limit_keeps_every_surviving_box(backend):
    """max_output_boxes_per_class as torchvision exports it (the largest int64): the loop runs as many
    steps as a class keeps boxes, and the padded rows are every candidate of every class."""
    model = _detector(500, limit=2**63 - 1)
    _run_detector(model, backend, "reference", 500)


@pytest.mark.parametrize("backend, length", [(backend, length) for backend in BACKENDS for length in (20, 8400)])
def test_non_zero_transpose_gather_nd_matches_onnxruntime(backend, length):
    model = _gather_nd_chain(length)
    compiled = program(onnx_torch_mlir.compile(model, backend), backend, "reference")
    counts = set()
    for seed, scale in ((0, 1.0), (1, 0.6), (2, 0.4)):
        feeds = {"x": (np.random.default_rng(seed).uniform(0, 1, (2, length)) * scale).astype(np.float32)}
        expected = _expected(model, feeds)
        _assert_matches(compiled(*feeds.values()), expected)
        counts.add(expected[0].shape[0])
    assert len(counts) == 3 and 0 in counts


# TOSA sorts by a bitonic network (8400 values: 105 compare-exchange stages on 16384 positions).
@pytest.mark.parametrize("backend, consumer, length", [
    *((backend, "reference", 50) for backend in BACKENDS), ("tosa", "iree", 50), ("tosa", "reference", 8400)])
def test_top_k_with_a_run_time_k_matches_onnxruntime(backend, consumer, length):
    model = _top_k_run_time_k(length)
    compiled = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
    for k in (0, 3, 50):
        x = np.random.default_rng(k).standard_normal((2, length)).astype(np.float32)
        x[1, ::7] = x[1, 0]  # ties: in index order
        feeds = {"x": x, "k": np.array([k], np.int64)}
        _assert_matches(compiled(*feeds.values()), _expected(model, feeds))


def test_tosa_detector_is_static_tosa_with_cuts_outside_it():
    """Every TOSA op static (the candidates padded to 8400 boxes, NonMaxSuppression's loop a
    tosa.while_loop on them), the results cut by tensor.extract_slice, and the output validates."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from tosa_validation import validation_error

    module = onnx_torch_mlir.compile(_detector(8400), "tosa")
    text = str(module)
    assert "torch." not in text and "tosa.custom" not in text and "tosa.while_loop" in text
    assert "tensor<?" not in "".join(line for line in text.splitlines() if "tosa." in line)
    assert [line for line in text.splitlines() if "tensor.extract_slice" in line]
    assert validation_error(module) is None


def test_unbounded_box_count_is_refused_on_tosa_naming_the_way_out():
    with pytest.raises(Exception, match="NonZero.*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(_detector("boxes"), "tosa")
