// Dropout since 12 with run-time `ratio` and `training_mode`: a uniform draw makes the mask.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @dropout_runtime_training
func.func @dropout_runtime_training(%x: !torch.vtensor<[?,4],f32>, %r: !torch.vtensor<[],f32>, %t: !torch.vtensor<[],i1>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],i1>) attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[U:.*]] = torch.aten.uniform %arg0, {{.*}} -> !torch.vtensor<[?,4],f32>
  // CHECK: %[[KEPT:.*]] = torch.aten.ge.Tensor %[[U]], %arg1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[?,4],i1>
  // CHECK: %[[INFERENCE:.*]] = torch.aten.logical_not %arg2
  // CHECK: %[[MASK:.*]] = torch.aten.logical_or %[[KEPT]], %[[INFERENCE]]
  // CHECK: %[[KEEP:.*]] = torch.aten.rsub.Scalar %arg1
  // CHECK: %[[INVERSE:.*]] = torch.aten.reciprocal %[[KEEP]]
  // CHECK: %[[SCALE:.*]] = torch.aten.where.ScalarOther %arg2, %[[INVERSE]]
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %arg0, %[[SCALE]]
  // CHECK: %[[Y:.*]] = torch.aten.where.ScalarOther %[[MASK]], %[[SCALED]]
  // CHECK: return %[[Y]], %[[MASK]]
  %0:2 = torch.operator "onnx.Dropout"(%x, %r, %t) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],i1>)
  return %0#0, %0#1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],i1>
}

// -----

// A constant ratio of 0 is the identity, whatever the training mode.
// CHECK-LABEL: func.func @dropout_zero_ratio
func.func @dropout_zero_ratio(%x: !torch.vtensor<[3],f32>, %t: !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK-NOT: torch.aten.uniform
  // CHECK: return %arg0
  %r = torch.vtensor.literal(dense<0.0> : tensor<f32>) : !torch.vtensor<[],f32>
  %0 = torch.operator "onnx.Dropout"(%x, %r, %t) : (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Constant training with the default ratio 0.5: random.
// CHECK-LABEL: func.func @dropout_training_default_ratio_onnx_dialect
module attributes {onnx.opset_version = 13 : i64} {
  func.func @dropout_training_default_ratio_onnx_dialect(%x: tensor<3xf16>) -> tensor<3xf16> {
    %none = "onnx.NoValue"() {value} : () -> none
    %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    // CHECK: torch.vtensor.literal(dense<5.000000e-01> : tensor<f32>)
    // CHECK: torch.aten.uniform {{.*}} -> !torch.vtensor<[3],f32>
    // CHECK: torch.aten.mul.Tensor {{.*}} -> !torch.vtensor<[3],f16>
    %0 = "onnx.Dropout"(%x, %none, %t) : (tensor<3xf16>, none, tensor<i1>) -> tensor<3xf16>
    return %0 : tensor<3xf16>
  }
}
