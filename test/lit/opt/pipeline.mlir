// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-stablehlo | FileCheck %s --check-prefix=STABLEHLO

// The ONNX dialect spelling: signature, casts and entry point are gone.
// CHECK: module attributes {onnx.opset_version = 17 : i64}
// CHECK-NEXT: func.func @main_graph(%arg0: !torch.vtensor<[2,3],f32> {onnx.name = "a"}, %arg1: !torch.vtensor<[3],f32> {onnx.name = "b"}) -> (!torch.vtensor<[2,3],f32> {onnx.name = "y"})
// CHECK-NOT: unrealized_conversion_cast
// CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %arg0, %arg1
// CHECK: %[[EXP:.*]] = torch.aten.exp %[[SUM]]
// CHECK: return %[[EXP]] : !torch.vtensor<[2,3],f32>
// CHECK-NOT: onnx.EntryPoint
// LINALG-LABEL: func.func @main_graph(%arg0: tensor<2x3xf32> {onnx.name = "a"}
// LINALG: arith.addf
// LINALG: math.exp
// TOSA-LABEL: func.func @main_graph
// TOSA: tosa.add
// TOSA: tosa.exp
// STABLEHLO-LABEL: func.func @main_graph
// STABLEHLO: stablehlo.add
// STABLEHLO: stablehlo.exponential
module attributes {onnx.opset_version = 17 : i64} {
  func.func @main_graph(%arg0: tensor<2x3xf32> {onnx.name = "a"}, %arg1: tensor<3xf32> {onnx.name = "b"}) -> (tensor<2x3xf32> {onnx.name = "y"}) {
    %0 = "onnx.Add"(%arg0, %arg1) {onnx_node_name = "add0"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "onnx.Exp"(%0) {onnx_node_name = "exp0"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  "onnx.EntryPoint"() {func = @main_graph} : () -> ()
}

// -----

// The torch-ONNX spelling, with a dynamic dimension, as torch-mlir's importer writes it.
// CHECK-LABEL: func.func @torch_onnx(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32>
// CHECK: torch.aten.mul.Tensor %arg0, %arg0
// CHECK: torch.aten.neg
// LINALG-LABEL: func.func @torch_onnx(%arg0: tensor<?x3xf32>)
// LINALG: arith.mulf
// LINALG: arith.negf
// TOSA-LABEL: func.func @torch_onnx
// TOSA: tosa.mul
// TOSA: tosa.negate
// STABLEHLO-LABEL: func.func @torch_onnx
// STABLEHLO: stablehlo.multiply
// STABLEHLO: stablehlo.negate
func.func @torch_onnx(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "test"} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Mul"(%arg0, %arg0) : (!torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32>
  %1 = torch.operator "onnx.Neg"(%0) : (!torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32>
  return %1 : !torch.vtensor<[?,3],f32>
}
