// Opt-tool behaviour: -o, bytecode, IR printing after each pass, textual pipelines, stdin.
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch-pipeline -o %t.mlir && FileCheck %s < %t.mlir
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch-pipeline --emit-bytecode -o %t.mlirbc
// RUN: onnx-mlir-opt %t.mlirbc | FileCheck %s
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch --convert-function-types-to-torch-types --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch-pipeline --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s
// RUN: cat %s | onnx-mlir-opt - --convert-onnx-to-torch-pipeline | FileCheck %s
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch-pipeline --backend-legal-ops=aten.abs | FileCheck %s

// CHECK: func.func @main_graph(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: torch.aten.abs %arg0

// PRINT: IR Dump After convert-onnx-to-torch
// PRINT: torch.aten.abs
// PRINT: IR Dump After convert-function-types-to-torch-types
module {
  func.func @main_graph(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "onnx.Abs"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
