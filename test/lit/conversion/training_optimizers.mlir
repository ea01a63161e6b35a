// ONNX preview training optimizers (domain ai.onnx.preview.training, version 1): elementwise
// updates with R and T as 0-d tensors.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Nesterov momentum: V' = alpha V + (beta if T > 0 else 1) G', X' = X - R (G' + alpha V').
// CHECK-LABEL: func.func @nesterov_momentum
func.func @nesterov_momentum(%r: !torch.vtensor<[],f32>, %t: !torch.vtensor<[],si64>, %x: !torch.vtensor<[3],f32>, %g: !torch.vtensor<[3],f32>, %v: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  // CHECK: %[[STARTED:.*]] = torch.aten.gt.Scalar %arg1, %{{.*}} : !torch.vtensor<[],si64>, !torch.int -> !torch.vtensor<[],i1>
  // CHECK: %[[BETA:.*]] = torch.aten.where.ScalarOther %[[STARTED]]
  // CHECK: %[[NORM:.*]] = torch.aten.mul.Scalar %arg2
  // CHECK: %[[REG:.*]] = torch.aten.add.Tensor %[[NORM]], %arg3
  // CHECK: %[[DECAYED:.*]] = torch.aten.mul.Scalar %arg4
  // CHECK: %[[PUSH:.*]] = torch.aten.mul.Tensor %[[REG]], %[[BETA]]
  // CHECK: %[[V:.*]] = torch.aten.add.Tensor %[[DECAYED]], %[[PUSH]]
  // CHECK: %[[AHEAD:.*]] = torch.aten.mul.Scalar %[[V]]
  // CHECK: %[[DIRECTION:.*]] = torch.aten.add.Tensor %[[REG]], %[[AHEAD]]
  // CHECK: %[[STEP:.*]] = torch.aten.mul.Tensor %[[DIRECTION]], %arg0 : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>
  // CHECK: %[[X:.*]] = torch.aten.sub.Tensor %arg2, %[[STEP]]
  // CHECK: return %[[X]], %[[V]]
  %0:2 = torch.operator "ai.onnx.preview.training.Momentum"(%r, %t, %x, %g, %v) {torch.onnx.alpha = 0.899999976 : f32, torch.onnx.beta = 8.000000e-01 : f32, torch.onnx.mode = "nesterov", torch.onnx.norm_coefficient = 0.00999999977 : f32} : (!torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// Adagrad of two tensors: inputs R, T, X1, X2, G1, G2, H1, H2; outputs X1', X2', H1', H2'.
// CHECK-LABEL: func.func @adagrad_two_tensors
func.func @adagrad_two_tensors(%r: !torch.vtensor<[],f32>, %t: !torch.vtensor<[],si64>, %x1: !torch.vtensor<[2],f32>, %x2: !torch.vtensor<[?,4],f32>, %g1: !torch.vtensor<[2],f32>, %g2: !torch.vtensor<[?,4],f32>, %h1: !torch.vtensor<[2],f32>, %h2: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>) attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  // R / (1 + T * decay_factor)
  // CHECK: %[[T:.*]] = torch.aten.to.dtype %arg1
  // CHECK: %[[TD:.*]] = torch.aten.mul.Scalar %[[T]]
  // CHECK: %[[D:.*]] = torch.aten.add.Scalar %[[TD]]
  // CHECK: %[[RATE:.*]] = torch.aten.div.Tensor %arg0, %[[D]] : !torch.vtensor<[],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[],f32>
  // CHECK: torch.aten.add.Tensor %{{.*}}, %arg4
  // CHECK: %[[H1:.*]] = torch.aten.add.Tensor %arg6
  // CHECK: torch.aten.sqrt %[[H1]]
  // CHECK: torch.aten.add.Tensor %{{.*}}, %arg5
  // CHECK: %[[H2:.*]] = torch.aten.add.Tensor %arg7, {{.*}} -> !torch.vtensor<[?,4],f32>
  // CHECK: %[[X2:.*]] = torch.aten.sub.Tensor %arg3
  // CHECK: return %{{.*}}, %[[X2]], %[[H1]], %[[H2]]
  %0:4 = torch.operator "ai.onnx.preview.training.Adagrad"(%r, %t, %x1, %x2, %g1, %g2, %h1, %h2) {torch.onnx.decay_factor = 1.000000e-01 : f32, torch.onnx.epsilon = 9.99999974E-6 : f32, torch.onnx.norm_coefficient = 0.00999999977 : f32} : (!torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>)
  return %0#0, %0#1, %0#2, %0#3 : !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[?,4],f32>
}

// -----

// Adam: the bias-corrected rate R sqrt(1 - beta^T) / (1 - alpha^T) from T > 0 on.
// CHECK-LABEL: func.func @adam_onnx_dialect
module attributes {onnx.opset_version = 21 : i64, onnx.opset_versions = {ai.onnx.preview.training = 1 : i64}} {
  func.func @adam_onnx_dialect(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<3xf32>, %g: tensor<3xf32>, %v: tensor<3xf32>, %h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    // CHECK: %[[BETA_T:.*]] = torch.aten.pow.Scalar %{{.*}}, %{{.*}} : !torch.float, !torch.vtensor<[],f32> -> !torch.vtensor<[],f32>
    // CHECK: torch.aten.rsub.Scalar %[[BETA_T]]
    // CHECK: torch.aten.sqrt
    // CHECK: torch.aten.pow.Scalar
    // CHECK: %[[CORRECTED:.*]] = torch.aten.div.Tensor
    // CHECK: %[[RATE:.*]] = torch.aten.where.self %{{.*}}, %[[CORRECTED]], %{{.*}} : !torch.vtensor<[],i1>
    // CHECK: torch.aten.mul.Tensor %{{.*}}, %[[RATE]]
    // (1 - norm_coefficient_post) X'
    // CHECK: torch.constant.float 0.94999999925494194
    %0:3 = "onnx.Custom"(%r, %t, %x, %g, %v, %h) {domain_name = "ai.onnx.preview.training", function_name = "Adam", alpha = 0.899999976 : f32, beta = 8.000000e-01 : f32, epsilon = 1.000000e-03 : f32, norm_coefficient = 0.00999999977 : f32, norm_coefficient_post = 5.000000e-02 : f32} : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
