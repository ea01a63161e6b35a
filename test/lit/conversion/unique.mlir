// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Unique since 11, sorted, no axis, with a declared count: pairwise comparisons, then an
// index_select of the first occurrences cut to the declared 4.
// CHECK-LABEL: func.func @unique_sorted_declared
func.func @unique_sorted_declared(%x: !torch.vtensor<[6],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[6],si64>, !torch.vtensor<[4],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[6,6,1],i1>
  // CHECK: torch.aten.lt.Tensor {{.*}} -> !torch.vtensor<[6,6,1],i1>
  // CHECK: torch.aten.slice.Tensor {{.*}} -> !torch.vtensor<[4],si64>
  // CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[4],f32>
  // CHECK-NOT: torch.aten.item
  %0:4 = torch.operator "onnx.Unique"(%x) : (!torch.vtensor<[6],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[6],si64>, !torch.vtensor<[4],si64>)
  return %0#0, %0#1, %0#2, %0#3 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[6],si64>, !torch.vtensor<[4],si64>
}

// -----

// Along an axis, not sorted, with a data-dependent count: first-occurrence order (amin of the
// equal positions) and the count read at run time.
// CHECK-LABEL: func.func @unique_axis_dynamic_onnx_dialect
module attributes {onnx.opset_version = 11 : i64} {
  func.func @unique_axis_dynamic_onnx_dialect(%x: tensor<3x2xi64>) -> tensor<?x2xi64> {
    // CHECK: torch.aten.amin
    // CHECK: torch.aten.item
    // CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[?,2],si64>
    %0:4 = "onnx.Unique"(%x) {axis = 0 : si64, sorted = 0 : si64} : (tensor<3x2xi64>) -> (tensor<?x2xi64>, none, none, none)
    return %0#0 : tensor<?x2xi64>
  }
}
