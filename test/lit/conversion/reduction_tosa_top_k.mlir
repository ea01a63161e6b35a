// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

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

// -----

// For tosa, a float TopK with k read at run time: the axis (5, padded to 8 with the lowest float)
// sorted by a bitonic network of 1 + 2 + 3 compare-exchange stages on (value, index) pairs, then cut
// to k (aten.item of a 0-d count, the form transforms/torch/dynamic_rows.py cuts outside TOSA).
// CHECK-LABEL: func.func @run_time_k_for_tosa
// CHECK-NOT: aten.topk
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[2,8],f32>
// CHECK-COUNT-6: torch.aten.logical_xor
// CHECK: %[[K:.*]] = torch.aten.item {{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.slice.Tensor %{{.*}}, %int1{{.*}}, %int0{{.*}}, %[[K]], %int1{{.*}} : !torch.vtensor<[2,5],f32>, {{.*}} -> !torch.vtensor<[2,?],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @run_time_k_for_tosa(%x: !torch.vtensor<[2,5],f32>, %k: !torch.vtensor<[1],si64>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
    %0:2 = torch.operator "onnx.TopK"(%x, %k) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,5],f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],si64>)
    return %0#0, %0#1 : !torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],si64>
  }
}
