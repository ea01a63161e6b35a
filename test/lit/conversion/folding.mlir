// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// The TorchScript exporter's broadcast target `Where(Equal(shape, -ones), ones, shape)` on a
// constant stored as a resource blob (how the importers store raw_data): every node of the chain
// becomes a literal, so Expand gets constant sizes and no aten.item is left for the backends.
// CHECK-LABEL: func.func @mask_broadcast_chain
// CHECK-NOT: torch.aten.eq.Tensor
// CHECK-NOT: torch.aten.where.self
// CHECK-NOT: torch.aten.item
// CHECK: %[[TARGET:.*]] = torch.vtensor.literal(dense<[2, 1, 5, 5]> : tensor<4xsi64>) : !torch.vtensor<[4],si64>
// CHECK: torch.aten.broadcast_to %arg0, %{{.*}} : !torch.vtensor<[2,1,1,5],si64>, !torch.list<int> -> !torch.vtensor<[2,1,5,5],si64>
func.func @mask_broadcast_chain(%mask: !torch.vtensor<[2,1,1,5],si64>) -> !torch.vtensor<[2,1,5,5],si64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %shape = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<shape_blob> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %rank = torch.operator "onnx.Constant"() {torch.onnx.value = dense<4> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %ones = torch.operator "onnx.ConstantOfShape"(%rank) {torch.onnx.value = dense<1> : tensor<1xsi64>} : (!torch.vtensor<[1],si64>) -> !torch.vtensor<[4],si64>
  %minus = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %minus_ones = torch.operator "onnx.Mul"(%ones, %minus) : (!torch.vtensor<[4],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4],si64>
  %is_minus = torch.operator "onnx.Equal"(%shape, %minus_ones) : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],i1>
  %target = torch.operator "onnx.Where"(%is_minus, %ones, %shape) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64>
  %0 = torch.operator "onnx.Expand"(%mask, %target) : (!torch.vtensor<[2,1,1,5],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[2,1,5,5],si64>
  return %0 : !torch.vtensor<[2,1,5,5],si64>
}

{-#
  dialect_resources: {
    builtin: {
      shape_blob: "0x080000000200000000000000010000000000000005000000000000000500000000000000"
    }
  }
#-}

// -----

// Integer Div truncates toward zero and Mod follows the divisor's sign (fmod=0), as ONNX has them.
// CHECK-LABEL: func.func @integer_division
// CHECK: torch.vtensor.literal(dense<[-2, 2]> : tensor<2xsi64>)
// CHECK: torch.vtensor.literal(dense<[2, 1]> : tensor<2xsi64>)
func.func @integer_division() -> (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %x = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-7, 7]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %y = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[3, 3]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = torch.operator "onnx.Div"(%x, %y) : (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],si64>
  %1 = torch.operator "onnx.Mod"(%x, %y) : (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],si64>
  return %0, %1 : !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>
}

// -----

// Floating-point operations IEEE 754 defines to the last bit fold, in the operands' own type (the
// literal holds what any backend computes); Pow folds in float64 rounded once; functions IEEE leaves
// to the implementation (Exp) stay; data movement of floats folds.
// CHECK-LABEL: func.func @float_arithmetic
// CHECK-DAG: torch.vtensor.literal(dense<[6.250000e-02, 2.500000e-01]> : tensor<2xf32>)
// CHECK-DAG: torch.vtensor.literal(dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>)
// CHECK-DAG: torch.vtensor.literal(dense<4> : tensor<si64>)
// CHECK-DAG: torch.vtensor.literal(dense<3.000000e+00> : tensor<f32>)
// CHECK-NOT: torch.aten.mul.Tensor
// CHECK-NOT: torch.aten.pow
// CHECK-NOT: torch.aten.ceil
// CHECK: torch.aten.exp
// CHECK-NEXT: return
func.func @float_arithmetic() -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %x = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %0 = torch.operator "onnx.Mul"(%x, %x) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %i = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 0]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %1 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],f32>
  %n = torch.operator "onnx.Constant"() {torch.onnx.value = dense<16.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %half = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %root = torch.operator "onnx.Pow"(%n, %half) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
  %2 = torch.operator "onnx.Cast"(%root) {torch.onnx.to = 7 : si64} : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],si64>
  %q = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %3 = torch.operator "onnx.Ceil"(%q) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
  %4 = torch.operator "onnx.Exp"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[2],f32>
}

// -----

// A reversed Slice (step -1, end INT64_MIN + 1, as the TorchScript exporter writes a flip of pads)
// folds to the reversed rows, not to an empty tensor; Transpose and Reshape of it fold too.
// CHECK-LABEL: func.func @reversed_slice
// CHECK-NOT: torch.aten.flip
// CHECK-NOT: torch.aten.permute
// CHECK: torch.vtensor.literal(dense<[6, 4, 2, 0, 7, 5, 3, 1]> : tensor<8xsi64>)
func.func @reversed_slice() -> !torch.vtensor<[8],si64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %data = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[[0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xsi64>} : () -> !torch.vtensor<[4,2],si64>
  %start = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %end = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-9223372036854775807> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %axis = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %step = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %reversed = torch.operator "onnx.Slice"(%data, %start, %end, %axis, %step) : (!torch.vtensor<[4,2],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[4,2],si64>
  %transposed = torch.operator "onnx.Transpose"(%reversed) {torch.onnx.perm = [1 : si64, 0 : si64]} : (!torch.vtensor<[4,2],si64>) -> !torch.vtensor<[2,4],si64>
  %flat = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Reshape"(%transposed, %flat) : (!torch.vtensor<[2,4],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[8],si64>
  return %0 : !torch.vtensor<[8],si64>
}

// -----

// Split of a literal folds to one literal per result: the equal pieces of opset 13 without
// `split`, and the lengths of a `split` input.
// CHECK-LABEL: func.func @split_literal
// CHECK-NOT: torch.aten.split
// CHECK-NOT: torch.aten.slice
// CHECK-DAG: torch.vtensor.literal(dense<[0, 1]> : tensor<2xsi64>)
// CHECK-DAG: torch.vtensor.literal(dense<[2, 3]> : tensor<2xsi64>)
// CHECK-DAG: torch.vtensor.literal(dense<0> : tensor<1xsi64>)
// CHECK-DAG: torch.vtensor.literal(dense<[1, 2, 3]> : tensor<3xsi64>)
func.func @split_literal() -> (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[3],si64>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %x = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0, 1, 2, 3]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0:2 = torch.operator "onnx.Split"(%x) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[4],si64>) -> (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>)
  %lengths = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1, 3]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %1:2 = torch.operator "onnx.Split"(%x, %lengths) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[4],si64>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[1],si64>, !torch.vtensor<[3],si64>)
  return %0#0, %0#1, %1#0, %1#1 : !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[3],si64>
}

// -----

// From opset 18, `num_outputs` pieces of ceil(5 / 3) = 2 elements, the last one shorter.
// CHECK-LABEL: func.func @split_num_outputs
// CHECK-NOT: torch.aten.slice
// CHECK-DAG: torch.vtensor.literal(dense<[0, 1]> : tensor<2xsi64>)
// CHECK-DAG: torch.vtensor.literal(dense<[2, 3]> : tensor<2xsi64>)
// CHECK-DAG: torch.vtensor.literal(dense<4> : tensor<1xsi64>)
func.func @split_num_outputs() -> (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %x = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[0, 1, 2, 3, 4]> : tensor<5xsi64>} : () -> !torch.vtensor<[5],si64>
  %0:3 = torch.operator "onnx.Split"(%x) {torch.onnx.axis = 0 : si64, torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[5],si64>) -> (!torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>
}
