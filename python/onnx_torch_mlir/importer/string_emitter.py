"""Writes the ONNX nodes that the string rewrite (string_bytes.py) puts in place of a string op.

The nodes are plain default-domain ONNX, so onnxruntime runs the rewritten graph as well as the
original (test_string_bytes.py compares the two), and every backend compiles them with the
conversions it already has. The few ops whose form changed across opsets (Unsqueeze's and
ReduceSum's axes became inputs at opset 13) are written for the model's opset.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
UINT8 = TensorProto.UINT8
BOOL = TensorProto.BOOL


class NodeEmitter:
    """Appends nodes for one rewritten node; every name it makes starts with `prefix`."""

    def __init__(self, opset: int, prefix: str):
        self.opset = opset
        self.prefix = prefix
        self.nodes: list = []
        self._count = 0

    def fresh(self, hint: str) -> str:
        self._count += 1
        return f"{self.prefix}/{hint}_{self._count}"

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, output: str | None = None,
           **attributes) -> str:
        output = output or self.fresh(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=self.fresh(op_type), **attributes))
        return output

    def constant(self, values: np.ndarray, hint: str) -> str:
        name = self.fresh(hint)
        tensor = numpy_helper.from_array(np.ascontiguousarray(values), name)
        self.nodes.append(helper.make_node("Constant", [], [name], name=self.fresh("Constant"), value=tensor))
        return name

    def axes(self, axes: list[int], hint: str = "axes") -> str:
        return self.constant(np.asarray(axes, np.int64), hint)

    def unsqueeze(self, x: str, axis: int, hint: str = "unsqueezed") -> str:
        if self.opset >= 13:
            return self.op("Unsqueeze", [x, self.axes([axis])], hint)
        return self.op("Unsqueeze", [x], hint, axes=[axis])

    def reduce_sum(self, x: str, axis: int, hint: str = "sum") -> str:
        """The sum over `axis`, which is dropped."""
        if self.opset >= 13:
            return self.op("ReduceSum", [x, self.axes([axis])], hint, keepdims=0)
        return self.op("ReduceSum", [x], hint, axes=[axis], keepdims=0)

    def cast(self, x: str, to: int, hint: str = "cast") -> str:
        return self.op("Cast", [x], hint, to=to)

    def as_float(self, x: str, hint: str = "as_float") -> str:
        return self.cast(x, FLOAT, hint)

    def table(self, x_int64: str, values: np.ndarray, hint: str) -> str:
        """`values[x]` elementwise (a Gather from a constant table indexed by bytes)."""
        return self.op("Gather", [self.constant(values, hint + "_table"), x_int64], hint, axis=0)

    def product(self, x: str, matrix: np.ndarray, hint: str) -> str:
        """x @ matrix over x's last axis (float, exact for the small integers these tables hold)."""
        return self.op("MatMul", [x, self.constant(matrix.astype(np.float32), hint + "_matrix")], hint)


def running_sum_matrix(size: int) -> np.ndarray:
    """M with (v @ M)[i] = v[0] + ... + v[i]."""
    return np.triu(np.ones((size, size), np.float32))


def previous_matrix(size: int) -> np.ndarray:
    """M with (v @ M)[i] = v[i - 1], and 0 at i = 0."""
    return np.eye(size, k=1, dtype=np.float32)
