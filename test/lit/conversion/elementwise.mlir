// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Both spellings, binary ops at opset >= 7 (multidirectional broadcasting).

// CHECK-LABEL: func.func @add_torch_onnx
func.func @add_torch_onnx(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  // CHECK: %[[ONE:.*]] = torch.constant.int 1
  // CHECK: torch.aten.add.Tensor %arg0, %arg1, %[[ONE]] : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  %0 = torch.operator "onnx.Add"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK-LABEL: func.func @add_onnx_dialect
// CHECK: %[[B:.*]] = builtin.unrealized_conversion_cast %arg1 : tensor<?x3xf32> to !torch.vtensor<[?,3],f32>
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<2x3xf32> to !torch.vtensor<[2,3],f32>
// CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %[[A]], %[[B]], %{{.*}} : !torch.vtensor<[2,3],f32>, !torch.vtensor<[?,3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
// CHECK: builtin.unrealized_conversion_cast %[[SUM]] : !torch.vtensor<[2,3],f32> to tensor<2x3xf32>
module attributes {onnx.opset_version = 17 : i64} {
  func.func @add_onnx_dialect(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) -> tensor<2x3xf32> {
    %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}

// -----

// CHECK-LABEL: func.func @sub_mul
func.func @sub_mul(%a: !torch.vtensor<[4],si64>, %b: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[D:.*]] = torch.aten.sub.Tensor %arg0, %arg1, %{{.*}} : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[4],si64>
  // CHECK: torch.aten.mul.Tensor %[[D]], %arg1 : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64> -> !torch.vtensor<[4],si64>
  %0 = torch.operator "onnx.Sub"(%a, %b) : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64>
  %1 = torch.operator "onnx.Mul"(%0, %b) : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64>
  return %1 : !torch.vtensor<[4],si64>
}

// -----

// Float Div is true division; integer Div truncates toward zero.
// CHECK-LABEL: func.func @div
func.func @div(%a: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>, %i: !torch.vtensor<[4],si32>, %j: !torch.vtensor<[4],si32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  // CHECK: torch.aten.div.Tensor %arg0, %arg1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  // CHECK: %[[TRUNC:.*]] = torch.constant.str "trunc"
  // CHECK: torch.aten.div.Tensor_mode %arg2, %arg3, %[[TRUNC]] : !torch.vtensor<[4],si32>, !torch.vtensor<[4],si32>, !torch.str -> !torch.vtensor<[4],si32>
  %0 = torch.operator "onnx.Div"(%a, %b) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %1 = torch.operator "onnx.Div"(%i, %j) : (!torch.vtensor<[4],si32>, !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],si32>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],si32>
}

// -----

// Opset 6 (since_version 1 and 6 form): `broadcast=1, axis=1` puts B's dims at A's dim 1.
// CHECK-LABEL: func.func @add_legacy_axis
func.func @add_legacy_axis(%a: !torch.vtensor<[2,3,4,5],f32>, %b: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[LAST:.*]] = torch.constant.int -1
  // CHECK: %[[B:.*]] = torch.aten.unsqueeze %arg1, %[[LAST]] : !torch.vtensor<[3,4],f32>, !torch.int -> !torch.vtensor<[3,4,1],f32>
  // CHECK: torch.aten.add.Tensor %arg0, %[[B]], %{{.*}} : !torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4,1],f32>, !torch.int -> !torch.vtensor<[2,3,4,5],f32>
  %0 = torch.operator "onnx.Add"(%a, %b) {torch.onnx.broadcast = 1 : si64, torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}

// -----

// Opset 6 without axis: suffix matching, which is numpy's rule; ONNX dialect spelling.
// CHECK-LABEL: func.func @mul_legacy_suffix
// CHECK-NOT: torch.aten.unsqueeze
// CHECK: torch.aten.mul.Tensor %{{.*}}, %{{.*}} : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3],f32>
module attributes {onnx.opset_version = 6 : i64} {
  func.func @mul_legacy_suffix(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = "onnx.Mul"(%a, %b) {broadcast = 1 : si64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}

// -----

// Opset 6, Sub and Div with axis 0.
// CHECK-LABEL: func.func @sub_div_legacy_axis0
func.func @sub_div_legacy_axis0(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: torch.aten.unsqueeze %arg1, %{{.*}} -> !torch.vtensor<[2,1],f32>
  // CHECK: torch.aten.sub.Tensor
  // CHECK: torch.aten.unsqueeze %arg1, %{{.*}} -> !torch.vtensor<[2,1],f32>
  // CHECK: torch.aten.div.Tensor
  %0 = torch.operator "onnx.Sub"(%a, %b) {torch.onnx.broadcast = 1 : si64, torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = torch.operator "onnx.Div"(%0, %b) {torch.onnx.broadcast = 1 : si64, torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],f32>
  return %1 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK-LABEL: func.func @unary
func.func @unary(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[ABS:.*]] = torch.aten.abs %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
  // CHECK: %[[NEG:.*]] = torch.aten.neg %[[ABS]]
  // CHECK: %[[EXP:.*]] = torch.aten.exp %[[NEG]]
  // CHECK: %[[LOG:.*]] = torch.aten.log %[[EXP]]
  // CHECK: %[[SQRT:.*]] = torch.aten.sqrt %[[LOG]]
  // CHECK: %[[REC:.*]] = torch.aten.reciprocal %[[SQRT]]
  // CHECK: %[[FLOOR:.*]] = torch.aten.floor %[[REC]]
  // CHECK: %[[CEIL:.*]] = torch.aten.ceil %[[FLOOR]]
  // CHECK: %[[ROUND:.*]] = torch.aten.round %[[CEIL]]
  // CHECK: return %[[ROUND]]
  %0 = torch.operator "onnx.Abs"(%x) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %1 = torch.operator "onnx.Neg"(%0) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %2 = torch.operator "onnx.Exp"(%1) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %3 = torch.operator "onnx.Log"(%2) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %4 = torch.operator "onnx.Sqrt"(%3) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %5 = torch.operator "onnx.Reciprocal"(%4) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %6 = torch.operator "onnx.Floor"(%5) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %7 = torch.operator "onnx.Ceil"(%6) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %8 = torch.operator "onnx.Round"(%7) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %9 = torch.operator "onnx.Identity"(%8) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %9 : !torch.vtensor<[?,4],f32>
}

// -----

// The ONNX dialect spelling of unary ops: signless i64 becomes si64. An integer Neg is a
// subtraction from zero (torch-mlir's Linalg aten.neg of integers goes through f32).
// CHECK-LABEL: func.func @unary_onnx_dialect
// CHECK: %[[ABS:.*]] = torch.aten.abs %{{.*}} : !torch.vtensor<[3],si64> -> !torch.vtensor<[3],si64>
// CHECK: %[[ZERO:.*]] = torch.vtensor.literal(dense<0> : tensor<si64>) : !torch.vtensor<[],si64>
// CHECK: torch.aten.sub.Tensor %[[ZERO]], %[[ABS]], %{{.*}} : !torch.vtensor<[],si64>, !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3],si64>
func.func @unary_onnx_dialect(%x: tensor<3xi64>) -> tensor<3xi64> {
  %0 = "onnx.Abs"(%x) : (tensor<3xi64>) -> tensor<3xi64>
  %1 = "onnx.Neg"(%0) : (tensor<3xi64>) -> tensor<3xi64>
  return %1 : tensor<3xi64>
}
