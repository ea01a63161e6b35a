// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// HannWindow since 17: a literal size gives a literal window (periodic: 0.5 - 0.5 cos(2 pi n / 4)).
// CHECK-LABEL: func.func @hann_window
func.func @hann_window() -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[W:.*]] = torch.vtensor.literal(dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 5.000000e-01]> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  // CHECK: return %[[W]]
  %size = torch.vtensor.literal(dense<4> : tensor<si32>) : !torch.vtensor<[],si32>
  %0 = torch.operator "onnx.HannWindow"(%size) : (!torch.vtensor<[],si32>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// A run-time size with a declared result: the declared length (no aten.item for TOSA and StableHLO).
// CHECK-LABEL: func.func @blackman_window_declared_size
func.func @blackman_window_declared_size(%size: !torch.vtensor<[],si64>) -> !torch.vtensor<[3],f64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: torch.vtensor.literal({{.*}}) : !torch.vtensor<[3],f64>
  // CHECK-NOT: torch.aten.item
  %0 = torch.operator "onnx.BlackmanWindow"(%size) {torch.onnx.output_datatype = 11 : si64, torch.onnx.periodic = 0 : si64} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[3],f64>
  return %0 : !torch.vtensor<[3],f64>
}

// -----

// A run-time size and a dynamic result: the size is read (aten.item, Linalg only).
// CHECK-LABEL: func.func @hamming_window_runtime_onnx_dialect
module attributes {onnx.opset_version = 17 : i64} {
  func.func @hamming_window_runtime_onnx_dialect(%size: tensor<i32>) -> tensor<?xf32> {
    // CHECK: torch.aten.item
    // CHECK: torch.aten.arange
    // CHECK: torch.aten.cos
    %0 = "onnx.HammingWindow"(%size) : (tensor<i32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}

// -----

// MelWeightMatrix since 17 with literal scalars: a literal [dft_length / 2 + 1, num_mel_bins].
// CHECK-LABEL: func.func @mel_weight_matrix_literal
func.func @mel_weight_matrix_literal() -> !torch.vtensor<[9,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: torch.vtensor.literal({{.*}}) : !torch.vtensor<[9,8],f32>
  %bins = torch.vtensor.literal(dense<8> : tensor<si32>) : !torch.vtensor<[],si32>
  %length = torch.vtensor.literal(dense<16> : tensor<si32>) : !torch.vtensor<[],si32>
  %rate = torch.vtensor.literal(dense<8192> : tensor<si32>) : !torch.vtensor<[],si32>
  %low = torch.vtensor.literal(dense<0.0> : tensor<f32>) : !torch.vtensor<[],f32>
  %high = torch.vtensor.literal(dense<4096.0> : tensor<f32>) : !torch.vtensor<[],f32>
  %0 = torch.operator "onnx.MelWeightMatrix"(%bins, %length, %rate, %low, %high) : (!torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[9,8],f32>
  return %0 : !torch.vtensor<[9,8],f32>
}

// -----

// Run-time scalars: the bin edges and triangles as tensor ops, the shape from the declared result.
// CHECK-LABEL: func.func @mel_weight_matrix_runtime
func.func @mel_weight_matrix_runtime(%bins: !torch.vtensor<[],si32>, %length: !torch.vtensor<[],si32>, %rate: !torch.vtensor<[],si32>, %low: !torch.vtensor<[],f32>, %high: !torch.vtensor<[],f32>) -> !torch.vtensor<[9,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: torch.aten.floor {{.*}} -> !torch.vtensor<[10],f64>
  // CHECK: torch.aten.where.self {{.*}} -> !torch.vtensor<[9,8],f64>
  // CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[9,8],f32>
  %0 = torch.operator "onnx.MelWeightMatrix"(%bins, %length, %rate, %low, %high) : (!torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[9,8],f32>
  return %0 : !torch.vtensor<[9,8],f32>
}
