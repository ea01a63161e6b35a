"""Recurrent and control-flow models in the model zoo: what reaches the ONNX Loop, If, LSTM and GRU ops.

- lstm-text-*: a text classifier (embedding, a 2-layer bidirectional nn.LSTM, a linear head on the
  last step), TorchScript (opset 17) and dynamo exports, static and with dynamic batch and sequence;
- gru-text-*: the same with a 1-layer nn.GRU;
- cond-dynamo: a block that takes one of two branches by the sign of its input's mean
  (`torch.cond`, which the dynamo exporter writes as an ONNX `If`), dynamic batch;
- scripted-loop-torchscript: a scripted module whose loop runs a data-dependent number of times
  (`torch.jit.script`, which the TorchScript exporter writes as an ONNX `Loop`);
- scripted-sequence-loop-torchscript(-dynamic): a scripted recurrence that appends to a list of tensors
  and stacks it (an ONNX `Loop` carrying a tensor sequence, `ConcatFromSequence` after it), static, and
  with dynamic steps (a run-time trip count) and batch;
- ssd-postprocess-helper: SSD-style detection post-processing built with onnx.helper (box
  decoding, `TopK`, `GatherND`, `NonMaxSuppression`, `RoiAlign`).

zoo_models.py adds `models(ZooModel)` to its registry when it loads; this module imports zoo_models
only inside the builders (for its export helper). `SHARED_BUILD_CODE` is what of this module goes
into these models' cache keys (all of it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

VOCABULARY = 1000
EMBEDDING = 32
CLASSES = 5


def _zoo_models():
    import zoo_models

    return zoo_models


def _text_classifier(cell: str):
    import torch

    class TextClassifier(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(VOCABULARY, EMBEDDING)
            if cell == "lstm":
                self.rnn = torch.nn.LSTM(EMBEDDING, 32, num_layers=2, bidirectional=True, batch_first=True)
            else:
                self.rnn = torch.nn.GRU(EMBEDDING, 32, batch_first=True)
            self.head = torch.nn.Linear(64 if cell == "lstm" else 32, CLASSES)

        def forward(self, input_ids):
            states, _ = self.rnn(self.embedding(input_ids))
            return self.head(states[:, -1])

    torch.manual_seed(0)
    return TextClassifier().eval()


def build_text_classifier(directory: Path, cell: str, exporter: str, dynamic: bool) -> Path:
    import torch

    example = {"input_ids": torch.from_numpy(_token_ids(np.random.default_rng(1), 2, 12))}
    axes = {"input_ids": {0: "batch", 1: "sequence"}} if dynamic else None
    with torch.no_grad():
        return _zoo_models()._export_torch_module(
            _text_classifier(cell), example, directory / "model.onnx", exporter, axes, ["logits"]
        )


def _token_ids(rng: np.random.Generator, batch: int, sequence: int) -> np.ndarray:
    return rng.integers(0, VOCABULARY, (batch, sequence), dtype=np.int64)


def inputs_for_text_classifier(rng: np.random.Generator, cell: str, exporter: str, dynamic: bool) -> dict:
    del cell, exporter
    batch, sequence = (3, 7) if dynamic else (2, 12)
    return {"input_ids": _token_ids(rng, batch, sequence)}


def build_cond(directory: Path) -> Path:
    import torch

    class Branching(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Linear(16, 16)
            self.outer = torch.nn.Linear(16, 4)

        def forward(self, x):
            hidden = self.inner(x)
            chosen = torch.cond(hidden.mean() > 0, lambda h: torch.tanh(h) * 2.0, lambda h: torch.sigmoid(h) - 1.0, (hidden,))
            return self.outer(chosen)

    torch.manual_seed(0)
    example = {"x": torch.randn(2, 16)}
    return _zoo_models()._export_torch_module(
        Branching().eval(), example, directory / "model.onnx", "dynamo", {"x": {0: "batch"}}, ["y"]
    )


def inputs_for_cond(rng: np.random.Generator) -> dict:
    """Batch 3; the mean's sign picks the branch: the harness runs seed 0 (and the test both)."""
    return {"x": rng.standard_normal((3, 16), dtype=np.float32)}


def build_scripted_loop(directory: Path) -> Path:
    import torch

    class Halving(torch.nn.Module):
        """Halves x until its largest magnitude is below 1 (a data-dependent trip count), counting the steps."""

        def forward(self, x):
            steps = torch.zeros((), dtype=torch.int64)
            while bool(x.abs().max() >= 1.0):
                x = x * 0.5
                steps = steps + 1
            return x, steps

    scripted = torch.jit.script(Halving())
    path = directory / "model.onnx"
    example = (torch.full((2, 3), 5.0),)
    torch.onnx.export(
        scripted, example, str(path), dynamo=False, opset_version=17, input_names=["x"], output_names=["y", "steps"],
        dynamic_axes={"x": {0: "batch"}},
    )
    return path


def inputs_for_scripted_loop(rng: np.random.Generator) -> dict:
    return {"x": (rng.standard_normal((4, 3)) * 40).astype(np.float32)}


SEQUENCE_STEPS, SEQUENCE_BATCH, SEQUENCE_FEATURES = 5, 2, 8


def build_scripted_sequence_loop(directory: Path, dynamic: bool = False) -> Path:
    """A scripted recurrence that appends each step's state to a list and stacks and concatenates
    the list: the TorchScript exporter writes an ONNX Loop carrying a tensor sequence
    (SequenceEmpty, SequenceInsert in the body) and two ConcatFromSequence after it. With `dynamic`,
    x's dim 0 (the steps, the Loop's trip count) and dim 1 (the batch) are dynamic axes."""
    from typing import List

    import torch

    class Accumulating(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = SEQUENCE_FEATURES
            self.cell = torch.nn.Linear(SEQUENCE_FEATURES, SEQUENCE_FEATURES)

        def forward(self, x):
            h = torch.zeros(x.size(1), self.features)
            states: List[torch.Tensor] = []
            for step in range(x.size(0)):
                h = torch.tanh(self.cell(x[step]) + h)
                states.append(h)
            return torch.stack(states), torch.cat(states, 1)

    torch.manual_seed(0)
    scripted = torch.jit.script(Accumulating().eval())
    path = directory / "model.onnx"
    example = (torch.randn(SEQUENCE_STEPS, SEQUENCE_BATCH, SEQUENCE_FEATURES),)
    torch.onnx.export(
        scripted, example, str(path), dynamo=False, opset_version=17, input_names=["x"],
        output_names=["states", "joined"], dynamic_axes={"x": {0: "steps", 1: "batch"}} if dynamic else None,
    )
    return path


def inputs_for_scripted_sequence_loop(rng: np.random.Generator, dynamic: bool = False) -> dict:
    steps, batch = (7, 3) if dynamic else (SEQUENCE_STEPS, SEQUENCE_BATCH)
    return {"x": rng.standard_normal((steps, batch, SEQUENCE_FEATURES), dtype=np.float32)}


SSD_GRID, SSD_IMAGE, SSD_CLASSES, SSD_CHANNELS, SSD_FEATURE, SSD_TOP, SSD_POOLED = 8, 64, 3, 8, 16, 32, 4


def build_ssd_postprocess(directory: Path) -> Path:
    """SSD-style detection post-processing built with onnx.helper: anchor box decoding, softmax
    class scores, the TOP anchors by best class score (TopK, GatherND with batch_dims=1),
    per-class NonMaxSuppression, the detections' boxes and scores (GatherND) and their features
    pooled from a feature map (RoiAlign). The number of detections is only known at run time."""
    from onnx import TensorProto, helper, numpy_helper

    anchors = []
    step = SSD_IMAGE / SSD_GRID
    for row in range(SSD_GRID):
        for col in range(SSD_GRID):
            for size in (12.0, 20.0):
                anchors.append([(col + 0.5) * step, (row + 0.5) * step, size, size])
    anchors = np.array(anchors, np.float32)  # [A, 4] as (cx, cy, w, h)
    count = len(anchors)
    constants = {
        "anchor_centers": anchors[None, :, :2].copy(), "anchor_sizes": anchors[None, :, 2:].copy(),
        "center_variance": np.array(0.1, np.float32), "size_variance": np.array(0.2, np.float32),
        "half": np.array(0.5, np.float32), "split_2_2": np.array([2, 2], np.int64),
        "top_k": np.array([SSD_TOP], np.int64), "last_axis": np.array([-1], np.int64),
        "max_per_class": np.array([6], np.int64), "iou_threshold": np.array([0.45], np.float32),
        "score_threshold": np.array([0.25], np.float32), "xyxy_order": np.array([1, 0, 3, 2], np.int64),
        "batch_box_columns": np.array([0, 2], np.int64), "class_column": np.array([1], np.int64),
        "batch_column": np.array([0], np.int64),
    }
    n = helper.make_node
    nodes = [
        # box decoding: centers and sizes from the anchors and the regression deltas
        n("Split", ["deltas", "split_2_2"], ["delta_centers", "delta_sizes"], axis=2),
        n("Mul", ["delta_centers", "center_variance"], ["scaled_centers"]),
        n("Mul", ["scaled_centers", "anchor_sizes"], ["center_offsets"]),
        n("Add", ["anchor_centers", "center_offsets"], ["centers"]),
        n("Mul", ["delta_sizes", "size_variance"], ["scaled_sizes"]),
        n("Exp", ["scaled_sizes"], ["size_factors"]),
        n("Mul", ["anchor_sizes", "size_factors"], ["sizes"]),
        n("Mul", ["sizes", "half"], ["half_sizes"]),
        n("Sub", ["centers", "half_sizes"], ["top_left_xy"]),
        n("Add", ["centers", "half_sizes"], ["bottom_right_xy"]),
        n("Concat", ["top_left_xy", "bottom_right_xy"], ["boxes_xyxy"], axis=2),  # [1, A, 4] (x1, y1, x2, y2)
        n("Gather", ["boxes_xyxy", "xyxy_order"], ["boxes_yxyx"], axis=2),  # NMS's (y1, x1, y2, x2)
        # class scores; the TOP anchors by their best class score
        n("Softmax", ["logits"], ["probabilities"], axis=-1),  # [1, A, C]
        n("ReduceMax", ["probabilities"], ["best"], axes=[2], keepdims=0),  # [1, A]
        n("TopK", ["best", "top_k"], ["top_scores", "top_anchors"], axis=1),  # [1, TOP]
        n("Unsqueeze", ["top_anchors", "last_axis"], ["top_index"]),  # [1, TOP, 1]
        n("GatherND", ["boxes_yxyx", "top_index"], ["top_boxes"], batch_dims=1),  # [1, TOP, 4]
        n("GatherND", ["probabilities", "top_index"], ["top_probabilities"], batch_dims=1),  # [1, TOP, C]
        n("Transpose", ["top_probabilities"], ["class_scores"], perm=[0, 2, 1]),  # [1, C, TOP]
        n("NonMaxSuppression", ["top_boxes", "class_scores", "max_per_class", "iou_threshold", "score_threshold"],
          ["selected"]),  # [N, 3] (batch, class, box)
        n("Gather", ["selected", "batch_box_columns"], ["batch_box"], axis=1),  # [N, 2]
        n("GatherND", ["top_boxes", "batch_box"], ["detected_yxyx"]),  # [N, 4]
        n("GatherND", ["class_scores", "selected"], ["detection_scores"]),  # [N]
        n("Gather", ["selected", "class_column"], ["class_column_values"], axis=1),
        n("Squeeze", ["class_column_values", "last_axis"], ["detection_classes"]),  # [N]
        n("Gather", ["detected_yxyx", "xyxy_order"], ["detection_boxes"], axis=1),  # [N, 4] (x1, y1, x2, y2)
        n("Gather", ["selected", "batch_column"], ["batch_column_values"], axis=1),
        n("Squeeze", ["batch_column_values", "last_axis"], ["batch_indices"]),
        n("RoiAlign", ["features", "detection_boxes", "batch_indices"], ["pooled"], mode="avg",
          output_height=SSD_POOLED, output_width=SSD_POOLED, sampling_ratio=2,
          spatial_scale=SSD_FEATURE / SSD_IMAGE,
          coordinate_transformation_mode="half_pixel"),  # [N, CHANNELS, POOLED, POOLED]
    ]
    graph = helper.make_graph(
        nodes, "ssd_postprocess",
        [helper.make_tensor_value_info("deltas", TensorProto.FLOAT, [1, count, 4]),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, count, SSD_CLASSES]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, SSD_CHANNELS, SSD_FEATURE, SSD_FEATURE])],
        [helper.make_tensor_value_info("detection_boxes", TensorProto.FLOAT, ["detections", 4]),
         helper.make_tensor_value_info("detection_scores", TensorProto.FLOAT, ["detections"]),
         helper.make_tensor_value_info("detection_classes", TensorProto.INT64, ["detections"]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT,
                                       ["detections", SSD_CHANNELS, SSD_POOLED, SSD_POOLED])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    return _zoo_models().save_helper_graph(graph, directory)

def inputs_for_ssd_postprocess(rng: np.random.Generator) -> dict:
    count = SSD_GRID * SSD_GRID * 2
    return {"deltas": rng.standard_normal((1, count, 4), dtype=np.float32) * 0.5,
            "logits": rng.standard_normal((1, count, SSD_CLASSES), dtype=np.float32) * 2.0,
            "features": rng.standard_normal((1, SSD_CHANNELS, SSD_FEATURE, SSD_FEATURE), dtype=np.float32)}


SHARED_BUILD_CODE = (sys.modules[__name__],)


def models(zoo_model) -> list:
    """This module's entries, as instances of `zoo_model` (zoo_models.ZooModel)."""
    entries = []
    for cell in ("lstm", "gru"):
        for exporter in ("torchscript", "dynamo"):
            for dynamic in (False, True):
                layers = "2-layer bidirectional nn.LSTM" if cell == "lstm" else "nn.GRU"
                entries.append(zoo_model(
                    name=f"{cell}-text-{exporter}-{'dynamic' if dynamic else 'static'}", family="recurrent",
                    exporter=exporter, dynamic=dynamic, slice=False, builder=build_text_classifier,
                    make_inputs=inputs_for_text_classifier,
                    parameters={"cell": cell, "exporter": exporter, "dynamic": dynamic},
                    description=f"text classifier: embedding, {layers}, linear head on the last step; {exporter} "
                    "exporter, " + ("dynamic batch and sequence (tested at 3x7)" if dynamic else "static 2x12"),
                ))
    entries.append(zoo_model(
        name="cond-dynamo", family="control-flow", exporter="dynamo", dynamic=True, slice=False, builder=build_cond,
        make_inputs=inputs_for_cond, parameters={},
        description="torch.cond on the sign of a hidden state's mean (an ONNX If with two subgraphs), dynamic batch",
    ))
    entries.append(zoo_model(
        name="scripted-loop-torchscript", family="control-flow", exporter="torchscript", dynamic=True, slice=False,
        builder=build_scripted_loop, make_inputs=inputs_for_scripted_loop, parameters={},
        description="torch.jit.script while-loop with a data-dependent trip count (an ONNX Loop with a condition "
        "and loop-carried values), dynamic batch",
    ))
    entries.append(zoo_model(
        name="scripted-sequence-loop-torchscript", family="control-flow", exporter="torchscript", dynamic=False,
        slice=False, builder=build_scripted_sequence_loop, make_inputs=inputs_for_scripted_sequence_loop,
        parameters={},
        description="torch.jit.script recurrence appending each step's state to a list, then torch.stack and "
        "torch.cat of the list (an ONNX Loop carrying a tensor sequence, two ConcatFromSequence), static 5x2x8",
    ))
    entries.append(zoo_model(
        name="scripted-sequence-loop-torchscript-dynamic", family="control-flow", exporter="torchscript", dynamic=True,
        slice=False, builder=build_scripted_sequence_loop, make_inputs=inputs_for_scripted_sequence_loop,
        parameters={"dynamic": True},
        description="the scripted recurrence of scripted-sequence-loop-torchscript with dynamic steps and batch "
        "(a Loop of a run-time trip count carrying the sequence as a stacked tensor), tested at 7x3x8",
    ))
    entries.append(zoo_model(
        name="ssd-postprocess-helper", family="control-flow", exporter="onnx.helper", dynamic=False, slice=False,
        builder=build_ssd_postprocess, make_inputs=inputs_for_ssd_postprocess, parameters={},
        description="SSD-style detection post-processing: anchor box decoding, softmax, TopK of 128 anchors to 32, "
        "GatherND, per-class NonMaxSuppression, RoiAlign of the detections on an 8x16x16 feature map (seeded "
        "random deltas, logits and features; a run-time number of detections)",
    ))
    return entries
