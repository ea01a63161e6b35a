// onnxruntime's contrib activations and FusedMatMul (domain com.microsoft).
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @gelus
func.func @gelus(%x: !torch.vtensor<[2,?,8],f32>, %b: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[NONE:.*]] = torch.constant.str "none"
  // CHECK: %[[GELU:.*]] = torch.aten.gelu %arg0, %[[NONE]] : !torch.vtensor<[2,?,8],f32>, !torch.str -> !torch.vtensor<[2,?,8],f32>
  %0 = torch.operator "com.microsoft.Gelu"(%x) : (!torch.vtensor<[2,?,8],f32>) -> !torch.vtensor<[2,?,8],f32>
  // CHECK: %[[BIASED:.*]] = torch.aten.add.Tensor %arg0, %arg1, %{{.*}} : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[8],f32>, !torch.int -> !torch.vtensor<[2,?,8],f32>
  // CHECK: %[[BIAS_GELU:.*]] = torch.aten.gelu %[[BIASED]], %{{.*}} : !torch.vtensor<[2,?,8],f32>, !torch.str
  %1 = torch.operator "com.microsoft.BiasGelu"(%x, %b) : (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,?,8],f32>
  // FastGelu is composed from tanh: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
  // CHECK: %[[X:.*]] = torch.aten.add.Tensor %arg0, %arg1
  // CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %[[X]], %[[X]]
  // CHECK: %[[CUBE:.*]] = torch.aten.mul.Tensor %[[SQUARE]], %[[X]]
  // CHECK: %[[C:.*]] = torch.constant.float 4.471500e-02
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[CUBE]], %[[C]]
  // CHECK: %[[INNER:.*]] = torch.aten.add.Tensor %[[X]], %[[SCALED]]
  // CHECK: %[[SQRT:.*]] = torch.constant.float 0.79788456080286541
  // CHECK: %[[ARG:.*]] = torch.aten.mul.Scalar %[[INNER]], %[[SQRT]]
  // CHECK: %[[TANH:.*]] = torch.aten.tanh %[[ARG]]
  // CHECK: %[[ONE_PLUS:.*]] = torch.aten.add.Scalar %[[TANH]]
  // CHECK: %[[HALF:.*]] = torch.aten.mul.Scalar %[[ONE_PLUS]]
  // CHECK: %[[FAST:.*]] = torch.aten.mul.Tensor %[[X]], %[[HALF]] : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32> -> !torch.vtensor<[2,?,8],f32>
  %2 = torch.operator "com.microsoft.FastGelu"(%x, %b) : (!torch.vtensor<[2,?,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,?,8],f32>
  // CHECK: %[[ALPHA:.*]] = torch.constant.float 1.500000e+00
  // CHECK: %[[AX:.*]] = torch.aten.mul.Scalar %arg0, %[[ALPHA]]
  // CHECK: %[[GATE:.*]] = torch.aten.sigmoid %[[AX]]
  // CHECK: %[[QUICK:.*]] = torch.aten.mul.Tensor %arg0, %[[GATE]]
  %3 = torch.operator "com.microsoft.QuickGelu"(%x) {torch.onnx.alpha = 1.500000e+00 : f32} : (!torch.vtensor<[2,?,8],f32>) -> !torch.vtensor<[2,?,8],f32>
  // CHECK: return %[[GELU]], %[[BIAS_GELU]], %[[FAST]], %[[QUICK]]
  return %0, %1, %2, %3 : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[2,?,8],f32>
}

// -----

// CHECK-LABEL: func.func @quick_gelu_default_alpha
func.func @quick_gelu_default_alpha(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: torch.constant.float 1.702000e+00
  %0 = torch.operator "com.microsoft.QuickGelu"(%x) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK-LABEL: func.func @bias_add
func.func @bias_add(%x: !torch.vtensor<[?,?,8],f32>, %b: !torch.vtensor<[8],f32>, %skip: !torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[?,?,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[BIASED:.*]] = torch.aten.add.Tensor %arg0, %arg1
  // CHECK: torch.aten.add.Tensor %[[BIASED]], %arg2, %{{.*}} -> !torch.vtensor<[?,?,8],f32>
  %0 = torch.operator "com.microsoft.BiasAdd"(%x, %b, %skip) : (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[?,?,8],f32>
  return %0 : !torch.vtensor<[?,?,8],f32>
}

// -----

// transBatchA moves dim 0 behind the batch dims ([1, 2, 0, 3]); with transB too, B's dim 0 goes last ([1, 2, 3, 0]).
// CHECK-LABEL: func.func @fused_matmul_trans_batch
func.func @fused_matmul_trans_batch(%a: !torch.vtensor<[4,2,3,5],f32>, %b: !torch.vtensor<[6,2,3,5],f32>) -> !torch.vtensor<[2,3,4,6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[PA:.*]] = torch.prim.ListConstruct %int1, %int2, %int0, %int3
  // CHECK: %[[A:.*]] = torch.aten.permute %arg0, %[[PA]] : !torch.vtensor<[4,2,3,5],f32>, !torch.list<int> -> !torch.vtensor<[2,3,4,5],f32>
  // CHECK: %[[PB:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
  // CHECK: %[[B:.*]] = torch.aten.permute %arg1, %[[PB]] : !torch.vtensor<[6,2,3,5],f32>, !torch.list<int> -> !torch.vtensor<[2,3,5,6],f32>
  // CHECK: %[[P:.*]] = torch.aten.matmul %[[A]], %[[B]] : {{.*}} -> !torch.vtensor<[2,3,4,6],f32>
  // CHECK: torch.aten.mul.Scalar %[[P]], %{{.*}} : !torch.vtensor<[2,3,4,6],f32>, !torch.float
  %0 = torch.operator "com.microsoft.FusedMatMul"(%a, %b) {torch.onnx.alpha = 5.000000e-01 : f32, torch.onnx.transBatchA = 1 : si64, torch.onnx.transBatchB = 1 : si64, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[4,2,3,5],f32>, !torch.vtensor<[6,2,3,5],f32>) -> !torch.vtensor<[2,3,4,6],f32>
  return %0 : !torch.vtensor<[2,3,4,6],f32>
}

// -----

// Batch dims not provably equal are broadcast first; the 3-D product is an aten.bmm.
// CHECK-LABEL: func.func @fused_matmul_dynamic_batch
func.func @fused_matmul_dynamic_batch(%a: !torch.vtensor<[?,4,5],f32>, %b: !torch.vtensor<[?,6,5],f32>) -> !torch.vtensor<[?,4,6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[B:.*]] = torch.aten.permute %arg1
  // CHECK: %[[BATCH:.*]] = torch.prim.max.int
  // CHECK: %[[LA:.*]] = torch.aten.broadcast_to %arg0
  // CHECK: %[[LB:.*]] = torch.aten.broadcast_to %[[B]]
  // CHECK: torch.aten.bmm %[[LA]], %[[LB]] : !torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,5,6],f32> -> !torch.vtensor<[?,4,6],f32>
  %0 = torch.operator "com.microsoft.FusedMatMul"(%a, %b) {torch.onnx.transB = 1 : si64} : (!torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,6,5],f32>) -> !torch.vtensor<[?,4,6],f32>
  return %0 : !torch.vtensor<[?,4,6],f32>
}

// -----

// CHECK-LABEL: func.func @fused_matmul_onnx_dialect
module attributes {onnx.opset_import = {ai.onnx = 17 : i64, com.microsoft = 1 : i64}} {
  func.func @fused_matmul_onnx_dialect(%a: tensor<?x4x5xf32>, %b: tensor<6x5xf32>) -> tensor<?x4x6xf32> {
    // CHECK: %[[B:.*]] = torch.aten.permute %{{.*}} -> !torch.vtensor<[5,6],f32>
    // CHECK: torch.aten.matmul %{{.*}}, %[[B]] : !torch.vtensor<[?,4,5],f32>, !torch.vtensor<[5,6],f32> -> !torch.vtensor<[?,4,6],f32>
    %0 = "onnx.Custom"(%a, %b) {domain_name = "com.microsoft", function_name = "FusedMatMul", transB = 1 : si64} : (tensor<?x4x5xf32>, tensor<6x5xf32>) -> tensor<?x4x6xf32>
    return %0 : tensor<?x4x6xf32>
  }
}
