"""onnxruntime's contrib operators (domain com.microsoft, and its default-domain
LayerNormalization-1 and SimplifiedLayerNormalization-1) compiled with our importer and
conversion to each backend, run on the reference CPU runner (and on IREE for a few), and
compared with onnxruntime's CPU kernels.

Each case is one node in a model of opsets ai.onnx 17 and com.microsoft 1, on seeded inputs.
Linalg compiles the model with symbolic batch and sequence dims; TOSA and StableHLO compile it
with every dim fixed (they need static shapes). Where onnxruntime's CPU execution provider has
no kernel for a form, the reference is numpy (`_numpy_reference` says which and why).

Tolerance (fp32): rtol 1e-4, atol 1e-5. The kernels and our code sum in different orders; the
largest difference seen is 2.3e-5 on MatMulNBits' 8-bit products of magnitude 120 (rtol covers
it), everything else below 2e-6. MatMulNBits with accuracy_level 4 is compared with the exact
float product (numpy): onnxruntime quantizes A to int8 at that level, which we never do (the
attribute sets the lowest accuracy allowed), and differs from it by up to 0.1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

MS = "com.microsoft"
BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-4, 1e-5
FLOAT, INT32, INT64, UINT8 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8
ONNX_TYPES = {np.float32: FLOAT, np.float16: TensorProto.FLOAT16, np.int32: INT32, np.int64: INT64, np.uint8: UINT8}


@dataclass
class Case:
    node: onnx.NodeProto
    inputs: dict  # name -> (array, dims: ints and symbolic names)
    outputs: list  # (name, onnx element type)
    initializers: dict = field(default_factory=dict)
    reference: Callable | None = None  # numpy, where onnxruntime's CPU kernels do not apply
    static_output_dims: dict = field(default_factory=dict)  # output -> dims declared in the static model
    opset: int = 17
    rtol: float = RTOL
    atol: float = ATOL
    known_failures: dict = field(default_factory=dict)  # backend -> reason

    def model(self, static: bool) -> onnx.ModelProto:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape) if static else dims)
            for name, (array, dims) in self.inputs.items()
        ]
        outputs = [
            helper.make_tensor_value_info(name, element, self.static_output_dims.get(name) if static else None)
            for name, element in self.outputs
        ]
        initializers = [numpy_helper.from_array(array, name) for name, array in self.initializers.items()]
        graph = helper.make_graph([self.node], "microsoft_op", inputs, outputs, initializer=initializers)
        opsets = [helper.make_opsetid("", self.opset), helper.make_opsetid(MS, 1)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=10)

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def expected(self) -> list:
        if self.reference is not None:
            return self.reference()
        session = onnxruntime.InferenceSession(
            self.model(static=True).SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return session.run(None, {name: array for name, (array, _) in self.inputs.items()})


def _rng(seed: int):
    return np.random.default_rng(seed)


def _normal(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ms(op_type: str, inputs: list, outputs: list, **attributes) -> onnx.NodeProto:
    return helper.make_node(op_type, inputs, outputs, domain=MS, name=op_type.lower(), **attributes)


# -- activations ---------------------------------------------------------------------------------


def _activation(op_type, with_bias: bool, **attributes):
    def build():
        rng = _rng(1)
        inputs = {"x": (_normal(rng, 2, 3, 8) * 3, ["batch", "seq", 8])}
        if with_bias:
            inputs["bias"] = (_normal(rng, 8), [8])
        return Case(_ms(op_type, list(inputs), ["y"], **attributes), inputs, [("y", FLOAT)])

    return build


def _bias_add():
    """onnxruntime has a CUDA kernel only: numpy reference."""
    rng = _rng(2)
    x, bias, skip = _normal(rng, 2, 3, 8), _normal(rng, 8), _normal(rng, 2, 3, 8)
    inputs = {"x": (x, ["batch", "seq", 8]), "bias": (bias, [8]), "skip": (skip, ["batch", "seq", 8])}
    return Case(_ms("BiasAdd", list(inputs), ["y"]), inputs, [("y", FLOAT)], reference=lambda: [x + bias + skip])


def _fused_matmul(trans_a, trans_b, trans_batch_a, trans_batch_b, alpha):
    def build():
        rng = _rng(3)
        a, b = _normal(rng, 2, 3, 4, 5), _normal(rng, 2, 3, 5, 6)
        perm = lambda transpose, batch: (  # noqa: E731 - the inverse of FusedMatMul's permutation
            (3, 0, 1, 2) if batch and transpose else (2, 0, 1, 3) if batch else (0, 1, 3, 2) if transpose else None
        )
        raw_a = np.ascontiguousarray(a.transpose(perm(trans_a, trans_batch_a))) if perm(trans_a, trans_batch_a) else a
        raw_b = np.ascontiguousarray(b.transpose(perm(trans_b, trans_batch_b))) if perm(trans_b, trans_batch_b) else b
        symbolic = lambda array: ["d0"] + list(array.shape[1:])  # noqa: E731
        inputs = {"a": (raw_a, symbolic(raw_a)), "b": (raw_b, symbolic(raw_b))}
        node = _ms("FusedMatMul", ["a", "b"], ["y"], transA=trans_a, transB=trans_b, transBatchA=trans_batch_a,
                   transBatchB=trans_batch_b, alpha=alpha)
        return Case(node, inputs, [("y", FLOAT)])

    return build


def _fused_matmul_broadcast():
    rng = _rng(4)
    inputs = {"a": (_normal(rng, 3, 4, 5), ["batch", 4, 5]), "b": (_normal(rng, 6, 5), [6, 5])}
    return Case(_ms("FusedMatMul", ["a", "b"], ["y"], transB=1), inputs, [("y", FLOAT)])


# -- normalizations ------------------------------------------------------------------------------


def _skip_layer_norm(simplified: bool, skip_2d: bool = False):
    def build():
        rng = _rng(5)
        x = _normal(rng, 2, 3, 8)
        skip = _normal(rng, 3, 8) if skip_2d else _normal(rng, 2, 3, 8)
        inputs = {
            "x": (x, ["batch", "seq", 8]), "skip": (skip, ["seq", 8] if skip_2d else ["batch", "seq", 8]),
            "gamma": (_normal(rng, 8), [8]),
        }
        if not simplified:
            inputs["beta"] = (_normal(rng, 8), [8])
        inputs["bias"] = (_normal(rng, 8), [8])
        op_type = "SkipSimplifiedLayerNormalization" if simplified else "SkipLayerNormalization"
        outputs = ["y", "", "inv_std", "sum"] if simplified else ["y", "mean", "inv_std", "sum"]
        node = _ms(op_type, list(inputs), outputs, epsilon=1e-5)
        return Case(node, inputs, [(name, FLOAT) for name in outputs if name])

    return build


def _simplified_layer_norm():
    rng = _rng(6)
    inputs = {"x": (_normal(rng, 2, 3, 8), ["batch", "seq", 8]), "scale": (_normal(rng, 3, 8), [3, 8])}
    node = helper.make_node("SimplifiedLayerNormalization", ["x", "scale"], ["y", "inv_std"], axis=1, epsilon=1e-5)
    return Case(node, inputs, [("y", FLOAT), ("inv_std", FLOAT)])


def _layer_norm_opset16():
    rng = _rng(7)
    inputs = {
        "x": (_normal(rng, 2, 3, 8), ["batch", "seq", 8]), "scale": (_normal(rng, 8), [8]), "b": (_normal(rng, 8), [8])
    }
    node = helper.make_node("LayerNormalization", ["x", "scale", "b"], ["y", "mean", "inv_std"], epsilon=1e-5)
    return Case(node, inputs, [("y", FLOAT), ("mean", FLOAT), ("inv_std", FLOAT)], opset=16)


def _embed_layer_norm(segments: bool, mask: bool, position_ids: bool):
    def build():
        rng = _rng(8)
        batch, seq, hidden, vocab = 2, 5, 8, 20
        inputs = {"ids": (rng.integers(0, vocab, (batch, seq)).astype(np.int32), ["batch", "seq"])}
        names = ["ids"]
        if segments:
            inputs["segment_ids"] = (rng.integers(0, 2, (batch, seq)).astype(np.int32), ["batch", "seq"])
        names.append("segment_ids" if segments else "")
        inputs["words"] = (_normal(rng, vocab, hidden), [vocab, hidden])
        inputs["positions"] = (_normal(rng, 16, hidden), [16, hidden])
        names += ["words", "positions"]
        if segments:
            inputs["segments"] = (_normal(rng, 2, hidden), [2, hidden])
        names.append("segments" if segments else "")
        inputs["gamma"], inputs["beta"] = (_normal(rng, hidden), [hidden]), (_normal(rng, hidden), [hidden])
        names += ["gamma", "beta"]
        if mask:
            inputs["mask"] = (np.array([[1, 1, 1, 0, 0], [1, 1, 0, 1, 0]], np.int32), ["batch", "seq"])
        names.append("mask" if mask else "")
        if position_ids:
            inputs["position_ids"] = (rng.integers(0, 16, (batch, seq)).astype(np.int32), ["batch", "seq"])
            names.append("position_ids")
        node = _ms("EmbedLayerNormalization", names, ["y", "mask_index", "sum"], epsilon=1e-5)
        return Case(node, inputs, [("y", FLOAT), ("mask_index", INT32), ("sum", FLOAT)])

    return build


# -- Attention and MultiHeadAttention --------------------------------------------------------------

ATTENTION_BATCH, ATTENTION_SEQ, ATTENTION_HEADS, ATTENTION_HEAD = 2, 4, 2, 3


def _attention(mask=None, past: bool = False, attention_bias: bool = False, half: bool = False, **attributes):
    def build():
        case = _attention_float(mask, past, attention_bias, **attributes)
        if half:  # the same in float16, at float16's precision
            case.inputs = {name: (_as_half(array), dims) for name, (array, dims) in case.inputs.items()}
            case.initializers = {name: _as_half(array) for name, array in case.initializers.items()}
            case.outputs = [(name, TensorProto.FLOAT16) for name, _ in case.outputs]
            case.rtol, case.atol = 1e-3, 1e-3  # float32 inside, one rounding (onnxruntime: the same)
        return case

    return build


def _as_half(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float16) if array.dtype == np.float32 else array


def _attention_float(mask, past: bool, attention_bias: bool, **attributes):
    rng = _rng(9)
    b, s, h, d = ATTENTION_BATCH, ATTENTION_SEQ, ATTENTION_HEADS, ATTENTION_HEAD
    inputs = {"x": (_normal(rng, b, s, 6), ["batch", "seq", 6])}
    names = ["x", "weights", "bias"]
    if mask is not None:
        value = np.array(mask, np.int32)
        inputs["mask"] = (value, {1: ["mask_length"], 2: ["batch", "total"], 3: ["batch", "seq", "total"]}[value.ndim])
    names.append("mask" if mask is not None else "")
    if past:
        inputs["past"] = (_normal(rng, 2, b, h, 3, d), [2, "batch", h, "past", d])
    names.append("past" if past else "")
    if attention_bias:
        inputs["attention_bias"] = (_normal(rng, 1, h, s, s), [1, h, "seq", "seq"])
        names.append("attention_bias")
    while names[-1] == "":
        names.pop()
    outputs = ["y", "present"] if past else ["y"]
    node = _ms("Attention", names, outputs, num_heads=h, **attributes)
    initializers = {"weights": _normal(rng, 6, 3 * h * d), "bias": _normal(rng, 3 * h * d)}
    return Case(node, inputs, [(name, FLOAT) for name in outputs], initializers)


def _mha_reference(q, k, v, heads, bias=None, unidirectional=False):
    """MultiHeadAttention for the packed forms, which onnxruntime's CPU kernel does not implement."""
    width = q.shape[-1]
    if bias is not None:
        q, k, v = q + bias[:width], k + bias[width : 2 * width], v + bias[2 * width :]
    split = lambda t: t.reshape(t.shape[0], t.shape[1], heads, -1).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if unidirectional:
        scores = np.where(np.triu(np.ones(scores.shape[-2:], bool), 1), np.finfo(np.float32).min, scores)
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    output = (scores / scores.sum(-1, keepdims=True)) @ v
    return [output.transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[2], -1).astype(np.float32)]


def _mha(form: str, mask=None, unidirectional: int = 0, with_bias: bool = False, past: bool = False, **attributes):
    def build():
        rng = _rng(10)
        b, s, kv, h, d = ATTENTION_BATCH, ATTENTION_SEQ, 5, ATTENTION_HEADS, ATTENTION_HEAD
        w = h * d
        q, k, v = _normal(rng, b, s, w), _normal(rng, b, kv, w), _normal(rng, b, kv, w)
        bias = _normal(rng, 3 * w)
        inputs, names, reference = {}, [], None
        if form == "separate":
            inputs = {"q": (q, ["batch", "seq", w]), "k": (k, ["batch", "kv", w]), "v": (v, ["batch", "kv", w])}
            names = ["q", "k", "v"]
        elif form == "bnsh":
            heads_first = lambda t: np.ascontiguousarray(t.reshape(b, kv, h, d).transpose(0, 2, 1, 3))  # noqa: E731
            inputs = {"q": (q, ["batch", "seq", w]), "k": (heads_first(k), ["batch", h, "kv", d]),
                      "v": (heads_first(v), ["batch", h, "kv", d])}
            names = ["q", "k", "v"]
        elif form == "packed_qkv":
            k, v = _normal(rng, b, s, w), _normal(rng, b, s, w)
            packed = np.stack([t.reshape(b, s, h, d) for t in (q, k, v)], 3)
            inputs = {"q": (packed, ["batch", "seq", h, 3, d])}
            names = ["q", "", ""]
            reference = lambda: _mha_reference(q, k, v, h, bias if with_bias else None, bool(unidirectional))  # noqa: E731
        elif form == "packed_kv":
            packed = np.stack([t.reshape(b, kv, h, d) for t in (k, v)], 3)
            inputs = {"q": (q, ["batch", "seq", w]), "k": (packed, ["batch", "kv", h, 2, d])}
            names = ["q", "k", ""]
            reference = lambda: _mha_reference(q, k, v, h, bias if with_bias else None)  # noqa: E731
        if with_bias:
            inputs["bias"] = (bias, [3 * w])
        names.append("bias" if with_bias else "")
        if mask is not None:
            value = np.array(mask, np.int32)
            inputs["mask"] = (value, {1: ["batch"], 2: ["batch", "total"], 3: ["batch", "seq", "total"]}[value.ndim])
        names.append("mask" if mask is not None else "")
        names.append("")  # attention_bias
        outputs = ["y"]
        if past:
            inputs["past_key"] = (_normal(rng, b, h, 3, d), ["batch", h, "past", d])
            inputs["past_value"] = (_normal(rng, b, h, 3, d), ["batch", h, "past", d])
            names += ["past_key", "past_value"]
            outputs += ["present_key", "present_value"]
        while names[-1] == "":
            names.pop()
        node = _ms("MultiHeadAttention", names, outputs, num_heads=h, unidirectional=unidirectional, **attributes)
        return Case(node, inputs, [(name, FLOAT) for name in outputs], reference=reference)

    return build


# -- GroupQueryAttention and RotaryEmbedding -------------------------------------------------------

GQA_HEADS, GQA_KV_HEADS, GQA_HEAD = 4, 2, 16  # onnxruntime's rotary kernel needs head % 16 == 0


def _gqa(batch, seq, past, total=None, seqlens=None, packed=False, rotary=False, interleaved=0, position_ids=None,
         attention_bias=False, head_sink=False, **attributes):
    def build():
        rng = _rng(11)
        h, kvh, d = GQA_HEADS, GQA_KV_HEADS, GQA_HEAD
        total_length = (past or 0) + seq if total is None else total
        lengths = np.full(batch, total_length - 1, np.int32) if seqlens is None else np.array(seqlens, np.int32)
        q, k, v = _normal(rng, batch, seq, h * d), _normal(rng, batch, seq, kvh * d), _normal(rng, batch, seq, kvh * d)
        if packed:
            inputs = {"q": (np.concatenate([q, k, v], -1), ["batch", "seq", (h + 2 * kvh) * d])}
            names = ["q", "", ""]
        else:
            inputs = {"q": (q, ["batch", "seq", h * d]), "k": (k, ["batch", "seq", kvh * d]),
                      "v": (v, ["batch", "seq", kvh * d])}
            names = ["q", "k", "v"]
        if past is not None:
            inputs["past_key"] = (_normal(rng, batch, kvh, past, d), ["batch", kvh, "past", d])
            inputs["past_value"] = (_normal(rng, batch, kvh, past, d), ["batch", kvh, "past", d])
            names += ["past_key", "past_value"]
        else:
            names += ["", ""]
        inputs["seqlens_k"] = (lengths, ["batch"])
        inputs["total_sequence_length"] = (np.array(total_length, np.int32), [])
        names += ["seqlens_k", "total_sequence_length"]
        if rotary:
            angles = _normal(rng, 32, d // 2)
            inputs["cos"], inputs["sin"] = (np.cos(angles), [32, d // 2]), (np.sin(angles), [32, d // 2])
            names += ["cos", "sin"]
        else:
            names += ["", ""]
        if position_ids is not None:
            inputs["position_ids"] = (np.array(position_ids, np.int64), ["batch", "seq"])
        names.append("position_ids" if position_ids is not None else "")
        if attention_bias:
            inputs["attention_bias"] = (_normal(rng, 1, 1, seq, total_length), [1, 1, "seq", "total"])
        names.append("attention_bias" if attention_bias else "")
        if head_sink:
            inputs["head_sink"] = (_normal(rng, h), [h])
            names.append("head_sink")
        while names[-1] == "":
            names.pop()
        outputs = ["y", "present_key", "present_value"]
        node = _ms("GroupQueryAttention", names, outputs, num_heads=h, kv_num_heads=kvh, do_rotary=int(rotary),
                   rotary_interleaved=interleaved, **attributes)
        length = max(total_length, past or 0)
        present = [batch, kvh, length, d]
        return Case(node, inputs, [(name, FLOAT) for name in outputs],
                    static_output_dims={"present_key": present, "present_value": present})

    return build


def _rotary_embedding(rank: int, interleaved: int, offset: bool = False, partial: bool = False):
    def build():
        rng = _rng(12)
        batch, seq, heads, head = 2, 3, 2, 16
        x = _normal(rng, batch, heads, seq, head)
        if rank == 3:
            x = np.ascontiguousarray(x.transpose(0, 2, 1, 3).reshape(batch, seq, heads * head))
        dims = ["batch", "seq", heads * head] if rank == 3 else ["batch", heads, "seq", head]
        positions = (np.array([2], np.int64), [1]) if offset else (
            rng.integers(0, 16, (batch, seq)).astype(np.int64), ["batch", "seq"])
        width = 4 if partial else head // 2
        angles = _normal(rng, 16, width)
        inputs = {"x": (x, dims), "position_ids": positions, "cos": (np.cos(angles), [16, width]),
                  "sin": (np.sin(angles), [16, width])}
        attributes = {"interleaved": interleaved}
        if partial:
            attributes.update(num_heads=heads, rotary_embedding_dim=2 * width)
        return Case(_ms("RotaryEmbedding", list(inputs), ["y"], **attributes), inputs, [("y", FLOAT)])

    return build


# -- MatMulNBits and GatherBlockQuantized -----------------------------------------------------------


def _pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Pack `bits`-bit values along the last dim into uint8, low bits first."""
    per_byte = 8 // bits
    padding = (-values.shape[-1]) % per_byte
    values = np.concatenate([values, np.zeros(values.shape[:-1] + (padding,), values.dtype)], -1).astype(np.uint8)
    values = values.reshape(*values.shape[:-1], -1, per_byte)
    packed = np.zeros(values.shape[:-1], np.uint8)
    for i in range(per_byte):
        packed |= (values[..., i] << (i * bits)).astype(np.uint8)
    return packed


def _matmul_n_bits(k, n, bits, block, zero_points, bias=False, a_dims=None, accuracy_level=0):
    def build():
        rng = _rng(13)
        blocks = -(-k // block)
        quantized = rng.integers(0, 1 << bits, (n, blocks, block))
        scales = (rng.random((n, blocks)).astype(np.float32) + 0.5) * 0.1
        initializers = {"b": _pack(quantized, bits), "scales": scales}
        names = ["a", "b", "scales"]
        zero = np.full((n, blocks), 1 << (bits - 1), np.float32)
        if zero_points is not None:
            values = rng.integers(0, 1 << bits, (n, blocks))
            zero = values.astype(np.float32)
            initializers["zero_points"] = _pack(values, bits) if zero_points == "packed" else zero
            names.append("zero_points")
        bias_value = _normal(rng, n)
        if bias:
            names += [""] * (5 - len(names)) + ["bias"]
            initializers["bias"] = bias_value
        dims = a_dims or ["m", k]
        a = _normal(rng, *[3 if isinstance(size, str) else size for size in dims])
        node = _ms("MatMulNBits", names, ["y"], K=k, N=n, bits=bits, block_size=block, accuracy_level=accuracy_level)

        def exact():  # the float product with the dequantized weight
            weight = (quantized - zero[..., None]) * scales[..., None]
            return [(a @ weight.reshape(n, -1)[:, :k].T + (bias_value if bias else 0)).astype(np.float32)]

        return Case(node, {"a": (a, dims)}, [("y", FLOAT)], initializers, reference=exact if accuracy_level else None)

    return build


def _gather_block_quantized(width, bits, block, zero_points, indices):
    def build():
        rng = _rng(14)
        rows = 10
        blocks = -(-width // block)
        initializers = {"data": _pack(rng.integers(0, 1 << bits, (rows, width)), bits),
                        "scales": (rng.random((rows, blocks)).astype(np.float32) + 0.5)}
        names = ["data", "indices", "scales"]
        if zero_points:
            initializers["zero_points"] = _pack(rng.integers(0, 1 << bits, (rows, blocks)), bits)
            names.append("zero_points")
        node = _ms("GatherBlockQuantized", names, ["y"], bits=bits, block_size=block, gather_axis=0, quantize_axis=1)
        return Case(node, {"indices": (indices, ["batch", "seq"])}, [("y", FLOAT)], initializers)

    return build


INDICES = np.array([[0, 3, -1], [5, 2, 9]], np.int64)

CASES = {
    "Gelu": _activation("Gelu", False),
    "BiasGelu": _activation("BiasGelu", True),
    "FastGelu": _activation("FastGelu", False),
    "FastGelu-bias": _activation("FastGelu", True),
    "QuickGelu": _activation("QuickGelu", False, alpha=1.5),
    "BiasAdd-numpy": _bias_add,
    "FusedMatMul-transA-alpha": _fused_matmul(1, 0, 0, 0, 0.5),
    "FusedMatMul-transBatchA": _fused_matmul(0, 0, 1, 0, 1.0),
    "FusedMatMul-transBatchB-transB": _fused_matmul(0, 1, 0, 1, 2.0),
    "FusedMatMul-broadcast": _fused_matmul_broadcast,
    "SkipLayerNormalization": _skip_layer_norm(False),
    "SkipLayerNormalization-skip2d": _skip_layer_norm(False, skip_2d=True),
    "SkipSimplifiedLayerNormalization": _skip_layer_norm(True),
    "SimplifiedLayerNormalization-axis1": _simplified_layer_norm,
    "LayerNormalization-opset16": _layer_norm_opset16,
    "EmbedLayerNormalization": _embed_layer_norm(True, True, False),
    "EmbedLayerNormalization-nomask-nosegment": _embed_layer_norm(False, False, False),
    "EmbedLayerNormalization-position_ids": _embed_layer_norm(True, True, True),
    "Attention": _attention(),
    "Attention-mask2d-unidirectional": _attention([[1, 1, 1, 0], [1, 0, 1, 1]], unidirectional=1, mask_filter_value=-5.0),
    "Attention-mask1d": _attention([3, 2]),
    "Attention-mask1d-ends_and_starts": _attention([3, 4, 1, 0]),
    "Attention-mask3d": _attention((_rng(20).random((2, 4, 4)) > 0.3).astype(np.int32)),
    "Attention-past-mask-unidirectional": _attention([[1, 1, 1, 0, 1, 1, 1], [1, 0, 1, 1, 1, 1, 0]], past=True,
                                                     unidirectional=1),
    "Attention-scale-bias": _attention(attention_bias=True, scale=0.3),
    # onnxruntime.transformers' optimizer writes float32's lowest value as mask_filter_value, which is
    # -inf in float16 (a model converted to float16 by its convert_float_to_float16).
    "Attention-float16-mask2d-lowest_filter": _attention([[1, 1, 1, 0], [1, 1, 0, 0]], half=True,
                                                        mask_filter_value=float(np.finfo(np.float32).min)),
    "MultiHeadAttention-cross-bias": _mha("separate", with_bias=True),
    "MultiHeadAttention-mask2d": _mha("separate", mask=[[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]]),
    "MultiHeadAttention-mask1d": _mha("separate", mask=[3, 4]),
    "MultiHeadAttention-past-unidirectional": _mha("separate", with_bias=True, past=True, unidirectional=1),
    "MultiHeadAttention-bnsh": _mha("bnsh", with_bias=True),
    "MultiHeadAttention-packed_qkv-numpy": _mha("packed_qkv", with_bias=True, unidirectional=1),
    "MultiHeadAttention-packed_kv-numpy": _mha("packed_kv"),
    "GroupQueryAttention-prompt": _gqa(2, 5, None),
    "GroupQueryAttention-prompt-empty_past": _gqa(2, 5, 0),
    "GroupQueryAttention-decode": _gqa(2, 1, 6),
    "GroupQueryAttention-subsequent_prompt": _gqa(1, 3, 4),
    "GroupQueryAttention-packed": _gqa(2, 5, 0, packed=True),
    "GroupQueryAttention-rotary-prompt": _gqa(2, 5, 0, rotary=True),
    "GroupQueryAttention-rotary-interleaved-decode": _gqa(2, 1, 6, rotary=True, interleaved=1),
    "GroupQueryAttention-rotary-padded_batch": _gqa(2, 1, 6, total=7, seqlens=[6, 3], rotary=True),
    "GroupQueryAttention-rotary-position_ids": _gqa(2, 1, 6, rotary=True, position_ids=[[3], [9]]),
    "GroupQueryAttention-shared_buffer": _gqa(2, 1, 10, total=7, seqlens=[6, 4]),
    "GroupQueryAttention-local_window": _gqa(1, 5, 3, local_window_size=2),
    "GroupQueryAttention-softcap-scale": _gqa(1, 5, 3, softcap=1.5, scale=0.3),
    "GroupQueryAttention-not_causal": _gqa(2, 5, 0, causal=0),
    "GroupQueryAttention-attention_bias": _gqa(1, 3, 4, attention_bias=True),
    "GroupQueryAttention-head_sink": _gqa(1, 3, 4, head_sink=True),
    "GroupQueryAttention-smooth_softmax": _gqa(1, 3, 4, smooth_softmax=1),
    "RotaryEmbedding-4d": _rotary_embedding(4, 0),
    "RotaryEmbedding-3d-interleaved": _rotary_embedding(3, 1),
    "RotaryEmbedding-3d-offset": _rotary_embedding(3, 0, offset=True),
    "RotaryEmbedding-4d-partial-interleaved": _rotary_embedding(4, 1, partial=True),
    "MatMulNBits-4bit": _matmul_n_bits(64, 8, 4, 32, None),
    "MatMulNBits-4bit-packed_zero_points-3d": _matmul_n_bits(96, 8, 4, 32, "packed", a_dims=["batch", "seq", 96]),
    "MatMulNBits-4bit-float_zero_points-bias-ragged_k": _matmul_n_bits(40, 8, 4, 16, "float", bias=True),
    "MatMulNBits-8bit": _matmul_n_bits(64, 8, 8, 32, "packed"),
    "MatMulNBits-2bit": _matmul_n_bits(64, 8, 2, 32, "packed"),
    "MatMulNBits-accuracy_level4-numpy": _matmul_n_bits(64, 8, 4, 32, "packed", accuracy_level=4),
    "GatherBlockQuantized-4bit": _gather_block_quantized(32, 4, 16, False, INDICES),
    "GatherBlockQuantized-4bit-zero_points-int32": _gather_block_quantized(48, 4, 32, True, INDICES.astype(np.int32)),
    "GatherBlockQuantized-8bit": _gather_block_quantized(32, 8, 16, True, INDICES),
    "GatherBlockQuantized-out_of_range": _gather_block_quantized(32, 2, 16, True, np.array([[12, -11, 3]], np.int64)),
}


def _params(names, backends):
    for name in names:
        for backend in backends:
            known = CASES[name]().known_failures.get(backend)
            marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
            yield pytest.param(name, backend, marks=marks, id=f"{name}-{backend}")


def _assert_matches(outputs, expected, case: Case):
    assert len(outputs) == len(expected)
    for index, (got, want) in enumerate(zip(outputs, expected)):
        assert got.shape == want.shape, (index, got.shape, want.shape)
        assert got.dtype == want.dtype, (index, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol, err_msg=f"output {index}")


@pytest.mark.parametrize("name, backend", list(_params(CASES, BACKENDS)))
def test_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    outputs = runtime.run(module, case.arrays(), input_dialect=backend)
    _assert_matches(outputs, case.expected(), case)


IREE_CASES = [
    "FastGelu-bias", "SkipLayerNormalization", "EmbedLayerNormalization", "Attention-past-mask-unidirectional",
    "Attention-float16-mask2d-lowest_filter",
    "MultiHeadAttention-mask2d", "GroupQueryAttention-rotary-padded_batch", "RotaryEmbedding-3d-interleaved",
    "MatMulNBits-4bit-packed_zero_points-3d", "GatherBlockQuantized-4bit-zero_points-int32",
]


@pytest.mark.parametrize("name, backend", list(_params(IREE_CASES, BACKENDS)))
def test_iree_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    outputs = compile_with_iree(module, backend)(*case.arrays())
    _assert_matches(outputs, case.expected(), case)


def test_one_dynamic_compile_runs_at_other_sizes():
    """GroupQueryAttention compiled once with symbolic batch, sequence and past runs a prompt,
    decoding steps and a right-padded batch."""
    module = onnx_torch_mlir.compile(_gqa(2, 1, 6)().model(static=False), "linalg-on-tensors")
    for case in (_gqa(1, 1, 3)(), _gqa(3, 1, 8)(), _gqa(2, 6, 0)(), _gqa(2, 1, 6, total=7, seqlens=[3, 6])()):
        _assert_matches(runtime.run(module, case.arrays()), case.expected(), case)


def test_a_one_d_mask_of_another_length_fails_at_run_time():
    """A dynamic 1-D mask_index is [batch] or [2 * batch] (told apart at run time); the
    [3 * batch + 2] form is not supported and fails the run with the reason."""
    case = _attention([3, 2])()
    module = onnx_torch_mlir.compile(case.model(static=False), "linalg-on-tensors")
    arrays = case.arrays()
    arrays[1] = np.array([3, 2, 0, 1, 4, 4, 4, 4], np.int32)
    with pytest.raises(Exception, match=r"Attention: a 1-D mask must hold batch or 2 \* batch positions"):
        runtime.run(module, arrays)


def test_registrations_are_onnxruntime_since_versions():
    """Our registrations of onnxruntime's contrib ops name the since_version of its schemas (ONNX has none)."""
    from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema

    from onnx_torch_mlir.conversion.onnx_to_torch import all_registrations

    schemas = {(s.domain, s.name, s.since_version) for s in get_all_operator_schema()}
    ours = [r for r in all_registrations() if r.module.rsplit(".", 1)[-1].startswith("microsoft")
            or ".microsoft_" in r.module]
    assert {r.op_type for r in ours} >= {
        "Attention", "BiasAdd", "BiasGelu", "EmbedLayerNormalization", "FastGelu", "FusedMatMul",
        "GatherBlockQuantized", "Gelu", "GroupQueryAttention", "LayerNormalization", "MatMulNBits",
        "MultiHeadAttention", "QuickGelu", "RotaryEmbedding", "SimplifiedLayerNormalization",
        "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
    }
    for registration in ours:
        assert (registration.domain, registration.op_type, registration.since_version) in schemas, registration
