"""The importer types the results of onnxruntime's contrib operators (importer/contrib_types.py).

Each case is one node in a tiny model with named (dynamic) dims. The import must
give its results the expected types; where onnxruntime's CPU provider has a
kernel for the op, the inferred dims, with the named dims bound to the sizes of
seeded inputs, must be the shapes onnxruntime produces (an unknown dim matches
any size), and the element types its dtypes.
"""

from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.importer.shape_inference import infer_types

F32, F16, I8, U8, I32, I64 = (
    TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64,
)
# The sizes of the named dims in the onnxruntime runs.
SIZES = {"batch": 2, "sequence": 3, "past": 4, "kv_sequence": 5, "height": 9, "width": 7, "rows": 6}


@dataclass
class Input:
    name: str
    element_type: int
    dims: list
    value: np.ndarray | onnx.TensorProto | None = None  # fed (or stored, when constant) instead of seeded random data
    constant: bool = False  # an initializer rather than a graph input


@dataclass
class Case:
    op_type: str
    inputs: list
    outputs: list  # names; "" for an absent optional output
    expected: list  # the torch-ONNX type of each named output
    attributes: dict = field(default_factory=dict)
    domain: str = "com.microsoft"
    opset: int = 17
    no_cpu_kernel: str = ""  # why the result is checked against the spec only

    def model(self) -> onnx.ModelProto:
        node = helper.make_node(self.op_type, [i.name for i in self.inputs], self.outputs, name="node", domain=self.domain, **self.attributes)
        graph = helper.make_graph(
            [node],
            "contrib",
            [helper.make_tensor_value_info(i.name, i.element_type, i.dims) for i in self.inputs if not i.constant and i.name],
            [onnx.ValueInfoProto(name=name) for name in self.outputs if name],
            [_initializer(i) for i in self.inputs if i.constant],
        )
        opsets = [helper.make_opsetid("", self.opset), helper.make_opsetid("com.microsoft", 1)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=10, producer_name="tests")


def _initializer(constant_input: Input) -> onnx.TensorProto:
    if isinstance(constant_input.value, onnx.TensorProto):
        return constant_input.value
    return numpy_helper.from_array(constant_input.value, constant_input.name)


def seeded_values(element_type: int, dims: list, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape = [SIZES[d] if isinstance(d, str) else d for d in dims]
    dtype = helper.tensor_dtype_to_np_dtype(element_type)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 4, size=shape).astype(dtype)


def constant(name: str, value) -> Input:
    value = np.asarray(value)
    return Input(name, helper.np_dtype_to_tensor_dtype(value.dtype), list(value.shape), value, constant=True)


def weights(name: str, element_type: int, dims: list, seed: int = 1) -> Input:
    return constant(name, seeded_values(element_type, dims, seed))


def int4_weights(name: str, dims: list) -> Input:
    values = seeded_values(TensorProto.INT8, dims) - 2
    return Input(name, TensorProto.INT4, dims, helper.make_tensor(name, TensorProto.INT4, dims, values.reshape(-1)), constant=True)


def scalar(name: str, value, dtype=np.float32) -> Input:
    return constant(name, np.array(value, dtype=dtype))


def vtensor(dims: str, element: str = "f32") -> str:
    return f"!torch.vtensor<[{dims}],{element}>"


def quantized_pair(prefix: str, dtype=np.uint8) -> list:
    return [scalar(f"{prefix}_scale", 0.05), scalar(f"{prefix}_zero_point", 3, dtype)]


ABSENT = Input("", F32, [])  # an optional input left out
X = Input("x", F32, ["batch", "sequence", 16])
CASES = {
    # Attention: merged QKV weights [16, 48], 2 heads of 8.
    "attention": Case(
        "Attention", [X, weights("w", F32, [16, 48]), weights("b", F32, [48])], ["y"], [vtensor("?,?,16")], {"num_heads": 2}
    ),
    "attention_present_without_past": Case(
        "Attention", [X, weights("w", F32, [16, 48]), weights("b", F32, [48])], ["y", "present"],
        [vtensor("?,?,16"), vtensor("2,?,2,?,8")], {"num_heads": 2, "unidirectional": 1},
    ),
    "attention_past_dynamic": Case(
        "Attention",
        [X, weights("w", F32, [16, 48]), weights("b", F32, [48]), ABSENT, Input("past", F32, [2, "batch", 2, "past", 8])],
        ["y", "present"], [vtensor("?,?,16"), vtensor("2,?,2,?,8")], {"num_heads": 2, "unidirectional": 1},
    ),
    "attention_past_static": Case(
        "Attention",
        [Input("x", F32, [2, 3, 16]), weights("w", F32, [16, 48]), weights("b", F32, [48]), ABSENT,
         Input("past", F32, [2, 2, 2, 4, 8])],
        ["y", "present"], [vtensor("2,3,16"), vtensor("2,2,2,7,8")], {"num_heads": 2, "unidirectional": 1},
    ),
    "attention_qkv_hidden_sizes": Case(
        "Attention", [X, weights("w", F32, [16, 40]), weights("b", F32, [40])], ["y"], [vtensor("?,?,8")],
        {"num_heads": 2, "qkv_hidden_sizes": [16, 16, 8]},
    ),
    "attention_without_bias": Case(
        "Attention", [X, weights("w", F32, [16, 48])], ["y"], [vtensor("?,?,16")], {"num_heads": 2},
        no_cpu_kernel="the CPU Attention kernel needs the bias (onnxruntime 1.31 crashes without it)",
    ),
    "attention_shared_buffer": Case(
        "Attention",
        [X, weights("w", F32, [16, 48]), weights("b", F32, [48]), Input("mask", I32, ["batch", 12]),
         Input("past", F32, [2, "batch", 2, 12, 8]), ABSENT, scalar("past_length", 4, np.int32)],
        ["y", "present"], [vtensor("?,?,16"), vtensor("2,?,2,12,8")],
        {"num_heads": 2, "unidirectional": 1, "past_present_share_buffer": 1},
        no_cpu_kernel="the CPU Attention kernel has no shared past/present buffer",
    ),
    "qattention": Case(
        "QAttention",
        [Input("x", U8, ["batch", "sequence", 16]), weights("w", U8, [16, 48]), weights("b", F32, [48]), scalar("x_scale", 0.1),
         scalar("w_scale", 0.05), ABSENT, scalar("x_zero_point", 1, np.uint8), scalar("w_zero_point", 2, np.uint8),
         Input("past", F32, [2, "batch", 2, "past", 8])],
        ["y", "present"], [vtensor("?,?,16"), vtensor("2,?,2,?,8")], {"num_heads": 2, "unidirectional": 1},
    ),
    # MultiHeadAttention: 2 heads of 8.
    "multi_head_attention": Case(
        "MultiHeadAttention",
        [X, Input("key", F32, ["batch", "kv_sequence", 16]), Input("value", F32, ["batch", "kv_sequence", 16])],
        ["y", "present_key", "present_value"], [vtensor("?,?,16"), vtensor("?,2,?,8"), vtensor("?,2,?,8")], {"num_heads": 2},
    ),
    "multi_head_attention_value_heads_narrower": Case(
        "MultiHeadAttention",
        [X, Input("key", F32, ["batch", "kv_sequence", 16]), Input("value", F32, ["batch", "kv_sequence", 8])],
        ["y", "present_key", "present_value"], [vtensor("?,?,8"), vtensor("?,2,?,8"), vtensor("?,2,?,4")], {"num_heads": 2},
    ),
    "multi_head_attention_qk": Case(
        "MultiHeadAttention",
        [X, Input("key", F32, ["batch", "kv_sequence", 16]), Input("value", F32, ["batch", "kv_sequence", 16])],
        ["y", "", "", "qk"], [vtensor("?,?,16"), vtensor("?,2,?,?")], {"num_heads": 2},
        no_cpu_kernel="onnxruntime's own inference cannot type qk, so it refuses the model unless qk is declared",
    ),
    "multi_head_attention_past": Case(
        "MultiHeadAttention",
        [X, Input("key", F32, ["batch", "sequence", 16]), Input("value", F32, ["batch", "sequence", 16]), ABSENT,
         ABSENT, ABSENT, Input("past_key", F32, ["batch", 2, "past", 8]),
         Input("past_value", F32, ["batch", 2, "past", 8])],
        ["y", "present_key", "present_value"], [vtensor("?,?,16"), vtensor("?,2,?,8"), vtensor("?,2,?,8")],
        {"num_heads": 2, "unidirectional": 1},
    ),
    "multi_head_attention_past_static": Case(
        "MultiHeadAttention",
        [Input("x", F32, [2, 3, 16]), Input("key", F32, [2, 3, 16]), Input("value", F32, [2, 3, 16]), ABSENT,
         ABSENT, ABSENT, Input("past_key", F32, [2, 2, 4, 8]), Input("past_value", F32, [2, 2, 4, 8])],
        ["y", "present_key", "present_value"], [vtensor("2,3,16"), vtensor("2,2,7,8"), vtensor("2,2,7,8")],
        {"num_heads": 2, "unidirectional": 1},
    ),
    "multi_head_attention_cross_bnsh": Case(
        "MultiHeadAttention",
        [X, Input("key", F32, ["batch", 2, "kv_sequence", 8]), Input("value", F32, ["batch", 2, "kv_sequence", 8])],
        ["y"], [vtensor("?,?,16")], {"num_heads": 2},
    ),
    "multi_head_attention_packed_kv": Case(
        "MultiHeadAttention", [X, Input("key", F32, ["batch", "kv_sequence", 2, 2, 8])], ["y"], [vtensor("?,?,16")],
        {"num_heads": 2}, no_cpu_kernel="the CPU MultiHeadAttention kernel has no packed KV",
    ),
    "multi_head_attention_packed_qkv": Case(
        "MultiHeadAttention", [Input("qkv", F32, ["batch", "sequence", 2, 3, 8])], ["y"], [vtensor("?,?,16")],
        {"num_heads": 2}, no_cpu_kernel="the CPU MultiHeadAttention kernel has no packed QKV",
    ),
    # GroupQueryAttention: 4 query heads, 2 key/value heads of 8.
    "group_query_attention_prompt": Case(
        "GroupQueryAttention",
        [Input("q", F32, [1, "sequence", 32]), Input("k", F32, [1, "sequence", 16]), Input("v", F32, [1, "sequence", 16]),
         ABSENT, ABSENT, constant("seqlens_k", np.array([2], np.int32)), scalar("total", 3, np.int32)],
        ["y", "present_key", "present_value"], [vtensor("1,?,32"), vtensor("1,2,3,8"), vtensor("1,2,3,8")],
        {"num_heads": 4, "kv_num_heads": 2},
    ),
    "group_query_attention_qk": Case(
        "GroupQueryAttention",
        [Input("q", F32, [1, "sequence", 32]), Input("k", F32, [1, "sequence", 16]), Input("v", F32, [1, "sequence", 16]),
         ABSENT, ABSENT, constant("seqlens_k", np.array([2], np.int32)), scalar("total", 3, np.int32)],
        ["y", "", "", "qk"], [vtensor("1,?,32"), vtensor("1,4,?,3")], {"num_heads": 4, "kv_num_heads": 2, "qk_output": 1},
    ),
    "group_query_attention_token": Case(
        "GroupQueryAttention",
        [Input("q", F32, ["batch", 1, 32]), Input("k", F32, ["batch", 1, 16]), Input("v", F32, ["batch", 1, 16]),
         Input("past_key", F32, ["batch", 2, 4, 8]), Input("past_value", F32, ["batch", 2, 4, 8]),
         constant("seqlens_k", np.array([4, 4], np.int32)), scalar("total", 5, np.int32)],
        ["y", "present_key", "present_value"], [vtensor("?,1,32"), vtensor("?,2,5,8"), vtensor("?,2,5,8")],
        {"num_heads": 4, "kv_num_heads": 2},
    ),
    "group_query_attention_dynamic_total": Case(
        "GroupQueryAttention",
        [Input("q", F32, ["batch", 1, 32]), Input("k", F32, ["batch", 1, 16]), Input("v", F32, ["batch", 1, 16]),
         Input("past_key", F32, ["batch", 2, "past", 8]), Input("past_value", F32, ["batch", 2, "past", 8]),
         Input("seqlens_k", I32, ["batch"], np.array([4, 4], np.int32)), Input("total", I32, [], np.array(5, np.int32))],
        ["y", "present_key", "present_value"], [vtensor("?,1,32"), vtensor("?,2,?,8"), vtensor("?,2,?,8")],
        {"num_heads": 4, "kv_num_heads": 2},
    ),
    "group_query_attention_packed": Case(
        "GroupQueryAttention",
        [Input("qkv", F32, [1, "sequence", 64]), ABSENT, ABSENT, ABSENT, ABSENT,
         constant("seqlens_k", np.array([2], np.int32)), scalar("total", 3, np.int32)],
        ["y", "present_key", "present_value"], [vtensor("1,?,32"), vtensor("1,2,3,8"), vtensor("1,2,3,8")],
        {"num_heads": 4, "kv_num_heads": 2},
    ),
    "rotary_embedding": Case(
        "RotaryEmbedding",
        [Input("x", F32, ["batch", "sequence", 16]), Input("positions", I64, ["batch", "sequence"]),
         weights("cos", F32, [16, 4]), weights("sin", F32, [16, 4], seed=2)],
        ["y"], [vtensor("?,?,16")], {"num_heads": 2},
    ),
    "rotary_embedding_bnsh": Case(
        "RotaryEmbedding",
        [Input("x", F16, ["batch", 2, "sequence", 8]), Input("positions", I64, ["batch", "sequence"]),
         weights("cos", F16, [16, 4]), weights("sin", F16, [16, 4], seed=2)],
        ["y"], [vtensor("?,2,?,8", "f16")],
    ),
    # Normalizations
    "skip_layer_normalization": Case(
        "SkipLayerNormalization",
        [Input("x", F32, ["batch", "sequence", 8]), Input("skip", F32, ["batch", "sequence", 8]), weights("gamma", F32, [8]),
         weights("beta", F32, [8]), weights("bias", F32, [8])],
        ["y", "mean", "inv_std_var", "sum"], [vtensor("?,?,8"), vtensor("?,?,1"), vtensor("?,?,1"), vtensor("?,?,8")],
    ),
    "skip_layer_normalization_sum_only": Case(
        "SkipLayerNormalization",
        [Input("x", F16, ["batch", "sequence", 8]), Input("skip", F16, ["sequence", 8]), weights("gamma", F16, [8])],
        ["y", "", "", "sum"], [vtensor("?,?,8", "f16"), vtensor("?,?,8", "f16")],
    ),
    "skip_simplified_layer_normalization": Case(
        "SkipSimplifiedLayerNormalization",
        [Input("x", F16, ["rows", 8]), Input("skip", F16, ["rows", 8]), weights("gamma", F16, [8])],
        ["y", "mean", "inv_std_var", "sum"],
        [vtensor("?,8", "f16"), vtensor("?,1"), vtensor("?,1"), vtensor("?,8", "f16")],
    ),
    "simplified_layer_normalization": Case(
        "SimplifiedLayerNormalization", [Input("x", F32, ["batch", "sequence", 8]), weights("gamma", F16, [8])],
        ["y", "inv_std_var"], [vtensor("?,?,8", "f16"), vtensor("?,?,1")], {"axis": -1}, domain="",
    ),
    "layer_normalization_before_opset_17": Case(
        "LayerNormalization",
        [Input("x", F32, ["batch", "sequence", 8]), weights("gamma", F32, [8]), weights("beta", F32, [8])],
        ["y", "mean", "inv_std_var"], [vtensor("?,?,8"), vtensor("?,?,1"), vtensor("?,?,1")], {"axis": -1}, domain="", opset=13,
    ),
    "layer_normalization_from_axis_1": Case(
        "LayerNormalization",
        [Input("x", F16, ["batch", "sequence", 8]), weights("gamma", F16, [3, 8]), weights("beta", F16, [3, 8])],
        ["y", "mean"], [vtensor("?,?,8", "f16"), vtensor("?,1,1")], {"axis": 1}, domain="", opset=13,
    ),
    "embed_layer_normalization": Case(
        "EmbedLayerNormalization",
        [Input("ids", I32, ["batch", "sequence"]), Input("segments", I32, ["batch", "sequence"], np.zeros([2, 3], np.int32)),
         weights("words", F32, [10, 8]),
         weights("positions", F32, [16, 8]), weights("segment_table", F32, [2, 8]), weights("gamma", F32, [8]),
         weights("beta", F32, [8]), Input("mask", I32, ["batch", "sequence"], np.ones([2, 3], np.int32))],
        ["y", "mask_index", "embedding_sum"], [vtensor("?,?,8"), vtensor("?", "si32"), vtensor("?,?,8")],
    ),
    "embed_layer_normalization_without_mask_index": Case(
        "EmbedLayerNormalization",
        [Input("ids", I32, ["batch", "sequence"]), ABSENT, weights("words", F16, [10, 8]),
         weights("positions", F16, [16, 8]), ABSENT, weights("gamma", F16, [8]), weights("beta", F16, [8])],
        ["y", "", "embedding_sum"], [vtensor("?,?,8", "f16"), vtensor("?,?,8", "f16")], {"mask_index_type": 0},
    ),
    # Activations
    "bias_gelu": Case("BiasGelu", [Input("x", F32, ["batch", "sequence", 8]), weights("bias", F32, [8])], ["y"], [vtensor("?,?,8")]),
    "fast_gelu": Case("FastGelu", [Input("x", F32, ["batch", "sequence", 8]), weights("bias", F32, [8])], ["y"], [vtensor("?,?,8")]),
    "gelu": Case("Gelu", [Input("x", F16, ["batch", 8])], ["y"], [vtensor("?,8", "f16")]),
    "quick_gelu": Case("QuickGelu", [Input("x", F32, ["batch", 8])], ["y"], [vtensor("?,8")], {"alpha": 1.702}),
    "bias_add": Case(
        "BiasAdd",
        [Input("x", F16, ["batch", "rows", 8]), weights("bias", F16, [8]), Input("skip", F16, ["batch", "rows", 8])],
        ["y"], [vtensor("?,?,8", "f16")], no_cpu_kernel="BiasAdd has CUDA and ROCm kernels only",
    ),
    # Matrix products
    "fused_matmul": Case(
        "FusedMatMul", [Input("a", F32, ["batch", 3, 4]), Input("b", F32, ["batch", 5, 4])], ["y"], [vtensor("?,3,5")],
        {"transB": 1, "alpha": 0.5},
    ),
    "fused_matmul_transposed_batches": Case(
        "FusedMatMul", [Input("a", F32, [3, "batch", 4, 6]), Input("b", F32, ["batch", 4, 3, 5])], ["y"], [vtensor("?,4,6,5")],
        {"transA": 1, "transBatchA": 1},
    ),
    "fused_matmul_transposed_batches_of_b": Case(
        "FusedMatMul", [Input("a", F32, [2, 3, 6, 4]), Input("b", F32, [4, 2, 3, 5])], ["y"], [vtensor("2,3,6,5")],
        {"transBatchB": 1},
    ),
    "matmul_n_bits": Case(
        "MatMulNBits",
        [Input("a", F32, ["batch", "sequence", 32]), weights("q", U8, [16, 2, 8]), weights("scales", F32, [32])],
        ["y"], [vtensor("?,?,16")], {"K": 32, "N": 16, "bits": 4, "block_size": 16},
    ),
    "dynamic_quantize_matmul": Case(
        "DynamicQuantizeMatMul", [Input("a", F32, ["batch", "sequence", 8]), weights("b", I8, [8, 4]), scalar("b_scale", 0.1)],
        ["y"], [vtensor("?,?,4")],
    ),
    "dynamic_quantize_lstm": Case(
        "DynamicQuantizeLSTM",
        [Input("x", F32, ["sequence", "batch", 4]), weights("w", I8, [2, 4, 8]), weights("r", I8, [2, 2, 8]),
         ABSENT, ABSENT, ABSENT, ABSENT, ABSENT, constant("w_scale", np.array([0.1, 0.2], np.float32)),
         constant("w_zero_point", np.zeros(2, np.int8)), constant("r_scale", np.array([0.3, 0.4], np.float32)),
         constant("r_zero_point", np.zeros(2, np.int8))],
        ["y", "y_h", "y_c"], [vtensor("?,2,?,2"), vtensor("2,?,2"), vtensor("2,?,2")],
        {"hidden_size": 2, "direction": "bidirectional"},
    ),
    "matmul_integer_to_float": Case(
        "MatMulIntegerToFloat",
        [Input("a", U8, ["batch", "sequence", 8]), weights("b", I8, [8, 4]), scalar("a_scale", 0.1), scalar("b_scale", 0.2)],
        ["y"], [vtensor("?,?,4")],
    ),
    "qgemm_float": Case(
        "QGemm",
        [Input("a", U8, ["rows", 8]), *quantized_pair("a"), weights("b", I8, [4, 8]), *quantized_pair("b", np.int8)],
        ["y"], [vtensor("?,4")], {"transB": 1},
    ),
    "qgemm_quantized": Case(
        "QGemm",
        [Input("a", U8, [8, "rows"]), *quantized_pair("a"), weights("b", U8, [8, 4]), *quantized_pair("b"), ABSENT,
         *quantized_pair("y")],
        ["y"], [vtensor("?,4", "ui8")], {"transA": 1},
    ),
    # Quantization
    "quantize_linear": Case(
        "QuantizeLinear", [Input("x", F32, ["batch", 4]), scalar("scale", 0.1), scalar("zero_point", 1, np.int8)],
        ["y"], [vtensor("?,4", "si8")],
    ),
    "quantize_linear_default_zero_point": Case(
        "QuantizeLinear", [Input("x", F32, ["batch", 4]), scalar("scale", 0.1)], ["y"], [vtensor("?,4", "ui8")],
    ),
    "dequantize_linear": Case(
        "DequantizeLinear", [Input("x", I8, ["batch", 4]), scalar("scale", 0.1), scalar("zero_point", 1, np.int8)],
        ["y"], [vtensor("?,4")],
    ),
    "dequantize_linear_float16": Case(
        "DequantizeLinear", [Input("x", U8, ["batch", 4]), scalar("scale", 0.1, np.float16)], ["y"], [vtensor("?,4", "f16")],
    ),
    "gather_block_quantized_packed": Case(
        "GatherBlockQuantized",
        [weights("data", U8, [10, 16]), Input("indices", I64, ["batch", "sequence"]), weights("scales", F32, [10, 1])],
        ["y"], [vtensor("?,?,32")], {"bits": 4, "block_size": 32, "gather_axis": 0, "quantize_axis": 1},
    ),
    "gather_block_quantized_int4": Case(
        "GatherBlockQuantized",
        [int4_weights("data", [4, 10, 32]), Input("indices", I64, ["sequence"]), weights("scales", F16, [4, 10, 1])],
        ["y"], [vtensor("4,?,32", "f16")], {"block_size": 32, "gather_axis": 1, "quantize_axis": 2},
    ),
    # Quantized (QOperator) ops: uint8 with scalar scales and zero points.
    "qlinear_add": Case(
        "QLinearAdd",
        [Input("a", U8, ["batch", 4, 8]), *quantized_pair("a"), weights("b", U8, [8]), *quantized_pair("b"), *quantized_pair("c")],
        ["y"], [vtensor("?,4,8", "ui8")],
    ),
    "qlinear_mul": Case(
        "QLinearMul",
        [Input("a", I8, ["batch", 1, 8]), *quantized_pair("a", np.int8), Input("b", I8, [4, 1]), *quantized_pair("b", np.int8),
         *quantized_pair("c", np.int8)],
        ["y"], [vtensor("?,4,8", "si8")],
    ),
    "qlinear_concat": Case(
        "QLinearConcat",
        [*quantized_pair("y"), Input("a", U8, ["batch", 2, 4]), *quantized_pair("a"), Input("b", U8, ["batch", 3, 4]),
         *quantized_pair("b")],
        ["y"], [vtensor("?,5,4", "ui8")], {"axis": 1},
    ),
    "qlinear_concat_dynamic_axis": Case(
        "QLinearConcat",
        [*quantized_pair("y"), Input("a", U8, ["batch", "sequence", 4]), *quantized_pair("a"), Input("b", U8, ["batch", 3, 4]),
         *quantized_pair("b")],
        ["y"], [vtensor("?,?,4", "ui8")], {"axis": -2},
    ),
    "qlinear_global_average_pool": Case(
        "QLinearGlobalAveragePool", [Input("x", U8, ["batch", 3, "height", "width"]), *quantized_pair("x"), *quantized_pair("y")],
        ["y"], [vtensor("?,3,1,1", "ui8")],
    ),
    "qlinear_global_average_pool_channels_last": Case(
        "QLinearGlobalAveragePool", [Input("x", U8, ["batch", "height", "width", 3]), *quantized_pair("x"), *quantized_pair("y")],
        ["y"], [vtensor("?,1,1,3", "ui8")], {"channels_last": 1},
    ),
    "qlinear_average_pool": Case(
        "QLinearAveragePool", [Input("x", U8, ["batch", 3, 9, 7]), *quantized_pair("x"), *quantized_pair("y")],
        ["y"], [vtensor("?,3,5,4", "ui8")], {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1], "ceil_mode": 1},
    ),
    "qlinear_average_pool_channels_last": Case(
        "QLinearAveragePool", [Input("x", U8, ["batch", 9, 7, 3]), *quantized_pair("x"), *quantized_pair("y")],
        ["y"], [vtensor("?,4,3,3", "ui8")], {"kernel_shape": [3, 3], "strides": [2, 2], "channels_last": 1},
    ),
    "qlinear_sigmoid": Case("QLinearSigmoid", [Input("x", I8, ["batch", 8]), *quantized_pair("x", np.int8), *quantized_pair("y", np.int8)],
                            ["y"], [vtensor("?,8", "si8")]),
    "qlinear_leaky_relu": Case("QLinearLeakyRelu", [Input("x", U8, ["batch", 8]), *quantized_pair("x"), *quantized_pair("y")],
                               ["y"], [vtensor("?,8", "ui8")], {"alpha": 0.1}),
    "qlinear_softmax": Case("QLinearSoftmax", [Input("x", U8, ["batch", 8]), *quantized_pair("x"), *quantized_pair("y")],
                            ["y"], [vtensor("?,8", "ui8")], {"axis": -1, "opset": 13}),
    # Convolutions
    "qlinear_conv_channels_last": Case(
        "QLinearConv",
        [Input("x", U8, ["batch", 9, 7, 3]), *quantized_pair("x"), weights("w", U8, [4, 3, 3, 3]), *quantized_pair("w"),
         *quantized_pair("y")],
        ["y"], [vtensor("?,4,4,4", "ui8")], {"channels_last": 1, "strides": [2, 2], "pads": [1, 1, 0, 1]},
    ),
    "qlinear_conv_dynamic_spatial": Case(
        "QLinearConv",
        [Input("x", U8, ["batch", 3, "height", "width"]), *quantized_pair("x"), weights("w", U8, [4, 3, 3, 3]),
         *quantized_pair("w"), *quantized_pair("y")],
        ["y"], [vtensor("?,4,?,?", "ui8")], {"auto_pad": "SAME_UPPER"},
    ),
    "fused_conv": Case(
        "FusedConv", [Input("x", F32, ["batch", 3, 9, 7]), weights("w", F32, [4, 3, 3, 3])], ["y"], [vtensor("?,4,4,3")],
        {"activation": "Relu", "strides": [2, 2], "dilations": [1, 1]},
    ),
    "nhwc_conv": Case(
        "NhwcConv", [Input("x", F16, ["batch", 9, 7, 3]), weights("w", F16, [4, 3, 3, 3])], ["y"], [vtensor("?,7,5,4", "f16")],
        no_cpu_kernel="NhwcConv has CUDA and ROCm kernels only",
    ),
}


def result_types(text: str, op_name: str) -> list:
    """The result types of the one `op_name` torch.operator in the module text."""
    line = next(line for line in text.splitlines() if f'torch.operator "{op_name}"' in line)
    results = line.rsplit("->", 1)[1].strip()
    return [part.strip() for part in results.strip("()").split(", ")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_are_typed(name):
    case = CASES[name]
    op_name = f"{case.domain or 'onnx'}.{case.op_type}"
    text = str(import_onnx(case.model(), form="torch-onnx"))
    types = result_types(text, op_name)
    named = [found for output, found in zip(case.outputs, types) if output]
    assert named == case.expected
    assert all(found == "!torch.none" for output, found in zip(case.outputs, types) if not output)


def _inferred_dims(model: onnx.ModelProto) -> dict:
    typed = infer_types(model, "<test>")
    values = {value.name: value.type.tensor_type for value in list(typed.graph.value_info) + list(typed.graph.output)}
    return {
        name: (tensor.elem_type, [d.dim_value if d.HasField("dim_value") else d.dim_param or None for d in tensor.shape.dim])
        for name, tensor in values.items()
    }


def _feeds(case: Case) -> dict:
    return {
        i.name: i.value if i.value is not None else seeded_values(i.element_type, i.dims, seed=index)
        for index, i in enumerate(case.inputs)
        if i.name and not i.constant
    }


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if not case.no_cpu_kernel))
def test_inferred_types_match_onnxruntime(name):
    onnxruntime = pytest.importorskip("onnxruntime")
    case = CASES[name]
    model = case.model()
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    results = dict(zip([output.name for output in session.get_outputs()], session.run(None, _feeds(case))))
    inferred = _inferred_dims(model)
    for output in filter(None, case.outputs):
        element_type, dims = inferred[output]
        actual = results[output]
        assert helper.tensor_dtype_to_np_dtype(element_type) == actual.dtype, output
        bound = [SIZES.get(dim, dim) if isinstance(dim, str) else dim for dim in dims]
        assert len(bound) == actual.ndim and all(d is None or d == size for d, size in zip(bound, actual.shape)), (
            f"{output}: inferred {dims}, onnxruntime {list(actual.shape)}"
        )


def _model(nodes, inputs, outputs, initializers=(), opset=17, domains=("com.microsoft",)) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(domain, 1) for domain in domains]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def test_a_chain_longer_than_the_inference_rounds_is_typed_in_one_walk(monkeypatch):
    """80 FastGelu -> MatMul links: the ONNX op after each contrib op is typed in the same walk.

    One inference round per link would need more rounds than shape_values.MAX_ROUNDS (64).
    """
    nodes, value = [], "x"
    for index in range(80):
        nodes.append(helper.make_node("FastGelu", [value], [f"gelu{index}"], domain="com.microsoft"))
        nodes.append(helper.make_node("MatMul", [f"gelu{index}", "w"], [f"y{index}"]))
        value = f"y{index}"
    weight = numpy_helper.from_array(np.eye(8, dtype=np.float32), "w")
    model = _model(nodes, [helper.make_tensor_value_info("x", F32, ["batch", 8])], [onnx.ValueInfoProto(name=value)], [weight])
    calls = []
    infer_shapes = onnx.shape_inference.infer_shapes
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", lambda *a, **k: calls.append(1) or infer_shapes(*a, **k))
    text = str(import_onnx(model))
    assert "(%arg0: !torch.vtensor<[?,8],f32>) -> !torch.vtensor<[?,8],f32> attributes" in text
    assert len(calls) <= 4


def test_contrib_ops_in_a_subgraph_are_typed():
    then_branch = helper.make_graph(
        [helper.make_node("FastGelu", ["x"], ["gelu"], domain="com.microsoft", name="gelu")], "then", [], [onnx.ValueInfoProto(name="gelu")]
    )
    else_branch = helper.make_graph([helper.make_node("Relu", ["x"], ["relu"])], "else", [], [onnx.ValueInfoProto(name="relu")])
    nodes = [
        helper.make_node("If", ["condition"], ["chosen"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Neg", ["chosen"], ["y"], name="neg"),
    ]
    inputs = [helper.make_tensor_value_info("x", F32, ["batch", 4]), helper.make_tensor_value_info("condition", TensorProto.BOOL, [])]
    text = str(import_onnx(_model(nodes, inputs, [onnx.ValueInfoProto(name="y")])))
    assert 'torch.operator "com.microsoft.FastGelu"(%arg0) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>' in text
    assert 'torch.operator "onnx.Neg"(%0) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>' in text


def test_a_declared_type_is_completed_and_its_dim_names_kept():
    node = helper.make_node("Attention", ["x", "w", "b"], ["y"], domain="com.microsoft", num_heads=2)
    declared = helper.make_tensor_value_info("y", F32, ["batch", None, None])
    model = _model([node], [helper.make_tensor_value_info("x", F32, ["batch", "sequence", 16])], [declared],
                   [numpy_helper.from_array(np.zeros([16, 48], np.float32), "w"), numpy_helper.from_array(np.zeros(48, np.float32), "b")])
    assert _inferred_dims(model)["y"] == (F32, ["batch", "sequence", 16])


@pytest.mark.parametrize("form", ["torch-onnx", "onnx"])
def test_both_spellings_keep_the_domain(form):
    text = str(import_onnx(CASES["attention"].model(), form=form))
    if form == "torch-onnx":
        assert 'torch.operator "com.microsoft.Attention"' in text and "-> !torch.vtensor<[?,?,16],f32>" in text
    else:
        assert '"onnx.Custom"' in text and 'domain_name = "com.microsoft", function_name = "Attention"' in text
        assert "-> tensor<?x?x16xf32>" in text


def test_onnx_types_layer_normalization_from_opset_17():
    from onnx_torch_mlir.importer.contrib_types import inference_for

    node = helper.make_node("LayerNormalization", ["x", "scale"], ["y"])
    assert inference_for(node, {"": 17}) is None
    assert inference_for(node, {"": 13}) is not None
    assert inference_for(helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft"), {"": 17}) is not None


@pytest.mark.parametrize(
    "op_type, domain, expected",
    [
        ("WordConvEmbedding", "com.microsoft", "it is not one of the com.microsoft ops the importer types"),
        ("Mystery", "example.org", "ONNX has no schemas for that domain"),
        ("Mystery", "", "ONNX has no operator 'Mystery' in domain 'ai.onnx' at opset 17"),
    ],
)
def test_an_op_without_type_inference_is_an_error_naming_node_op_and_domain(op_type, domain, expected):
    nodes = [helper.make_node(op_type, ["x"], ["m"], domain=domain, name="unknown"), helper.make_node("Relu", ["m"], ["y"])]
    domains = (domain,) if domain else ()
    model = _model(nodes, [helper.make_tensor_value_info("x", F32, [3])], [onnx.ValueInfoProto(name="y")], domains=domains)
    with pytest.raises(Exception) as raised:
        import_onnx(model)
    message = str(raised.value)
    assert f"node 'unknown' ({op_type}): the type of result 'm' is unknown" in message
    assert expected in message
    if domain:
        assert f"op '{op_type}' of domain '{domain}'" in message
    model.graph.value_info.append(helper.make_tensor_value_info("m", F32, [3]))
    assert "-> !torch.vtensor<[3],f32>" in str(import_onnx(model))


def test_every_op_of_the_table_has_a_case():
    from onnx_torch_mlir.importer.contrib_types import DEFAULT_DOMAIN_RESULT_TYPES, MICROSOFT_RESULT_TYPES

    table = {("com.microsoft", op) for op in MICROSOFT_RESULT_TYPES} | {("", op) for op in DEFAULT_DOMAIN_RESULT_TYPES}
    assert table - {(case.domain, case.op_type) for case in CASES.values()} == set()
