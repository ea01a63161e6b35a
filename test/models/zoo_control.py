"""Recurrent and control-flow models in the model zoo: what reaches the ONNX Loop, If, LSTM and GRU ops.

- lstm-text-*: a text classifier (embedding, a 2-layer bidirectional nn.LSTM, a linear head on the
  last step), TorchScript (opset 17) and dynamo exports, static and with dynamic batch and sequence;
- gru-text-*: the same with a 1-layer nn.GRU;
- cond-dynamo: a block that takes one of two branches by the sign of its input's mean
  (`torch.cond`, which the dynamo exporter writes as an ONNX `If`), dynamic batch;
- scripted-loop-torchscript: a scripted module whose loop runs a data-dependent number of times
  (`torch.jit.script`, which the TorchScript exporter writes as an ONNX `Loop`).

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
WAITING_ON = "issue 10 (control flow, recurrent)"


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
                    parameters={"cell": cell, "exporter": exporter, "dynamic": dynamic}, waiting_on=WAITING_ON,
                    description=f"text classifier: embedding, {layers}, linear head on the last step; {exporter} "
                    "exporter, " + ("dynamic batch and sequence (tested at 3x7)" if dynamic else "static 2x12"),
                ))
    entries.append(zoo_model(
        name="cond-dynamo", family="control-flow", exporter="dynamo", dynamic=True, slice=False, builder=build_cond,
        make_inputs=inputs_for_cond, parameters={}, waiting_on=WAITING_ON,
        description="torch.cond on the sign of a hidden state's mean (an ONNX If with two subgraphs), dynamic batch",
    ))
    entries.append(zoo_model(
        name="scripted-loop-torchscript", family="control-flow", exporter="torchscript", dynamic=True, slice=False,
        builder=build_scripted_loop, make_inputs=inputs_for_scripted_loop, parameters={}, waiting_on=WAITING_ON,
        description="torch.jit.script while-loop with a data-dependent trip count (an ONNX Loop with a condition "
        "and loop-carried values), dynamic batch",
    ))
    return entries
