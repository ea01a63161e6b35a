"""NonMaxSuppression whose number of selected boxes is only known at run time (selected_indices
declared [?, 3], or not at all), on Linalg, TOSA and StableHLO, run on the reference CPU runner
and on IREE and compared with onnxruntime. One compiled module runs on inputs that select different
numbers of boxes, none included, so the count is read from the data, not fixed at compile time.
Downstream ops read the selected rows as the detection post-processing of an SSD does (Gather of
columns, GatherND of boxes and scores). On TOSA those ops run on the padded rows and each result is
cut to the run-time count by a `tensor.extract_slice` (transforms/torch/dynamic_rows.py).
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

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
CONSUMERS = ("reference", "iree")
BATCHES, CLASSES, BOXES = 2, 3, 10
FEATURES = (BATCHES, 2, 12, 12)


def _inputs(seed: int, score_scale: float = 1.0) -> dict:
    """Boxes that overlap at many IoUs (some identical, some flipped) and scores with ties."""
    rng = np.random.default_rng(seed)
    boxes = rng.uniform(0, 10, (BATCHES, BOXES, 4)).round(1).astype(np.float32)
    boxes[0, 4] = boxes[0, 3]
    scores = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], (BATCHES, CLASSES, BOXES)) * score_scale
    return {"boxes": boxes, "scores": scores.astype(np.float32)}


def _model(extra_nodes=(), outputs=(("selected", TensorProto.INT64, [None, 3]),), limit_as_input=False,
           extra_inputs=()):
    """NonMaxSuppression (opset 11) with iou_threshold 0.3, score_threshold 0.4 and
    max_output_boxes_per_class 3 (a literal, or a graph input)."""
    nms = helper.make_node("NonMaxSuppression", ["boxes", "scores", "limit", "iou", "score_threshold"], ["selected"])
    inputs = [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [BATCHES, BOXES, 4]),
              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [BATCHES, CLASSES, BOXES]),
              *extra_inputs]
    constants = {"iou": np.array([0.3], np.float32), "score_threshold": np.array([0.4], np.float32),
                 "limit": np.array([3], np.int64), "box_columns": np.array([0, 2], np.int64),
                 "class_column": np.array([1], np.int64), "first": np.array([0], np.int64),
                 "last_axis": np.array([-1], np.int64)}
    if limit_as_input:
        inputs.append(helper.make_tensor_value_info("limit", TensorProto.INT64, [1]))
        del constants["limit"]
    graph = helper.make_graph(
        [nms, *extra_nodes], "nms", inputs,
        [helper.make_tensor_value_info(name, element, dims) for name, element, dims in outputs],
        [numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)


def _downstream_model():
    """The selected rows read as SSD post-processing reads them: each detection's box and score."""
    n = helper.make_node
    nodes = [
        n("Gather", ["selected", "box_columns"], ["batch_box"], axis=1),  # [N, 2]
        n("GatherND", ["boxes", "batch_box"], ["detection_boxes"]),  # [N, 4]
        n("GatherND", ["scores", "selected"], ["detection_scores"]),  # [N]
        n("Gather", ["selected", "class_column"], ["class_values"], axis=1),
        n("Squeeze", ["class_values", "last_axis"], ["detection_classes"]),  # [N]
    ]
    outputs = (("detection_boxes", TensorProto.FLOAT, ["detections", 4]),
               ("detection_scores", TensorProto.FLOAT, ["detections"]),
               ("detection_classes", TensorProto.INT64, ["detections"]))
    return _model(nodes, outputs)


def _across_rows_model():
    """Ops that read the selected rows together, not row by row (a sum over them, a softmax along
    them): on TOSA they get the rows cut to the count, and compute on a run-time size."""
    nodes = [helper.make_node("ReduceSum", ["selected"], ["total"], keepdims=0),
             helper.make_node("Cast", ["selected"], ["as_float"], to=TensorProto.FLOAT),
             helper.make_node("Softmax", ["as_float"], ["along_rows"], axis=0)]
    return _model(nodes, (("total", TensorProto.INT64, []), ("along_rows", TensorProto.FLOAT, [None, 3])))


def _roi_align_model():
    """Each detection's box pooled from a feature map (RoiAlign), as an SSD's second stage does."""
    n = helper.make_node
    nodes = [
        n("Gather", ["selected", "box_columns"], ["batch_box"], axis=1),  # [N, 2]
        n("GatherND", ["boxes", "batch_box"], ["detection_boxes"]),  # [N, 4]
        n("Gather", ["selected", "first"], ["batch_values"], axis=1),
        n("Squeeze", ["batch_values", "last_axis"], ["batch_indices"]),  # [N]
        n("RoiAlign", ["features", "detection_boxes", "batch_indices"], ["pooled"], output_height=2, output_width=2,
          sampling_ratio=2),  # [N, C, 2, 2]
    ]
    features = helper.make_tensor_value_info("features", TensorProto.FLOAT, list(FEATURES))
    return _model(nodes, (("pooled", TensorProto.FLOAT, ["detections", FEATURES[1], 2, 2]),),
                  extra_inputs=[features])


def _count_model():
    """Only the number of selected rows leaves the graph (its signature is static)."""
    nodes = [helper.make_node("Shape", ["selected"], ["shape"]),
             helper.make_node("Gather", ["shape", "first"], ["count"], axis=0)]
    return _model(nodes, (("count", TensorProto.INT64, [1]),))


def _padded_to_static_model():
    """Ultralytics' tail: the selected rows as floats, flattened and padded to 20 rows' worth by a Pad whose
    amount the graph computes from their Shape (`(20 - n) * 3`, as torch's F.pad pairs reversed), then viewed
    as [20, 3]. The exporter records the Pad's static result [60]: a static signature around a data-dependent
    count."""
    nodes = [helper.make_node("Cast", ["selected"], ["rows"], to=TensorProto.FLOAT),
             helper.make_node("Shape", ["rows"], ["shape"]),
             helper.make_node("Reshape", ["rows", "flat"], ["flat_rows"]),
             helper.make_node("Gather", ["shape", "zero"], ["count"], axis=0),
             helper.make_node("Sub", ["most", "count"], ["missing_rows"]),
             helper.make_node("Mul", ["missing_rows", "width"], ["missing"]),
             helper.make_node("Unsqueeze", ["missing", "first"], ["missing_1d"]),
             helper.make_node("Concat", ["first", "missing_1d"], ["torch_pads"], axis=0),
             helper.make_node("Reshape", ["torch_pads", "pairs"], ["pad_pairs"]),
             helper.make_node("Slice", ["pad_pairs", "last", "before_first", "first", "last"], ["reversed_pairs"]),
             helper.make_node("Reshape", ["reversed_pairs", "flat"], ["pads"]),
             helper.make_node("Pad", ["flat_rows", "pads"], ["padded_flat"]),
             helper.make_node("Reshape", ["padded_flat", "row_shape"], ["padded"])]
    constants = {"most": np.array(20, np.int64), "width": np.array(3, np.int64), "zero": np.array(0, np.int64),
                 "flat": np.array([-1], np.int64), "last": np.array([-1], np.int64),
                 "before_first": np.array([-2**62], np.int64), "pairs": np.array([-1, 2], np.int64),
                 "row_shape": np.array([20, 3], np.int64)}
    model = _model(nodes, (("padded", TensorProto.FLOAT, [20, 3]),))
    model.graph.initializer.extend(numpy_helper.from_array(value, name) for name, value in constants.items())
    model.graph.value_info.append(helper.make_tensor_value_info("padded_flat", TensorProto.FLOAT, [60]))
    return model


MODELS = {
    "limit-literal": lambda: _model(),
    "limit-input": lambda: _model(limit_as_input=True),
    "undeclared-shape": lambda: _model(outputs=(("selected", TensorProto.INT64, None),)),
    "downstream-gathers": _downstream_model,
    "across-rows": _across_rows_model,
    "roi-align": _roi_align_model,
}
# Seeds and score scales: 18 (the most: 2 batches x 3 classes x 3), 17 and 0 boxes selected
# (at scale 0.3 no score passes the threshold).
RUNS = [(1, 1.0), (2, 0.6), (3, 0.3)]


def _feeds(model: onnx.ModelProto, seed: int, scale: float) -> dict:
    feeds = _inputs(seed, scale)
    names = {value.name for value in model.graph.input}
    if "limit" in names:
        feeds["limit"] = np.array([3], np.int64)
    if "features" in names:
        feeds["features"] = np.random.default_rng(seed).standard_normal(FEATURES, dtype=np.float32)
    return feeds


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # not the warnings about initializers a model leaves unused
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
        if want.dtype.kind == "f":  # RoiAlign's bilinear sums differ from onnxruntime's in the last bits
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


# IREE compiles slowly: it runs the forms where the two consumers differ (a literal limit, the gathers after),
# and on TOSA the ops after the cut (RoiAlign on the padded rows, ops across the rows reading the cut rows).
IREE_MODELS = ("limit-literal", "downstream-gathers")
TOSA_IREE_MODELS = ("across-rows", "roi-align")
PARAMS = [(name, backend, consumer) for name in MODELS for backend in BACKENDS for consumer in CONSUMERS
          if consumer == "reference" or name in IREE_MODELS or (backend == "tosa" and name in TOSA_IREE_MODELS)]


@pytest.mark.parametrize("name, backend, consumer", PARAMS)
def test_run_time_count_matches_onnxruntime(name, backend, consumer):
    model = MODELS[name]()
    module = onnx_torch_mlir.compile(model, backend)
    compiled = program(module, backend, consumer)
    counts = set()
    for seed, scale in RUNS:
        feeds = _feeds(model, seed, scale)
        expected = _expected(model, feeds)
        _assert_matches(compiled(*feeds.values()), expected)
        counts.add(next(value.shape[0] for value in expected if value.ndim))  # the rows of the first with rows
    assert len(counts) == len(RUNS) and 0 in counts  # the count really changes with the data


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_read_in_a_static_signature(backend):
    model = _count_model()
    compiled = program(onnx_torch_mlir.compile(model, backend), backend, "reference")
    for seed, scale in RUNS:
        feeds = _feeds(model, seed, scale)
        _assert_matches(compiled(*feeds.values()), _expected(model, feeds))


def test_stablehlo_cuts_the_padded_rows_with_a_dynamic_slice():
    text = str(onnx_torch_mlir.compile(_model(), "stablehlo"))
    # 2 batches x 3 classes x min(10 boxes, limit 3) rows, cut to the run-time count.
    assert "stablehlo.real_dynamic_slice" in text and "tensor<18x3xi64>" in text
    assert "torch." not in text


def test_rows_padded_again_to_a_static_size_reach_xla():
    """StableHLO computes on the padded rows as TOSA does (transforms/torch/dynamic_rows.py): a model that
    pads its selected rows to a static size has no dynamic shape left, and XLA runs it."""
    pytest.importorskip("jax")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    model = _padded_to_static_model()
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    assert "?x" not in str(module) and "real_dynamic_slice" not in str(module)
    compiled = compile_with_xla(module)
    for seed, scale in RUNS:
        feeds = _feeds(model, seed, scale)
        _assert_matches(compiled(*feeds.values()), _expected(model, feeds))


def _static_consumer(module, backend: str, consumer: str):
    if consumer == "xla":
        pytest.importorskip("jax")
        from onnx_torch_mlir.runtime.xla import compile_with_xla

        return compile_with_xla(module)
    if consumer == "tosa-reference":
        from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference, tool_path

        try:
            tool_path("tosa_reference_model")
        except Exception as error:  # tosa-tools is in the test extra; a plain install lacks it
            pytest.skip(f"Arm's TOSA reference model is not installed: {error}")
        return compile_with_tosa_reference(module)
    return program(module, backend, consumer)


@pytest.mark.parametrize("backend, consumer", [("stablehlo", "xla"), ("stablehlo", "reference"),
                                               ("tosa", "tosa-reference"), ("tosa", "reference")])
@pytest.mark.parametrize("name", ["limit-literal", "downstream-gathers"])
def test_outputs_padded_with_counts_run_on_consumers_of_static_shapes(name, backend, consumer):
    """data_dependent_outputs="padded-with-counts": every result static, each data-dependent one padded
    and followed by its count (runtime/padded_results.py cuts them again), so XLA and Arm's reference
    model run what they refuse in the cut form."""
    from onnx_torch_mlir.runtime.padded_results import cut_to_counts, padded_results

    model = MODELS[name]()
    module = onnx_torch_mlir.compile(model, backend, data_dependent_outputs="padded-with-counts",
                                     entry_name="main", weights="inline")
    assert "?" not in str(ir_function_type(module))
    triples = padded_results(module)
    assert len(triples) == len(model.graph.output)
    compiled = _static_consumer(module, backend, consumer)
    for seed, scale in RUNS:
        feeds = _feeds(model, seed, scale)
        _assert_matches(cut_to_counts(triples, compiled(*feeds.values())), _expected(model, feeds))


def ir_function_type(module):
    from onnx_torch_mlir.transforms.output_form import entry_function

    return entry_function(module).attributes["function_type"]


@pytest.mark.parametrize("make_model", [_model, _downstream_model, _count_model])
def test_tosa_computes_on_padded_rows_and_cuts_them_outside_tosa(make_model):
    """Every op but the cuts is TOSA on static shapes, the cuts are `tensor.extract_slice` of the
    padded rows (18 = 2 batches x 3 classes x min(10 boxes, limit 3)), and the output validates
    against our TOSA target (tosa-validate checks TOSA ops only)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from tosa_validation import validation_error

    module = onnx_torch_mlir.compile(make_model(), "tosa")
    text = str(module)
    assert "torch." not in text and "tosa.custom" not in text
    cuts = [line for line in text.splitlines() if "tensor.extract_slice" in line]
    assert all(" to tensor<?" in line for line in cuts)
    if make_model is _count_model:  # the count itself leaves the graph: no rows are cut
        assert not cuts
    else:
        assert cuts and all("tensor<18x" in line for line in cuts)
    assert "tensor<?" not in "".join(line for line in text.splitlines() if "tosa." in line)
    assert validation_error(module) is None


def test_tosa_refuses_a_run_time_count_inside_an_if():
    """Inside an If body the rows cannot be computed padded past the body: refused, saying what to do."""
    def branch(name: str, limit: int):
        nms = helper.make_node("NonMaxSuppression", ["boxes", "scores", f"limit_{name}"], [f"selected_{name}"])
        return helper.make_graph(
            [nms], name, [], [helper.make_tensor_value_info(f"selected_{name}", TensorProto.INT64, [None, 3])],
            [numpy_helper.from_array(np.array([limit], np.int64), f"limit_{name}")])

    branches = helper.make_node("If", ["condition"], ["selected"], then_branch=branch("then", 2),
                                else_branch=branch("else", 1))
    graph = helper.make_graph(
        [branches], "nms_in_if",
        [helper.make_tensor_value_info("condition", TensorProto.BOOL, []),
         helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 5, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 5])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    with pytest.raises(Exception, match="not inside an If or Loop body") as error:
        onnx_torch_mlir.compile(model, "tosa")
    assert "NonMaxSuppression" in str(error.value) and "declare selected_indices with a static shape" in str(error.value)
