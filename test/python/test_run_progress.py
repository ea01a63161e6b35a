"""run and verify on a terminal: one progress line (compile, run, compare) and the IREE hint."""

import io

from onnx import TensorProto, helper

from onnx_torch_mlir import progress
from onnx_torch_mlir.tools import run_command


def _small_model():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_names_the_command_stage(monkeypatch):
    stream = _Terminal()
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    with progress.shown(stream):
        progress.command_stage_started("compile")
        progress.stage_started("conversion")
        progress.advance(64, 128)
        progress.command_stage_started("compare")
    written = stream.getvalue()
    assert "onnx-torch-mlir: compile: conversion 50% (64/128 nodes)" in written
    assert "onnx-torch-mlir: compare, " in written
    assert written.endswith("\r")  # erased at the end


def test_iree_hint_only_for_large_models_when_iree_is_installed(monkeypatch, capsys):
    import argparse
    import importlib.util

    model = _small_model()
    args = argparse.Namespace(consumer="reference", quiet=False)
    monkeypatch.setattr(progress, "stderr_is_terminal", True)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    run_command._hint_iree(args, model)
    assert capsys.readouterr().err == ""  # a few bytes: below the threshold
    monkeypatch.setattr(run_command, "IREE_HINT_MEGABYTES", 0)
    run_command._hint_iree(args, model)
    assert "hint: --consumer iree is faster on a model this size" in capsys.readouterr().err
    run_command._hint_iree(argparse.Namespace(consumer="iree", quiet=False), model)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    run_command._hint_iree(args, model)
    assert capsys.readouterr().err == ""  # IREE chosen, or not installed: no hint
