// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// QuantizeLinear with a literal per-tensor scale and zero point, for Linalg: torch-mlir's
// quantized form, whose Linalg lowering divides, rounds half to even, adds and clamps as ONNX does.
// CHECK-LABEL: func.func @quantize_per_tensor_linalg
// CHECK: %[[Q:.*]] = torch.aten.quantize_per_tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[4,3],f32>, !torch.float, !torch.int, !torch.int -> !torch.vtensor<[4,3],!torch.qint8>
// CHECK: torch.aten.int_repr %[[Q]] : !torch.vtensor<[4,3],!torch.qint8> -> !torch.vtensor<[4,3],si8>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @quantize_per_tensor_linalg(%arg0: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[4,3],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.QuantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[4,3],si8>
    return %2 : !torch.vtensor<[4,3],si8>
  }
}

// -----

// For TOSA (no division: torch-mlir multiplies by the reciprocal; no float64) the rounded quotient
// is found in float32 exactly (quantization/exact_rounding.py): k = floor(x * (1 / s)), then k + 1
// where the exact sign of x - E * s (a TwoSum expansion of exact products) says x / s is above
// the edge E of k + 0.5's rounding interval; then the zero point is added and the value clamped.
// x and s are first both scaled by 2^-64 where |s| > 2^100 (a factor of 1 otherwise), so that
// the exact products stay in float32's range.
// CHECK-LABEL: func.func @quantize_per_tensor_tosa
// CHECK-NOT: quantize_per_tensor
// CHECK-NOT: f64
// CHECK: %[[X:.*]] = torch.aten.mul.Tensor %arg0, %[[FACTOR:.*]] : !torch.vtensor<[4,3],f32>
// CHECK: %[[RECIPROCAL:.*]] = torch.aten.reciprocal
// CHECK: %[[APPROXIMATE:.*]] = torch.aten.mul.Tensor %[[X]], %[[RECIPROCAL]]
// CHECK: %[[K:.*]] = torch.aten.floor
// CHECK: torch.aten.gt.Tensor
// CHECK: %[[ABOVE:.*]] = torch.aten.logical_xor
// CHECK: %[[STEP:.*]] = torch.aten.to.dtype %[[ABOVE]], {{.*}} -> !torch.vtensor<[4,3],f32>
// CHECK: %[[ROUNDED:.*]] = torch.aten.add.Tensor %[[K]], %[[STEP]]
// CHECK-NOT: torch.aten.round
// CHECK: %[[SHIFTED:.*]] = torch.aten.add.Tensor %[[ROUNDED]]
// CHECK: %[[CLAMPED:.*]] = torch.aten.clamp %[[SHIFTED]], %float-1.280000e02, %float1.270000e02
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %[[CLAMPED]], {{.*}} -> !torch.vtensor<[4,3],si32>
// CHECK: torch.aten.to.dtype %[[WIDE]], {{.*}} -> !torch.vtensor<[4,3],si8>
// CHECK-NOT: f64
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @quantize_per_tensor_tosa(%arg0: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[4,3],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.QuantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[4,3],si8>
    return %2 : !torch.vtensor<[4,3],si8>
  }
}

// -----

// StableHLO divides in float32 directly; an opset-10 node has no axis.
// CHECK-LABEL: func.func @quantize_opset10_stablehlo
// CHECK-NOT: quantize_per_tensor
// CHECK: %[[QUOTIENT:.*]] = torch.aten.div.Tensor %arg0, %arg1 : !torch.vtensor<[6],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[6],f32>
// CHECK: torch.aten.round %[[QUOTIENT]]
// CHECK: torch.aten.clamp %{{.*}}, %float0.000000e00, %float2.550000e02
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @quantize_opset10_stablehlo(%arg0: !torch.vtensor<[6],f32>, %arg1: !torch.vtensor<[],f32>, %arg2: !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg1, %arg2) : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8>
    return %0 : !torch.vtensor<[6],ui8>
  }
}

// -----

// Per-axis: the scale and zero point are reshaped to broadcast along the axis.
// CHECK-LABEL: func.func @quantize_per_axis
// CHECK: %[[SCALE:.*]] = torch.aten.reshape %arg1, {{.*}} -> !torch.vtensor<[1,3,1],f32>
// CHECK: %[[ZERO:.*]] = torch.aten.reshape %arg2, {{.*}} -> !torch.vtensor<[1,3,1],si8>
// CHECK: torch.aten.div.Tensor %arg0, %[[SCALE]]
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @quantize_per_axis(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg1, %arg2) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8>
    return %0 : !torch.vtensor<[2,3,4],si8>
  }
}

// -----

// Blocked: each scale is repeated block_size times along the axis (index_select, the last block short).
// CHECK-LABEL: func.func @quantize_blocked
// CHECK: %[[INDICES:.*]] = torch.vtensor.literal(dense<[0, 0, 1, 1, 2]> : tensor<5xsi64>)
// CHECK: %[[SCALE:.*]] = torch.aten.index_select %arg1, %int1, %[[INDICES]] : !torch.vtensor<[3,3],f32>, !torch.int, !torch.vtensor<[5],si64> -> !torch.vtensor<[3,5],f32>
// CHECK: torch.aten.div.Tensor %arg0, %[[SCALE]]
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @quantize_blocked(%arg0: !torch.vtensor<[3,5],f32>, %arg1: !torch.vtensor<[3,3],f32>, %arg2: !torch.vtensor<[3,3],ui8>) -> !torch.vtensor<[3,5],ui8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg1, %arg2) {torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[3,5],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],ui8>) -> !torch.vtensor<[3,5],ui8>
    return %0 : !torch.vtensor<[3,5],ui8>
  }
}

// -----

// uint16 and the 4-bit types have no torch dtype code: the result is the zero point plus the
// difference, an addition typed with the result's element type.
// CHECK-LABEL: func.func @quantize_uint16
// CHECK: %[[DIFFERENCE:.*]] = torch.aten.sub.Tensor %{{.*}} -> !torch.vtensor<[6],si32>
// CHECK: torch.aten.add.Tensor %arg2, %[[DIFFERENCE]], %{{.*}} : !torch.vtensor<[],ui16>, !torch.vtensor<[6],si32>, !torch.int -> !torch.vtensor<[6],ui16>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @quantize_uint16(%arg0: !torch.vtensor<[6],f32>, %arg1: !torch.vtensor<[],f32>, %arg2: !torch.vtensor<[],ui16>) -> !torch.vtensor<[6],ui16> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg1, %arg2) : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui16>) -> !torch.vtensor<[6],ui16>
    return %0 : !torch.vtensor<[6],ui16>
  }
}

// -----

// Float8 with saturate: the quotient clamped to the type's largest finite value, then converted;
// maximum and minimum with the limit first keep NaN (Linalg's clamp would make it the lower bound).
// CHECK-LABEL: func.func @quantize_float8
// CHECK: %[[LOW:.*]] = torch.vtensor.literal(dense<-4.480000e+02> : tensor<f32>)
// CHECK: %[[ABOVE:.*]] = torch.aten.maximum %[[LOW]], %{{.*}}
// CHECK: %[[HIGH:.*]] = torch.vtensor.literal(dense<4.480000e+02> : tensor<f32>)
// CHECK: %[[CLAMPED:.*]] = torch.aten.minimum %[[HIGH]], %[[ABOVE]]
// CHECK: torch.aten.to.dtype %[[CLAMPED]], %int24, {{.*}} -> !torch.vtensor<[5],f8E4M3FN>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @quantize_float8(%arg0: !torch.vtensor<[5],f32>, %arg1: !torch.vtensor<[],f32>, %arg2: !torch.vtensor<[1],f8E4M3FN>) -> !torch.vtensor<[5],f8E4M3FN> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg1, %arg2) : (!torch.vtensor<[5],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[1],f8E4M3FN>) -> !torch.vtensor<[5],f8E4M3FN>
    return %0 : !torch.vtensor<[5],f8E4M3FN>
  }
}

// -----

// DequantizeLinear with literal per-tensor parameters: torch-mlir's quantized form on Linalg, which
// torch-fuse-quantized-ops folds into the integer matmuls and convolutions it feeds.
// CHECK-LABEL: func.func @dequantize_linalg
// CHECK: %[[Q:.*]] = torch.aten._make_per_tensor_quantized_tensor %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[8],ui8>, !torch.float, !torch.int -> !torch.vtensor<[8],!torch.quint8>
// CHECK: torch.aten.dequantize.self %[[Q]] : !torch.vtensor<[8],!torch.quint8> -> !torch.vtensor<[8],f32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @dequantize_linalg(%arg0: !torch.vtensor<[8],ui8>) -> !torch.vtensor<[8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<128> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %2 = torch.operator "onnx.DequantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[8],f32>
    return %2 : !torch.vtensor<[8],f32>
  }
}

// -----

// TOSA reads quint8 as signed: a uint8 dequantization is computed in float there (int8 keeps the
// quantized form, see @dequantize_int8_tosa). The unsigned input is widened with a mask.
// CHECK-LABEL: func.func @dequantize_uint8_tosa
// CHECK-NOT: _make_per_tensor_quantized_tensor
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[8],si32>
// CHECK: torch.aten.bitwise_and.Scalar %[[WIDE]], %int255
// CHECK: torch.aten.sub.Tensor
// CHECK: torch.aten.mul.Tensor
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @dequantize_uint8_tosa(%arg0: !torch.vtensor<[8],ui8>) -> !torch.vtensor<[8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<128> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %2 = torch.operator "onnx.DequantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[8],f32>
    return %2 : !torch.vtensor<[8],f32>
  }
}

// -----

// On TOSA an int8 DequantizeLinear is its float computation inside a marker call that names its
// parameters (quantization/tosa_markers.py; the TOSA route makes the region integer).
// CHECK-LABEL: func.func @dequantize_int8_tosa
// CHECK: %[[FLOAT:.*]] = torch.aten.mul.Tensor
// CHECK: call @onnx_torch_mlir.dequantize_linear${{[0-9a-f]+}}(%arg0, %[[FLOAT]]) : (!torch.vtensor<[8],si8>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @dequantize_int8_tosa(%arg0: !torch.vtensor<[8],si8>) -> !torch.vtensor<[8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.DequantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[8],f32>
    return %2 : !torch.vtensor<[8],f32>
  }
}

// -----

// StableHLO cannot lower the quantized form: float arithmetic, a literal zero point as a float32
// literal; the float16 output is computed in float32 and converted (ONNX's reference).
// CHECK-LABEL: func.func @dequantize_stablehlo_float16
// CHECK-NOT: _make_per_tensor_quantized_tensor
// CHECK: %[[X:.*]] = torch.aten.to.dtype %{{.*}} -> !torch.vtensor<[8],f32>
// CHECK: %[[DIFFERENCE:.*]] = torch.aten.sub.Tensor %[[X]], %{{.*}} : !torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[8],f32>
// CHECK: %[[PRODUCT:.*]] = torch.aten.mul.Tensor %[[DIFFERENCE]]
// CHECK: torch.aten.to.dtype %[[PRODUCT]], {{.*}} -> !torch.vtensor<[8],f16>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @dequantize_stablehlo_float16(%arg0: !torch.vtensor<[8],si8>) -> !torch.vtensor<[8],f16> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f16>} : () -> !torch.vtensor<[],f16>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.DequantizeLinear"(%arg0, %0, %1) : (!torch.vtensor<[8],si8>, !torch.vtensor<[],f16>, !torch.vtensor<[],si8>) -> !torch.vtensor<[8],f16>
    return %2 : !torch.vtensor<[8],f16>
  }
}

// -----

// The ONNX dialect spelling.
// CHECK-LABEL: func.func @dequantize_onnx_dialect
// CHECK: torch.aten._make_per_tensor_quantized_tensor
// CHECK: torch.aten.dequantize.self
module attributes {onnx.opset_version = 13 : i64, onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @dequantize_onnx_dialect(%arg0: tensor<8xi8>) -> tensor<8xf32> {
    %0 = "onnx.Constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
    %1 = "onnx.Constant"() {value = dense<1> : tensor<i8>} : () -> tensor<i8>
    %2 = "onnx.DequantizeLinear"(%arg0, %0, %1) {axis = 1 : si64} : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}

// -----

// CHECK-LABEL: func.func @dynamic_quantize
// CHECK: %[[MAX:.*]] = torch.aten.max %arg0
// CHECK: torch.aten.clamp_min %[[MAX]]
// CHECK: %[[MIN:.*]] = torch.aten.min %arg0
// CHECK: torch.aten.clamp_max %[[MIN]]
// CHECK: torch.aten.where.self
// CHECK: torch.aten.round
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @dynamic_quantize(%arg0: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
    %0:3 = torch.operator "onnx.DynamicQuantizeLinear"(%arg0) : (!torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>)
    return %0#0, %0#1, %0#2 : !torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>
  }
}

// -----

// MatMulInteger with literal zero points, for Linalg: quantized operands (scale 1) and an
// aten.matmul to qint32, which torch-mlir lowers to linalg.quantized_matmul.
// CHECK-LABEL: func.func @matmul_integer_linalg
// CHECK-DAG: %[[A:.*]] = torch.aten._make_per_tensor_quantized_tensor %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[3,5],ui8>, !torch.float, !torch.int -> !torch.vtensor<[3,5],!torch.quint8>
// CHECK-DAG: %[[B:.*]] = torch.aten._make_per_tensor_quantized_tensor %arg1, {{.*}} -> !torch.vtensor<[5,4],!torch.qint8>
// CHECK: %[[PRODUCT:.*]] = torch.aten.matmul %[[A]], %[[B]] : {{.*}} -> !torch.vtensor<[3,4],!torch.qint32>
// CHECK: torch.aten.int_repr %[[PRODUCT]] : !torch.vtensor<[3,4],!torch.qint32> -> !torch.vtensor<[3,4],si32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @matmul_integer_linalg(%arg0: !torch.vtensor<[3,5],ui8>, %arg1: !torch.vtensor<[5,4],si8>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<12> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-2> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.MatMulInteger"(%arg0, %arg1, %0, %1) : (!torch.vtensor<[3,5],ui8>, !torch.vtensor<[5,4],si8>, !torch.vtensor<[],ui8>, !torch.vtensor<[],si8>) -> !torch.vtensor<[3,4],si32>
    return %2 : !torch.vtensor<[3,4],si32>
  }
}

// -----

// For TOSA, uint8 operands are shifted into int8 (x - 128, zero point - 128) first: TOSA's
// quantized matmul takes signed bytes.
// CHECK-LABEL: func.func @matmul_integer_tosa
// CHECK: %[[SHIFTED:.*]] = torch.aten.sub.Scalar %{{.*}}, %int128
// CHECK: %[[BYTES:.*]] = torch.aten.to.dtype %[[SHIFTED]], {{.*}} -> !torch.vtensor<[3,5],si8>
// CHECK: %[[A:.*]] = torch.aten._make_per_tensor_quantized_tensor %[[BYTES]], %{{.*}}, %int-116 : {{.*}} -> !torch.vtensor<[3,5],!torch.qint8>
// CHECK: torch.aten.matmul %[[A]], %{{.*}} -> !torch.vtensor<[3,4],!torch.qint32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @matmul_integer_tosa(%arg0: !torch.vtensor<[3,5],ui8>, %arg1: !torch.vtensor<[5,4],si8>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<12> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-2> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.MatMulInteger"(%arg0, %arg1, %0, %1) : (!torch.vtensor<[3,5],ui8>, !torch.vtensor<[5,4],si8>, !torch.vtensor<[],ui8>, !torch.vtensor<[],si8>) -> !torch.vtensor<[3,4],si32>
    return %2 : !torch.vtensor<[3,4],si32>
  }
}

// -----

// StableHLO: int32 operands with the zero points subtracted, an int32 matmul.
// CHECK-LABEL: func.func @matmul_integer_stablehlo
// CHECK-NOT: quantized
// CHECK: %[[A:.*]] = torch.aten.sub.Tensor %{{.*}} -> !torch.vtensor<[3,5],si32>
// CHECK: %[[B:.*]] = torch.aten.sub.Tensor %{{.*}} -> !torch.vtensor<[5,4],si32>
// CHECK: torch.aten.matmul %[[A]], %[[B]] : !torch.vtensor<[3,5],si32>, !torch.vtensor<[5,4],si32> -> !torch.vtensor<[3,4],si32>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @matmul_integer_stablehlo(%arg0: !torch.vtensor<[3,5],ui8>, %arg1: !torch.vtensor<[5,4],si8>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<12> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-2> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %2 = torch.operator "onnx.MatMulInteger"(%arg0, %arg1, %0, %1) : (!torch.vtensor<[3,5],ui8>, !torch.vtensor<[5,4],si8>, !torch.vtensor<[],ui8>, !torch.vtensor<[],si8>) -> !torch.vtensor<[3,4],si32>
    return %2 : !torch.vtensor<[3,4],si32>
  }
}

// -----

// QLinearMatMul with run-time zero points: the int32 form; the requantization multiplies in float64.
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: %[[ACC:.*]] = torch.aten.matmul %{{.*}}, %{{.*}} : !torch.vtensor<[2,4],si32>, !torch.vtensor<[4,3],si32> -> !torch.vtensor<[2,3],si32>
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %[[ACC]], {{.*}} -> !torch.vtensor<[2,3],f64>
// CHECK: %[[PRODUCT:.*]] = torch.aten.mul.Tensor %[[WIDE]], {{.*}} -> !torch.vtensor<[2,3],f64>
// CHECK: torch.aten.round %[[PRODUCT]]
// CHECK: torch.aten.clamp %{{.*}}, %float0.000000e00, %float2.550000e02
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qlinear_matmul(%arg0: !torch.vtensor<[2,4],ui8>, %arg1: !torch.vtensor<[1],f32>, %arg2: !torch.vtensor<[1],ui8>, %arg3: !torch.vtensor<[4,3],ui8>, %arg4: !torch.vtensor<[1],f32>, %arg5: !torch.vtensor<[1],ui8>, %arg6: !torch.vtensor<[1],f32>, %arg7: !torch.vtensor<[1],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.QLinearMatMul"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7) : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],ui8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],ui8>) -> !torch.vtensor<[2,3],ui8>
    return %0 : !torch.vtensor<[2,3],ui8>
  }
}

// -----

// QLinearConv with literal per-tensor zero points and a per-channel weight scale, for Linalg:
// the input padded with its zero point, a convolution of quantized tensors to si32, the int32
// bias added, the per-channel multiplier [M, 1, 1] a literal.
// CHECK-LABEL: func.func @qlinear_conv_linalg
// CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %arg0, %{{.*}}, %float3.000000e00 : {{.*}} -> !torch.vtensor<[1,2,7,7],si8>
// CHECK: %[[X:.*]] = torch.aten._make_per_tensor_quantized_tensor %[[PADDED]], {{.*}} -> !torch.vtensor<[1,2,7,7],!torch.qint8>
// CHECK: %[[W:.*]] = torch.aten._make_per_tensor_quantized_tensor %arg1, {{.*}} -> !torch.vtensor<[3,2,3,3],!torch.qint8>
// CHECK: %[[ACC:.*]] = torch.aten.convolution %[[X]], %[[W]], %none{{[_0-9]*}}, {{.*}} -> !torch.vtensor<[1,3,5,5],si32>
// CHECK: torch.aten.add.Tensor %[[ACC]]
// CHECK: torch.vtensor.literal(dense<{{.*}}> : tensor<3xf32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qlinear_conv_linalg(%arg0: !torch.vtensor<[1,2,5,5],si8>, %arg1: !torch.vtensor<[3,2,3,3],si8>, %arg2: !torch.vtensor<[3],si32>) -> !torch.vtensor<[1,3,5,5],si8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %xs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %xz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %ws = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[2.500000e-01, 1.250000e-01, 1.000000e+00]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %wz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %ys = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %yz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %0 = torch.operator "onnx.QLinearConv"(%arg0, %xs, %xz, %arg1, %ws, %wz, %ys, %yz, %arg2) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,2,5,5],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[3,2,3,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[1,3,5,5],si8>
    return %0 : !torch.vtensor<[1,3,5,5],si8>
  }
}

// -----

// A 1-D ConvInteger: torch-mlir has no quantized 1-D convolution, so the int32 form; the
// per-channel weight zero point is shaped [M, 1, 1].
// CHECK-LABEL: func.func @conv_integer_1d
// CHECK-NOT: quantized
// CHECK: torch.aten.reshape %{{.*}} -> !torch.vtensor<[4,1,1],si32>
// CHECK: torch.aten.convolution %{{.*}}, %{{.*}}, %none{{[_0-9]*}}, {{.*}} : !torch.vtensor<[1,2,6],si32>, !torch.vtensor<[4,2,3],si32>, {{.*}} -> !torch.vtensor<[1,4,4],si32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @conv_integer_1d(%arg0: !torch.vtensor<[1,2,6],ui8>, %arg1: !torch.vtensor<[4,2,3],ui8>, %arg2: !torch.vtensor<[],ui8>, %arg3: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[1,4,4],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %0 = torch.operator "onnx.ConvInteger"(%arg0, %arg1, %arg2, %arg3) : (!torch.vtensor<[1,2,6],ui8>, !torch.vtensor<[4,2,3],ui8>, !torch.vtensor<[],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[1,4,4],si32>
    return %0 : !torch.vtensor<[1,4,4],si32>
  }
}
