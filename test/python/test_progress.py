"""The progress line of long compiles (onnx_torch_mlir/progress.py)."""

import io

from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _model(nodes: int):
    chain = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"]) for i in range(nodes)]
    graph = helper.make_graph(chain, "g", [helper.make_tensor_value_info("v0", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info(f"v{nodes}", TensorProto.FLOAT, [2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_terminal_sees_each_stage_and_the_conversion_percentage_then_a_clean_line(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    terminal = _Terminal()
    with progress.shown(terminal):
        onnx_torch_mlir.compile(_model(128), output_type="linalg-on-tensors")
    shown = terminal.getvalue()
    assert "onnx-torch-mlir: conversion 100% (128/128 nodes)" in shown
    assert "onnx-torch-mlir: backend pipeline" in shown
    last = shown.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""  # erased when done


def test_nothing_is_shown_when_not_a_terminal_or_when_quiet(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    pipe = io.StringIO()
    with progress.shown(pipe):
        onnx_torch_mlir.compile(_model(4), output_type="torch")
    terminal = _Terminal()
    with progress.shown(terminal, enabled=False):
        onnx_torch_mlir.compile(_model(4), output_type="torch")
    assert pipe.getvalue() == "" and terminal.getvalue() == ""


def test_short_compiles_show_nothing():
    terminal = _Terminal()
    with progress.shown(terminal):
        onnx_torch_mlir.compile(_model(4), output_type="torch")
    assert terminal.getvalue() == ""
