// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @col2im
func.func @col2im(%x: !torch.vtensor<[?,4,6],f32>) -> !torch.vtensor<[?,1,3,4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // Which column feeds each (offset, pixel) pair is a literal; pairs no block covers are masked.
  // CHECK: %[[FLAT:.*]] = torch.aten.reshape %arg0, {{.*}} -> !torch.vtensor<[?,1,24],f32>
  // CHECK: %[[SOURCES:.*]] = torch.vtensor.literal(dense<[0, 1, 2, 0, 3, 4, 5, 0, {{.*}}]> : tensor<48xsi64>)
  // CHECK: %[[PICKED:.*]] = torch.aten.index_select %[[FLAT]], %{{.*}}, %[[SOURCES]] : {{.*}} -> !torch.vtensor<[?,1,48],f32>
  // CHECK: torch.aten.mul.Tensor {{.*}} : !torch.vtensor<[?,1,4,12],f32>, !torch.vtensor<[4,12],f32> -> !torch.vtensor<[?,1,4,12],f32>
  // CHECK: torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[?,1,12],f32>
  // CHECK: return {{.*}} : !torch.vtensor<[?,1,3,4],f32>
  %image = torch.vtensor.literal(dense<[3, 4]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %block = torch.vtensor.literal(dense<[2, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0 = torch.operator "onnx.Col2Im"(%x, %image, %block) : (!torch.vtensor<[?,4,6],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,1,3,4],f32>
  return %0 : !torch.vtensor<[?,1,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @max_unpool_output_shape
func.func @max_unpool_output_shape(%x: !torch.vtensor<[1,1,2,2],f32>, %i: !torch.vtensor<[1,1,2,2],si64>) -> !torch.vtensor<[1,1,5,5],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // Scattered into the unpooled 4 x 4, then zero-padded at the end to 5 x 5 (ONNX's reference).
  // CHECK: torch.aten.scatter.src {{.*}} : !torch.vtensor<[16],f32>, !torch.int, !torch.vtensor<[4],si64>, !torch.vtensor<[4],f32> -> !torch.vtensor<[16],f32>
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[1,1,4,4],f32>
  // CHECK: torch.aten.constant_pad_nd {{.*}} -> !torch.vtensor<[1,1,5,5],f32>
  %shape = torch.vtensor.literal(dense<[1, 1, 5, 5]> : tensor<4xsi64>) : !torch.vtensor<[4],si64>
  %0 = torch.operator "onnx.MaxUnpool"(%x, %i, %shape) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1,1,2,2],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,5,5],f32>
  return %0 : !torch.vtensor<[1,1,5,5],f32>
}
