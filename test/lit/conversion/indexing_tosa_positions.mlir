// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA

// For tosa, Compress finds the positions of the true elements (the declared result fixes their
// number) by a binary search over their prefix counts, which are log2(n) shifted sums: no
// aten.nonzero, whose decomposition needs aten.scatter_add.
// CHECK-LABEL: func.func @compress_for_tosa
// CHECK-NOT: aten.nonzero
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[3],si32>
// CHECK: %[[PREFIX:.*]] = torch.aten.add.Tensor {{.*}} -> !torch.vtensor<[3],si32>
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[3],si32>
// CHECK: %[[PREFIX2:.*]] = torch.aten.add.Tensor {{.*}} -> !torch.vtensor<[3],si32>
// CHECK-NOT: torch.aten.cat
// CHECK-COUNT-2: torch.aten.index_select %[[PREFIX2]], {{.*}} -> !torch.vtensor<[2],si32>
// CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[2,2],f32>
// TOSA-LABEL: func.func @compress_for_tosa
// TOSA-NOT: tosa.scatter
// TOSA: tosa.gather
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @compress_for_tosa(%x: !torch.vtensor<[3,2],f32>, %c: !torch.vtensor<[3],i1>) -> !torch.vtensor<[2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.Compress"(%x, %c) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3],i1>) -> !torch.vtensor<[2,2],f32>
    return %0 : !torch.vtensor<[2,2],f32>
  }
}

// -----

// NonZero for tosa: the positions pick rows of a literal table of coordinates.
// CHECK-LABEL: func.func @non_zero_for_tosa
// CHECK-NOT: aten.nonzero
// CHECK: torch.vtensor.literal(dense<{{\[}}[0, 0], [0, 1], [1, 0], [1, 1]]> : tensor<4x2xsi64>)
// CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[3,2],si64>
// CHECK: torch.aten.transpose.int {{.*}} -> !torch.vtensor<[2,3],si64>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @non_zero_for_tosa(%x: !torch.vtensor<[2,2],i1>) -> !torch.vtensor<[2,3],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.NonZero"(%x) : (!torch.vtensor<[2,2],i1>) -> !torch.vtensor<[2,3],si64>
    return %0 : !torch.vtensor<[2,3],si64>
  }
}


