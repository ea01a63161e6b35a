// The four passes one at a time, in command-line order.
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch | FileCheck %s --check-prefix=OPS
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch --convert-function-types-to-torch-types | FileCheck %s --check-prefix=SIG
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch --convert-function-types-to-torch-types --finalize-torch-type-conversion | FileCheck %s --check-prefix=FINAL
// RUN: onnx-mlir-opt %s --erase-onnx-entry-point | FileCheck %s --check-prefix=ENTRY

// OPS: func.func @main_graph(%arg0: tensor<4xf32>) -> tensor<4xf32>
// OPS: %[[IN:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<4xf32> to !torch.vtensor<[4],f32>
// OPS: %[[ABS:.*]] = torch.aten.abs %[[IN]]
// OPS: %[[OUT:.*]] = builtin.unrealized_conversion_cast %[[ABS]] : !torch.vtensor<[4],f32> to tensor<4xf32>
// OPS: return %[[OUT]] : tensor<4xf32>
// OPS: "onnx.EntryPoint"

// SIG: func.func @main_graph(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// SIG: builtin.unrealized_conversion_cast %arg0 : !torch.vtensor<[4],f32> to tensor<4xf32>
// SIG: torch.aten.abs
// SIG: %[[RESULT:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<4xf32> to !torch.vtensor<[4],f32>
// SIG: return %[[RESULT]] : !torch.vtensor<[4],f32>

// FINAL: func.func @main_graph(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// FINAL-NEXT: %[[ABS:.*]] = torch.aten.abs %arg0
// FINAL-NEXT: return %[[ABS]] : !torch.vtensor<[4],f32>
// FINAL: "onnx.EntryPoint"

// ENTRY: "onnx.Abs"
// ENTRY-NOT: onnx.EntryPoint
module {
  func.func @main_graph(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "onnx.Abs"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  "onnx.EntryPoint"() {func = @main_graph} : () -> ()
}
