// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA

// On TOSA a ScatterND without reduction is one row gather from [data rows; update rows]: row p
// reads the last update written to it, else itself (torch-mlir's tosa.scatter becomes a loop of
// one-element copies, which IREE cannot compile when the operands are constant: T5's causal mask).
// CHECK-LABEL: func.func @scatter_nd_rows_for_tosa
// CHECK-NOT: torch.aten.scatter
// CHECK: %[[HIT:.*]] = torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[2,4],i1>
// CHECK: %[[CANDIDATES:.*]] = torch.aten.where.self %[[HIT]], {{.*}} -> !torch.vtensor<[2,4],si32>
// CHECK: %[[SOURCE:.*]] = torch.aten.amax %[[CANDIDATES]], {{.*}} -> !torch.vtensor<[4],si32>
// CHECK: %[[STACKED:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[6,6],f32>
// CHECK: torch.aten.index_select %[[STACKED]], %{{.*}}, %[[SOURCE]] : {{.*}} -> !torch.vtensor<[4,6],f32>
// TOSA-LABEL: func.func @scatter_nd_rows_for_tosa
// TOSA-NOT: tosa.scatter
// TOSA: tosa.reduce_max {{.*}} -> tensor<1x4xi32>
// TOSA: tosa.concat {{.*}} -> tensor<6x6xf32>
// TOSA: tosa.gather
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @scatter_nd_rows_for_tosa(%data: !torch.vtensor<[4,3,2],f32>, %indices: !torch.vtensor<[2,1],si64>, %updates: !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[4,3,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ScatterND"(%data, %indices, %updates) : (!torch.vtensor<[4,3,2],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[4,3,2],f32>
    return %0 : !torch.vtensor<[4,3,2],f32>
  }
}

// -----

// On other targets it stays a scatter.
// CHECK-LABEL: func.func @scatter_nd_rows_for_linalg
// CHECK: torch.aten.scatter.src
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @scatter_nd_rows_for_linalg(%data: !torch.vtensor<[4,3,2],f32>, %indices: !torch.vtensor<[2,1],si64>, %updates: !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[4,3,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ScatterND"(%data, %indices, %updates) : (!torch.vtensor<[4,3,2],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[4,3,2],f32>
    return %0 : !torch.vtensor<[4,3,2],f32>
  }
}

// -----

// ScatterElements the same way, one element a row: the flat offset of update [i, j] along axis 1
// of a [3,4] tensor is indices[i, j] + 4 i (the literal [[0], [4], [8]]).
// CHECK-LABEL: func.func @scatter_elements_for_tosa
// CHECK-NOT: torch.aten.scatter
// CHECK: torch.vtensor.literal(dense<{{\[\[}}0, 0], [4, 4], [8, 8]]> : tensor<3x2xsi64>)
// CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[6,12],i1>
// CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[12,1],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @scatter_elements_for_tosa(%data: !torch.vtensor<[3,4],f32>, %indices: !torch.vtensor<[3,2],si64>, %updates: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ScatterElements"(%data, %indices, %updates) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,2],si64>, !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],f32>
    return %0 : !torch.vtensor<[3,4],f32>
  }
}
