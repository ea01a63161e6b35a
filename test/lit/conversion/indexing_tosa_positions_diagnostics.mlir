// On TOSA the positions of NonZero and Compress are computed padded to the number of elements,
// which must be static (the number selected may depend on the data): a dynamic input is refused,
// naming the node and --dim. StableHLO pads to a run-time number of elements.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @dynamic_inputs(%x: !torch.vtensor<[?,2],f32>, %c: !torch.vtensor<[?],i1>) -> (!torch.vtensor<[?,2],f32>, !torch.vtensor<[2,?],si64>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
    // CHECK: indexing_tosa_positions_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (Compress, domain 'ai.onnx', opset 13): the condition's length is known only at run time: on tosa the selected positions are computed padded to it, fix it with --dim NAME=SIZE
    %0 = torch.operator "onnx.Compress"(%x, %c) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,2],f32>, !torch.vtensor<[?],i1>) -> !torch.vtensor<[?,2],f32>
    // CHECK: indexing_tosa_positions_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (NonZero, domain 'ai.onnx', opset 13): input sizes [None, 2]: on tosa the positions are computed padded to the number of elements, which must be static: fix the dims with --dim NAME=SIZE
    %1 = torch.operator "onnx.NonZero"(%x) : (!torch.vtensor<[?,2],f32>) -> !torch.vtensor<[2,?],si64>
    return %0, %1 : !torch.vtensor<[?,2],f32>, !torch.vtensor<[2,?],si64>
  }
}
