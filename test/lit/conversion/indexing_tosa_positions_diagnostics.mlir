// On TOSA, a Compress or NonZero whose declared result leaves the count open is refused, naming the node.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @open_counts(%x: !torch.vtensor<[3,2],f32>, %c: !torch.vtensor<[3],i1>) -> (!torch.vtensor<[?,2],f32>, !torch.vtensor<[2,?],si64>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
    // CHECK: indexing_tosa_positions_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (Compress, domain 'ai.onnx', opset 13): the number of selected elements depends on the data; on tosa it must be fixed by the declared result type (TOSA needs static shapes)
    %0 = torch.operator "onnx.Compress"(%x, %c) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3],i1>) -> !torch.vtensor<[?,2],f32>
    // CHECK: indexing_tosa_positions_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (NonZero, domain 'ai.onnx', opset 13): the number of selected elements depends on the data
    %1 = torch.operator "onnx.NonZero"(%x) : (!torch.vtensor<[3,2],f32>) -> !torch.vtensor<[2,?],si64>
    return %0, %1 : !torch.vtensor<[?,2],f32>, !torch.vtensor<[2,?],si64>
  }
}
