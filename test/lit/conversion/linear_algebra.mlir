// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @det_batch
func.func @det_batch(%x: !torch.vtensor<[?,3,3],f32>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // One pivot search per column, the pivot row read by a bmm with its one-hot row.
  // CHECK: torch.aten.argmax {{.*}} : !torch.vtensor<[?,3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?],si64>
  // CHECK: torch.aten.bmm {{.*}} -> !torch.vtensor<[?,1,3],f32>
  // CHECK: torch.aten.argmax
  // CHECK: torch.aten.argmax
  // CHECK-NOT: torch.aten.argmax
  // CHECK: return {{.*}} : !torch.vtensor<[?],f32>
  %0 = torch.operator "onnx.Det"(%x) : (!torch.vtensor<[?,3,3],f32>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}
