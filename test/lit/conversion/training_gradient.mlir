// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Gradient (ai.onnx.preview.training 1) names its y and xs: the importer names a graph's inputs
// (`onnx.name`) and the results of its nodes (`onnx_output_names`) when it holds a Gradient.
// d = (a + b) * a with b broadcast: dd/da = (a + b) + a (a used twice), dd/db = sum over rows of a.

// CHECK-LABEL: func.func @gradient_of_add_and_mul
// CHECK: %[[C:.*]] = torch.aten.add.Tensor %arg0, %arg1
// CHECK: %[[SEED:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[BY_C:.*]] = torch.aten.mul.Tensor %[[SEED]], %arg0
// CHECK: %[[BY_A:.*]] = torch.aten.mul.Tensor %[[SEED]], %[[C]]
// CHECK: %[[DB:.*]] = torch.aten.sum.dim_IntList %[[BY_C]], {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[DA:.*]] = torch.aten.add.Tensor %[[BY_A]], %[[BY_C]]
// CHECK: return %[[DA]], %[[DB]]
func.func @gradient_of_add_and_mul(%a: !torch.vtensor<[2,3],f32> {onnx.name = "a"}, %b: !torch.vtensor<[3],f32> {onnx.name = "b"}) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  %c = torch.operator "onnx.Add"(%a, %b) {onnx_output_names = ["c"]} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32>
  %d = torch.operator "onnx.Mul"(%c, %a) {onnx_output_names = ["d"]} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %g:2 = torch.operator "ai.onnx.preview.training.Gradient"(%a, %b) {torch.onnx.xs = ["a", "b"], torch.onnx.y = "d"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>)
  return %g#0, %g#1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>
}

// -----

// ONNX dialect; an intermediate tensor (h) as an x, and an x y does not depend on past h (zeros).
// y = ReduceSum(Relu(h), axes=[1], keepdims=0): dy/dh = the seed put back at axis 1, broadcast, masked.

// CHECK-LABEL: func.func @gradient_by_intermediate_tensor
// CHECK: %[[H:.*]] = torch.aten.matmul
// CHECK: %[[SEED:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[KEPT:.*]] = torch.aten.unsqueeze %[[SEED]], %int1{{.*}} -> !torch.vtensor<[3,1],f32>
// CHECK: %[[SPREAD:.*]] = torch.aten.broadcast_to %[[KEPT]], {{.*}} -> !torch.vtensor<[3,5],f32>
// CHECK: %[[POSITIVE:.*]] = torch.aten.gt.Scalar
// CHECK: %[[MASK:.*]] = torch.aten.to.dtype %[[POSITIVE]]
// CHECK: %[[DH:.*]] = torch.aten.mul.Tensor %[[SPREAD]], %[[MASK]]
// CHECK: %[[DX:.*]] = torch.aten.full {{.*}}float0{{.*}} -> !torch.vtensor<[3,4],f32>
// CHECK: builtin.unrealized_conversion_cast %[[DH]]
// CHECK: builtin.unrealized_conversion_cast %[[DX]]
module attributes {onnx.opset_import = {ai.onnx = 17 : i64, ai.onnx.preview.training = 1 : i64}} {
  func.func @gradient_by_intermediate_tensor(%x: tensor<3x4xf32> {onnx.name = "x"}, %w: tensor<4x5xf32> {onnx.name = "w"}) -> (tensor<3x5xf32>, tensor<3x4xf32>) {
    %axes = "onnx.Constant"() {value = dense<1> : tensor<1xi64>, onnx_output_names = ["axes"]} : () -> tensor<1xi64>
    %h = "onnx.MatMul"(%x, %w) {onnx_output_names = ["h"]} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
    %r = "onnx.Relu"(%h) {onnx_output_names = ["r"]} : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %y = "onnx.ReduceSum"(%r, %axes) {keepdims = 0 : si64, onnx_output_names = ["y"]} : (tensor<3x5xf32>, tensor<1xi64>) -> tensor<3xf32>
    %g:2 = "onnx.Custom"(%h, %x) {domain_name = "ai.onnx.preview.training", function_name = "Gradient", onnx_node_name = "grad", xs = ["h", "x"], y = "y"} : (tensor<3x5xf32>, tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x4xf32>)
    return %g#0, %g#1 : tensor<3x5xf32>, tensor<3x4xf32>
  }
}

// -----

// MatMul, Transpose, Reshape, Pow with a constant exponent (a Constant node, still unconverted
// when the Gradient is): dp/dx = 2 x; back through Reshape and the inverse permutation [1, 2, 0].

// CHECK-LABEL: func.func @gradient_through_shapes_and_pow
// CHECK: torch.aten.mm {{.*}} -> !torch.vtensor<[4,6],f32>
// CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[4,2,3],f32>
// CHECK: torch.aten.permute {{.*}} -> !torch.vtensor<[2,3,4],f32>
// CHECK: %[[SLOPE:.*]] = torch.aten.pow.Tensor_Scalar %arg0, %float1.0
// CHECK: torch.aten.mul.Scalar %[[SLOPE]], %float2.0
func.func @gradient_through_shapes_and_pow(%x: !torch.vtensor<[2,3,4],f32> {onnx.name = "x"}, %w: !torch.vtensor<[6,2],f32> {onnx.name = "w"}) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  %two = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.0> : tensor<f32>, onnx_output_names = ["two"]} : () -> !torch.vtensor<[],f32>
  %shape = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[4, 6]> : tensor<2xsi64>, onnx_output_names = ["shape"]} : () -> !torch.vtensor<[2],si64>
  %p = torch.operator "onnx.Pow"(%x, %two) {onnx_output_names = ["p"]} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3,4],f32>
  %t = torch.operator "onnx.Transpose"(%p) {torch.onnx.perm = [2 : si64, 0 : si64, 1 : si64], onnx_output_names = ["t"]} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,2,3],f32>
  %r = torch.operator "onnx.Reshape"(%t, %shape) {onnx_output_names = ["r"]} : (!torch.vtensor<[4,2,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,6],f32>
  %y = torch.operator "onnx.MatMul"(%r, %w) {onnx_output_names = ["y"]} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[6,2],f32>) -> !torch.vtensor<[4,2],f32>
  %g:2 = torch.operator "ai.onnx.preview.training.Gradient"(%x, %w) {torch.onnx.xs = ["x", "w"], torch.onnx.y = "y"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,2],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,2],f32>)
  return %g#0, %g#1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,2],f32>
}
