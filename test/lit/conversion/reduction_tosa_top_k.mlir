// RUN: onnx-mlir-opt %s --convert-onnx-to-torch | FileCheck %s

// For tosa, a uint64 TopK selects on int64 with the top bit flipped (the order of the values kept),
// then flips it back: torch-mlir's sort-based topk has no TOSA lowering.
// CHECK-LABEL: func.func @unsigned_top_k_for_tosa
// CHECK-NOT: aten.topk
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[3,4],si64>
// CHECK: %[[FLIPPED:.*]] = torch.aten.bitwise_xor.Tensor %[[WIDE]], {{.*}} -> !torch.vtensor<[3,4],si64>
// CHECK: torch.aten.amax %[[FLIPPED]]
// CHECK: torch.aten.bitwise_xor.Tensor {{.*}} -> !torch.vtensor<[3,2],si64>
// CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[3,2],ui64>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @unsigned_top_k_for_tosa(%x: !torch.vtensor<[3,4],ui64>) -> (!torch.vtensor<[3,2],ui64>, !torch.vtensor<[3,2],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
    %k = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
    %0:2 = torch.operator "onnx.TopK"(%x, %k) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,4],ui64>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,2],ui64>, !torch.vtensor<[3,2],si64>)
    return %0#0, %0#1 : !torch.vtensor<[3,2],ui64>, !torch.vtensor<[3,2],si64>
  }
}
