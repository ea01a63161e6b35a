// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// TensorScatter since 24, linear: update rows gathered at s - write_indices[b], the rest kept.
// CHECK-LABEL: func.func @tensor_scatter_linear
func.func @tensor_scatter_linear(%past: !torch.vtensor<[?,2,8,4],f32>, %update: !torch.vtensor<[?,2,1,4],f32>, %index: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,2,8,4],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  // CHECK: torch.aten.sub.Tensor {{.*}} -> !torch.vtensor<[?,1,8,1],si64>
  // CHECK: torch.aten.gather %arg1, {{.*}} -> !torch.vtensor<[?,2,8,4],f32>
  // CHECK: torch.aten.where.self {{.*}}, %arg0 : {{.*}} -> !torch.vtensor<[?,2,8,4],f32>
  %0 = torch.operator "onnx.TensorScatter"(%past, %update, %index) : (!torch.vtensor<[?,2,8,4],f32>, !torch.vtensor<[?,2,1,4],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,2,8,4],f32>
  return %0 : !torch.vtensor<[?,2,8,4],f32>
}

// -----

// Circular, sequence axis 1: positions wrap modulo the cache length.
// CHECK-LABEL: func.func @tensor_scatter_circular_onnx_dialect
module attributes {onnx.opset_version = 24 : i64} {
  func.func @tensor_scatter_circular_onnx_dialect(%past: tensor<2x4x3xf32>, %update: tensor<2x2x3xf32>, %index: tensor<2xi64>) -> tensor<2x4x3xf32> {
    // CHECK: torch.aten.remainder.Scalar
    // CHECK: torch.aten.gather
    %0 = "onnx.TensorScatter"(%past, %update, %index) {axis = 1 : si64, mode = "circular"} : (tensor<2x4x3xf32>, tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<2x4x3xf32>
    return %0 : tensor<2x4x3xf32>
  }
}
