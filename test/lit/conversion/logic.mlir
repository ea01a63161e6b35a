// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @compare
func.func @compare(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  // CHECK: torch.aten.eq.Tensor %arg0, %arg1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3],i1>
  // CHECK: torch.aten.gt.Tensor %arg0, %arg1
  // CHECK: torch.aten.lt.Tensor %arg0, %arg1
  // CHECK: torch.aten.ge.Tensor %arg0, %arg1
  // CHECK: torch.aten.le.Tensor %arg0, %arg1
  %0 = torch.operator "onnx.Equal"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],i1>
  %1 = torch.operator "onnx.Greater"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],i1>
  %2 = torch.operator "onnx.Less"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],i1>
  %3 = torch.operator "onnx.GreaterOrEqual"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],i1>
  %4 = torch.operator "onnx.LessOrEqual"(%a, %b) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],i1>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>
}

// -----

// Opset 6: broadcast=1 with axis.
// CHECK-LABEL: func.func @compare_legacy
func.func @compare_legacy(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],i1> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[B:.*]] = torch.aten.unsqueeze %arg1, %{{.*}} -> !torch.vtensor<[2,1],f32>
  // CHECK: torch.aten.gt.Tensor %arg0, %[[B]]
  %0 = torch.operator "onnx.Greater"(%a, %b) {torch.onnx.broadcast = 1 : si64, torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],i1>
  return %0 : !torch.vtensor<[2,3],i1>
}

// -----

// CHECK-LABEL: func.func @logical
func.func @logical(%a: !torch.vtensor<[4],i1>, %b: !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  // CHECK: %[[AND:.*]] = torch.aten.logical_and %arg0, %arg1
  // CHECK: %[[OR:.*]] = torch.aten.logical_or %[[AND]], %arg1
  // CHECK: %[[XOR:.*]] = torch.aten.logical_xor %[[OR]], %arg1
  // CHECK: torch.aten.logical_not %[[XOR]]
  %0 = torch.operator "onnx.And"(%a, %b) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1>
  %1 = torch.operator "onnx.Or"(%0, %b) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1>
  %2 = torch.operator "onnx.Xor"(%1, %b) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1>
  %3 = torch.operator "onnx.Not"(%2) : (!torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1>
  return %3 : !torch.vtensor<[4],i1>
}

// -----

// CHECK-LABEL: func.func @bitwise
func.func @bitwise(%a: !torch.vtensor<[4],ui8>, %b: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[AND:.*]] = torch.aten.bitwise_and.Tensor %arg0, %arg1
  // CHECK: %[[OR:.*]] = torch.aten.bitwise_or.Tensor %[[AND]], %arg1
  // CHECK: %[[XOR:.*]] = torch.aten.bitwise_xor.Tensor %[[OR]], %arg1
  // CHECK: torch.aten.bitwise_not %[[XOR]]
  %0 = torch.operator "onnx.BitwiseAnd"(%a, %b) : (!torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>
  %1 = torch.operator "onnx.BitwiseOr"(%0, %b) : (!torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>
  %2 = torch.operator "onnx.BitwiseXor"(%1, %b) : (!torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>
  %3 = torch.operator "onnx.BitwiseNot"(%2) : (!torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>
  return %3 : !torch.vtensor<[4],ui8>
}

// -----

// A shift by y outside [0, 8) is 0: shift by y & 7, select 0 where that is not y.
// CHECK-LABEL: func.func @bit_shift_left
// CHECK: %[[AMOUNT:.*]] = torch.aten.bitwise_and.Scalar %arg1, %int7 : !torch.vtensor<[4],ui8>, !torch.int -> !torch.vtensor<[4],ui8>
// CHECK: %[[IN_RANGE:.*]] = torch.aten.eq.Tensor %arg1, %[[AMOUNT]] : !torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8> -> !torch.vtensor<[4],i1>
// CHECK: %[[ZEROS:.*]] = torch.aten.bitwise_and.Scalar %arg0, %int0 : !torch.vtensor<[2,4],ui8>, !torch.int -> !torch.vtensor<[2,4],ui8>
// CHECK: %[[SHIFTED:.*]] = torch.aten.bitwise_left_shift.Tensor %arg0, %[[AMOUNT]] : !torch.vtensor<[2,4],ui8>, !torch.vtensor<[4],ui8> -> !torch.vtensor<[2,4],ui8>
// CHECK: torch.aten.where.self %[[IN_RANGE]], %[[SHIFTED]], %[[ZEROS]] : !torch.vtensor<[4],i1>, !torch.vtensor<[2,4],ui8>, !torch.vtensor<[2,4],ui8> -> !torch.vtensor<[2,4],ui8>
func.func @bit_shift_left(%x: !torch.vtensor<[2,4],ui8>, %y: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[2,4],ui8> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.BitShift"(%x, %y) {torch.onnx.direction = "LEFT"} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[2,4],ui8>
  return %0 : !torch.vtensor<[2,4],ui8>
}

// -----

// Unsigned right shift: (x & 0x7f) >> y | (top bit of x) << (7 - y), right on backends that
// shift arithmetically too.
// CHECK-LABEL: func.func @bit_shift_right_unsigned
// CHECK: %[[AMOUNT:.*]] = torch.aten.bitwise_and.Scalar %arg1, %int7
// CHECK: %[[IN_RANGE:.*]] = torch.aten.eq.Tensor %arg1, %[[AMOUNT]]
// CHECK: %[[ZEROS:.*]] = torch.aten.bitwise_and.Scalar %arg0, %int0
// CHECK: %[[LOW:.*]] = torch.aten.bitwise_and.Scalar %arg0, %int127
// CHECK: %[[SHIFTED_LOW:.*]] = torch.aten.bitwise_right_shift.Tensor %[[LOW]], %[[AMOUNT]]
// CHECK: %[[TOP_SET:.*]] = torch.aten.ne.Tensor %arg0, %[[LOW]]
// CHECK: %[[ONES:.*]] = torch.aten.add.Scalar %[[ZEROS]], %int1
// CHECK: %[[TOP:.*]] = torch.aten.where.self %[[TOP_SET]], %[[ONES]], %[[ZEROS]]
// CHECK: %[[NOT:.*]] = torch.aten.bitwise_not %[[AMOUNT]]
// CHECK: %[[POSITION:.*]] = torch.aten.bitwise_and.Scalar %[[NOT]], %int7
// CHECK: %[[SHIFTED_TOP:.*]] = torch.aten.bitwise_left_shift.Tensor %[[TOP]], %[[POSITION]]
// CHECK: %[[SHIFTED:.*]] = torch.aten.bitwise_or.Tensor %[[SHIFTED_LOW]], %[[SHIFTED_TOP]]
// CHECK: torch.aten.where.self %[[IN_RANGE]], %[[SHIFTED]], %[[ZEROS]] : !torch.vtensor<[4],i1>, !torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8> -> !torch.vtensor<[4],ui8>
func.func @bit_shift_right_unsigned(%x: !torch.vtensor<[4],ui8>, %y: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.BitShift"(%x, %y) {torch.onnx.direction = "RIGHT"} : (!torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>
  return %0 : !torch.vtensor<[4],ui8>
}

// -----

// Signed right shift (opset 28): out of range shifts by 31, the sign fill.
// CHECK-LABEL: func.func @bit_shift_right_signed
// CHECK: %[[AMOUNT:.*]] = torch.aten.bitwise_and.Scalar %arg1, %int31 : !torch.vtensor<[4],si32>, !torch.int -> !torch.vtensor<[4],si32>
// CHECK: %[[IN_RANGE:.*]] = torch.aten.eq.Tensor %arg1, %[[AMOUNT]]
// CHECK: %[[CLAMPED:.*]] = torch.aten.where.ScalarOther %[[IN_RANGE]], %[[AMOUNT]], %int31{{.*}} : !torch.vtensor<[4],i1>, !torch.vtensor<[4],si32>, !torch.int -> !torch.vtensor<[4],si32>
// CHECK: %[[RESULT:.*]] = torch.aten.bitwise_right_shift.Tensor %arg0, %[[CLAMPED]] : !torch.vtensor<[4],si32>, !torch.vtensor<[4],si32> -> !torch.vtensor<[4],si32>
// CHECK: return %[[RESULT]]
func.func @bit_shift_right_signed(%x: !torch.vtensor<[4],si32>, %y: !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],si32> attributes {torch.onnx_meta.opset_version = 28 : si64} {
  %0 = torch.operator "onnx.BitShift"(%x, %y) {torch.onnx.direction = "RIGHT"} : (!torch.vtensor<[4],si32>, !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],si32>
  return %0 : !torch.vtensor<[4],si32>
}

// -----

// CHECK-LABEL: func.func @onnx_dialect
// CHECK: torch.aten.eq.Tensor %{{.*}}, %{{.*}} : !torch.vtensor<[3],si64>, !torch.vtensor<[3],si64> -> !torch.vtensor<[3],i1>
func.func @onnx_dialect(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi1> {
  %0 = "onnx.Equal"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
