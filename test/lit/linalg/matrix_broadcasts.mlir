// A batch product by a matrix copied over the batch becomes one matrix product on the rows
// (transforms/linalg/matrix_broadcasts.py): IREE runs the batch form as many small products.
// RUN: onnx-mlir-opt %s --step batch-products-by-a-matrix | FileCheck %s

// torch-mlir's form of ONNX's [2, 16, 16, 16] x [16, 64] MatMul: a rank-4 copy of the matrix,
// collapsed to the batch of 32 products.
// CHECK-LABEL: func.func @collapsed_copy
// CHECK-SAME: (%[[IMAGE:.*]]: tensor<2x16x16x16xf32>, %[[MATRIX:.*]]: tensor<16x64xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[BATCH:.*]] = tensor.collapse_shape %[[IMAGE]] {{\[\[}}0, 1], [2], [3]] : tensor<2x16x16x16xf32> into tensor<32x16x16xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[BATCH]] {{\[\[}}0, 1], [2]] : tensor<32x16x16xf32> into tensor<512x16xf32>
// CHECK: %[[INIT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<32x16x64xf32> into tensor<512x64xf32>
// CHECK: %[[PRODUCT:.*]] = linalg.matmul ins(%[[ROWS]], %[[MATRIX]] : tensor<512x16xf32>, tensor<16x64xf32>) outs(%[[INIT]] : tensor<512x64xf32>)
// CHECK: %[[RESULT:.*]] = tensor.expand_shape %[[PRODUCT]] {{\[\[}}0, 1], [2]] output_shape [32, 16, 64] : tensor<512x64xf32> into tensor<32x16x64xf32>
// CHECK: return %[[RESULT]]
func.func @collapsed_copy(%image: tensor<2x16x16x16xf32>, %matrix: tensor<16x64xf32>) -> tensor<32x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %copies = tensor.empty() : tensor<2x16x16x64xf32>
  %repeated = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%matrix : tensor<16x64xf32>) outs(%copies : tensor<2x16x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x16x64xf32>
  %rows = tensor.collapse_shape %image [[0, 1], [2], [3]] : tensor<2x16x16x16xf32> into tensor<32x16x16xf32>
  %batch = tensor.collapse_shape %repeated [[0, 1], [2], [3]] : tensor<2x16x16x64xf32> into tensor<32x16x64xf32>
  %empty = tensor.empty() : tensor<32x16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x16x64xf32>) -> tensor<32x16x64xf32>
  %product = linalg.batch_matmul ins(%rows, %batch : tensor<32x16x16xf32>, tensor<32x16x64xf32>) outs(%init : tensor<32x16x64xf32>) -> tensor<32x16x64xf32>
  return %product : tensor<32x16x64xf32>
}

// A linalg.broadcast over a dynamic batch: the expanded result takes its sizes from the init.
// CHECK-LABEL: func.func @dynamic_broadcast
// CHECK-NOT: linalg.broadcast
// CHECK: %[[PRODUCT:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK: tensor.expand_shape %[[PRODUCT]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 3, 4] : tensor<?x4xf32> into tensor<?x3x4xf32>
func.func @dynamic_broadcast(%rows: tensor<?x3x8xf32>, %matrix: tensor<8x4xf32>, %init: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %rows, %c0 : tensor<?x3x8xf32>
  %copies = tensor.empty(%batch) : tensor<?x8x4xf32>
  %repeated = linalg.broadcast ins(%matrix : tensor<8x4xf32>) outs(%copies : tensor<?x8x4xf32>) dimensions = [0]
  %product = linalg.batch_matmul ins(%rows, %repeated : tensor<?x3x8xf32>, tensor<?x8x4xf32>) outs(%init : tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %product : tensor<?x3x4xf32>
}

// A batch of different matrices, and a copy that also transposes, stay batch products.
// CHECK-LABEL: func.func @different_matrices
// CHECK: linalg.batch_matmul
// CHECK-LABEL: func.func @transposing_copy
// CHECK: linalg.batch_matmul
func.func @different_matrices(%rows: tensor<4x3x8xf32>, %matrices: tensor<4x8x5xf32>, %init: tensor<4x3x5xf32>) -> tensor<4x3x5xf32> {
  %product = linalg.batch_matmul ins(%rows, %matrices : tensor<4x3x8xf32>, tensor<4x8x5xf32>) outs(%init : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  return %product : tensor<4x3x5xf32>
}
func.func @transposing_copy(%rows: tensor<4x3x8xf32>, %matrix: tensor<5x8xf32>, %init: tensor<4x3x5xf32>) -> tensor<4x3x5xf32> {
  %copies = tensor.empty() : tensor<4x8x5xf32>
  %repeated = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%matrix : tensor<5x8xf32>) outs(%copies : tensor<4x8x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8x5xf32>
  %product = linalg.batch_matmul ins(%rows, %repeated : tensor<4x3x8xf32>, tensor<4x8x5xf32>) outs(%init : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  return %product : tensor<4x3x5xf32>
}
