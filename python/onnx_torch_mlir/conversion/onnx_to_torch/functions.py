"""Function ops: ONNX ops defined by a function body, expanded when no pattern exists."""

from __future__ import annotations

from .node import OnnxNode, UnsupportedNode


def has_function_body(node: OnnxNode) -> bool:
    return False


def expand_function(node: OnnxNode):
    raise UnsupportedNode(f"{node.op_type} has no conversion to torch yet")
