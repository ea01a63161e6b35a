// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// ReduceSum since 1: axes attribute (negative allowed from 11).
// CHECK-LABEL: func.func @reduce_sum_axes_attribute
func.func @reduce_sum_axes_attribute(%x: !torch.vtensor<[3,?,5],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
  // CHECK: torch.aten.sum.dim_IntList %arg0, %[[DIMS]], %false, %none : !torch.vtensor<[3,?,5],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3],f32>
  %0 = torch.operator "onnx.ReduceSum"(%x) {torch.onnx.axes = [1 : si64, -1 : si64], torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,?,5],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// ReduceSum since 13: axes as a literal input.
// CHECK-LABEL: func.func @reduce_sum_axes_literal
func.func @reduce_sum_axes_literal(%x: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,1,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[ONE:.*]] = torch.constant.int 1
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %[[ONE]]
  // CHECK: torch.aten.sum.dim_IntList %arg0, %[[DIMS]], %true, %none {{.*}} -> !torch.vtensor<[3,1,5],f32>
  %axes = torch.vtensor.literal(dense<[-2]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,1,5],f32>
  return %0 : !torch.vtensor<[3,1,5],f32>
}

// -----

// A runtime axes tensor with keepdims: the declared result names the reduced dimensions.
// CHECK-LABEL: func.func @reduce_sum_runtime_axes_keepdims
func.func @reduce_sum_runtime_axes_keepdims(%x: !torch.vtensor<[3,2,2],f32>, %axes: !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,2,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[ZERO:.*]] = torch.constant.int 0
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %[[ZERO]]
  // CHECK: torch.aten.sum.dim_IntList %arg0, %[[DIMS]], %true
  // CHECK-NOT: torch.aten.where
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) {torch.onnx.keepdims = 1 : si64} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,2,2],f32>
  return %0 : !torch.vtensor<[1,2,2],f32>
}

// -----

// Without keepdims the declared shape [3,2] allows axes 1 or 2: both are computed, the
// runtime axes select.
// CHECK-LABEL: func.func @reduce_sum_runtime_axes_ambiguous
func.func @reduce_sum_runtime_axes_ambiguous(%x: !torch.vtensor<[3,2,2],f32>, %axes: !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[BY2:.*]] = torch.aten.sum.dim_IntList %arg0, {{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: %[[BY1:.*]] = torch.aten.sum.dim_IntList %arg0, {{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: torch.aten.eq.Scalar %arg1, %int1
  // CHECK: torch.aten.eq.Scalar %arg1, %int-2
  // CHECK: %[[HIT:.*]] = torch.aten.any {{.*}} -> !torch.vtensor<[],i1>
  // CHECK: torch.aten.where.self %[[HIT]], %[[BY1]], %[[BY2]]
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,2],f32>
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// noop_with_empty_axes: no axes is the identity.
// CHECK-LABEL: func.func @reduce_sum_noop
func.func @reduce_sum_noop(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK-NEXT: return %arg0
  %0 = torch.operator "onnx.ReduceSum"(%x) {torch.onnx.noop_with_empty_axes = 1 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// Reducing an empty set gives the identity: 0 for a sum, -inf for a max, 1 for a product.
// CHECK-LABEL: func.func @reduce_empty_set
func.func @reduce_empty_set(%x: !torch.vtensor<[2,0,4],f32>) -> (!torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,4],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[ZERO:.*]] = torch.constant.float 0.000000e+00
  // CHECK: torch.aten.full %{{.*}}, %[[ZERO]], %int6, {{.*}} -> !torch.vtensor<[2,1,4],f32>
  // CHECK: %[[LOWEST:.*]] = torch.constant.float 0xFFF0000000000000
  // CHECK: torch.aten.full %{{.*}}, %[[LOWEST]], {{.*}} -> !torch.vtensor<[2,1,4],f32>
  // CHECK: %[[ONE:.*]] = torch.constant.float 1.000000e+00
  // CHECK: torch.aten.full %{{.*}}, %[[ONE]], {{.*}} -> !torch.vtensor<[2,4],f32>
  %axes = torch.vtensor.literal(dense<[1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) : (!torch.vtensor<[2,0,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,1,4],f32>
  %1 = torch.operator "onnx.ReduceMax"(%x, %axes) : (!torch.vtensor<[2,0,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,1,4],f32>
  %2 = torch.operator "onnx.ReduceProd"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,0,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,4],f32>
  return %0, %1, %2 : !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,4],f32>
}

// -----

// The other reductions at since 1 (axes attribute); no axes reduces every dimension.
// CHECK-LABEL: func.func @reductions_axes_attribute
func.func @reductions_axes_attribute(%x: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,1],f32>, !torch.vtensor<[1,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: torch.aten.mean.dim %arg0
  // CHECK: torch.aten.amax %arg0, {{.*}} -> !torch.vtensor<[1,1],f32>
  // CHECK: torch.aten.amin %arg0
  // CHECK: torch.aten.prod.dim_int %arg0
  // CHECK: %[[ABS:.*]] = torch.aten.abs %arg0
  // CHECK: torch.aten.sum.dim_IntList %[[ABS]]
  // CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList %[[SQUARE]]
  // CHECK: torch.aten.sqrt %[[SUM]]
  // CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList %arg0
  // CHECK: torch.aten.log %[[SUM]]
  // CHECK: %[[PEAK:.*]] = torch.aten.amax %arg0
  // CHECK: %[[INFINITE:.*]] = torch.aten.isinf %[[PEAK]]
  // CHECK: %[[FINITE:.*]] = torch.aten.where.self %[[INFINITE]], %{{.*}}, %[[PEAK]]
  // CHECK: %[[SHIFTED:.*]] = torch.aten.sub.Tensor %arg0, %[[FINITE]]
  // CHECK: %[[EXP:.*]] = torch.aten.exp %[[SHIFTED]]
  // CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList %[[EXP]]
  // CHECK: %[[LOG:.*]] = torch.aten.log %[[SUM]]
  // CHECK: torch.aten.add.Tensor %[[LOG]], %[[FINITE]]
  // CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: torch.aten.sum.dim_IntList %[[SQUARE]]
  %0 = torch.operator "onnx.ReduceMean"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %1 = torch.operator "onnx.ReduceMax"(%x) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[1,1],f32>
  %2 = torch.operator "onnx.ReduceMin"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %3 = torch.operator "onnx.ReduceProd"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %4 = torch.operator "onnx.ReduceL1"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %5 = torch.operator "onnx.ReduceL2"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %6 = torch.operator "onnx.ReduceLogSum"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %7 = torch.operator "onnx.ReduceLogSumExp"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  %8 = torch.operator "onnx.ReduceSumSquare"(%x) {torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],f32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : !torch.vtensor<[3,1],f32>, !torch.vtensor<[1,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>
}

// -----

// The same reductions at since 18 (axes input), in the ONNX dialect spelling.
// CHECK-LABEL: func.func @reductions_axes_input
module attributes {onnx.opset_version = 18 : i64} {
  func.func @reductions_axes_input(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    // CHECK: torch.aten.mean.dim {{.*}} -> !torch.vtensor<[3],f32>
    // CHECK: torch.aten.amax {{.*}} -> !torch.vtensor<[3],f32>
    // CHECK: torch.aten.amin {{.*}} -> !torch.vtensor<[3],f32>
    // CHECK: torch.aten.prod.dim_int {{.*}} -> !torch.vtensor<[3],f32>
    // CHECK: torch.aten.abs
    // CHECK: torch.aten.sqrt
    // CHECK: torch.aten.log
    // CHECK: torch.aten.exp
    // CHECK: torch.aten.squeeze.dim
    // CHECK: torch.aten.mul.Tensor
    %axes = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
    %0 = "onnx.ReduceMean"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %1 = "onnx.ReduceMax"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %2 = "onnx.ReduceMin"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %3 = "onnx.ReduceProd"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %4 = "onnx.ReduceL1"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %5 = "onnx.ReduceL2"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %6 = "onnx.ReduceLogSum"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %7 = "onnx.ReduceLogSumExp"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    %8 = "onnx.ReduceSumSquare"(%x, %axes) {keepdims = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}

// -----

// ReduceProd over several dimensions: one aten.prod.dim_int each, highest first.
// ReduceMax of booleans reduces them as integers. ReduceMean of integers truncates.
// CHECK-LABEL: func.func @reduce_prod_bool_max_int_mean
func.func @reduce_prod_bool_max_int_mean(%x: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[2,3],i1>, %i: !torch.vtensor<[2,?],si32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[2],i1>, !torch.vtensor<[2],si32>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: torch.aten.prod.dim_int %arg0, %int2, {{.*}} -> !torch.vtensor<[2,3],f32>
  // CHECK: torch.aten.prod.dim_int %{{.*}}, %int0, {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg1, %int3
  // CHECK: %[[MAX:.*]] = torch.aten.amax %[[WIDE]]
  // CHECK: torch.aten.to.dtype %[[MAX]], %int11
  // CHECK: %[[SUM:.*]] = torch.aten.sum.dim_IntList %arg2
  // CHECK: %[[COUNT:.*]] = torch.aten.size.int %arg2, %int1
  // CHECK: torch.aten.div.Scalar_mode %[[SUM]], %[[COUNT]], %str
  %axes = torch.vtensor.literal(dense<[0, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0 = torch.operator "onnx.ReduceProd"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[3],f32>
  %last = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %1 = torch.operator "onnx.ReduceMax"(%b, %last) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,3],i1>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],i1>
  %2 = torch.operator "onnx.ReduceMean"(%i, %last) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,?],si32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],si32>
  return %0, %1, %2 : !torch.vtensor<[3],f32>, !torch.vtensor<[2],i1>, !torch.vtensor<[2],si32>
}

// -----

// ArgMax since 1 and ArgMin since 12 with select_last_index.
// CHECK-LABEL: func.func @arg_extrema
func.func @arg_extrema(%x: !torch.vtensor<[2,?],f32>) -> (!torch.vtensor<[2,1],si64>, !torch.vtensor<[2],si64>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: torch.aten.argmax %arg0, %int1, %true : !torch.vtensor<[2,?],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,1],si64>
  // CHECK: torch.aten.argmin %arg0, %int1{{[_0-9]*}}, %false
  %0 = torch.operator "onnx.ArgMax"(%x) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,1],si64>
  %1 = torch.operator "onnx.ArgMin"(%x) {torch.onnx.axis = 1 : si64, torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2],si64>
  return %0, %1 : !torch.vtensor<[2,1],si64>, !torch.vtensor<[2],si64>
}

// -----

// CHECK-LABEL: func.func @arg_extrema_select_last_index
func.func @arg_extrema_select_last_index(%x: !torch.vtensor<[2,?],f32>) -> (!torch.vtensor<[2,1],si64>, !torch.vtensor<[1,?],si64>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[FLIPPED:.*]] = torch.aten.flip %arg0
  // CHECK: %[[INDEX:.*]] = torch.aten.argmax %[[FLIPPED]], %int1{{[_0-9]*}}, %true
  // CHECK: %[[SIZE:.*]] = torch.aten.size.int %arg0, %int1
  // CHECK: %[[LAST:.*]] = torch.aten.sub.int %[[SIZE]], %int1
  // CHECK: torch.aten.rsub.Scalar %[[INDEX]], %[[LAST]], %int1
  // CHECK: torch.aten.argmin %arg0, %int0, %true
  %0 = torch.operator "onnx.ArgMax"(%x) {torch.onnx.axis = 1 : si64, torch.onnx.select_last_index = 1 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,1],si64>
  %1 = torch.operator "onnx.ArgMin"(%x) {torch.onnx.select_last_index = 0 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[1,?],si64>
  return %0, %1 : !torch.vtensor<[2,1],si64>, !torch.vtensor<[1,?],si64>
}

// -----

// CumSum since 11, reverse exclusive: a triangular mask (i > j) summed against the input.
// CHECK-LABEL: func.func @cum_sum
func.func @cum_sum(%x: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  // CHECK: %[[N:.*]] = torch.aten.size.int %arg0, %int1
  // CHECK: %[[POSITIONS:.*]] = torch.aten.arange %[[N]], %int4
  // CHECK: %[[ROWS:.*]] = torch.aten.unsqueeze %[[POSITIONS]], %int1
  // CHECK: %[[MASK:.*]] = torch.aten.gt.Tensor %[[ROWS]], %[[POSITIONS]] : !torch.vtensor<[?,1],si64>, !torch.vtensor<[?],si64> -> !torch.vtensor<[?,?],i1>
  // CHECK: %[[WEIGHTS:.*]] = torch.aten.to.dtype %[[MASK]], %int6
  // CHECK: %[[SPREAD:.*]] = torch.aten.unsqueeze %arg0, %int2
  // CHECK: %[[PRODUCTS:.*]] = torch.aten.mul.Tensor %[[SPREAD]], %[[WEIGHTS]] : !torch.vtensor<[2,?,1],f32>, !torch.vtensor<[?,?],f32> -> !torch.vtensor<[2,?,?],f32>
  // CHECK: torch.aten.sum.dim_IntList %[[PRODUCTS]], {{.*}} -> !torch.vtensor<[2,?],f32>
  %axis = torch.vtensor.literal(dense<-1> : tensor<si64>) : !torch.vtensor<[],si64>
  %0 = torch.operator "onnx.CumSum"(%x, %axis) {torch.onnx.exclusive = 1 : si64, torch.onnx.reverse = 1 : si64} : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2,?],f32>
  return %0 : !torch.vtensor<[2,?],f32>
}

// -----

// A runtime CumSum axis: each axis is computed, the runtime one selected.
// CHECK-LABEL: func.func @cum_sum_runtime_axis
module attributes {onnx.opset_version = 11 : i64} {
  func.func @cum_sum_runtime_axis(%x: tensor<2x3xi32>, %axis: tensor<i32>) -> tensor<2x3xi32> {
    // CHECK: torch.aten.le.Tensor
    // CHECK: torch.aten.le.Tensor
    // CHECK: torch.aten.eq.Scalar %{{.*}}, %int0
    // CHECK: torch.aten.eq.Scalar %{{.*}}, %int-2
    // CHECK: torch.aten.where.self
    %0 = "onnx.CumSum"(%x, %axis) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
    return %0 : tensor<2x3xi32>
  }
}

// -----

// TopK since 1 (k attribute), 10 (k input), 11 (largest, sorted). A small static k selects
// one maximum at a time: the first open position holding it, then marks it taken.
// CHECK-LABEL: func.func @top_k_attribute
func.func @top_k_attribute(%x: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>) attributes {torch.onnx_meta.opset_version = 9 : si64} {
  // CHECK: %[[POSITIONS:.*]] = torch.aten.arange
  // CHECK: %[[BEST0:.*]] = torch.aten.amax %arg0, {{.*}} -> !torch.vtensor<[3,1],f32>
  // CHECK: %[[AT0:.*]] = torch.aten.eq.Tensor %arg0, %[[BEST0]]
  // CHECK: %[[WIDE0:.*]] = torch.aten.to.dtype %[[AT0]]
  // CHECK: %[[INDEX0:.*]] = torch.aten.argmax %[[WIDE0]], %int1{{.*}} -> !torch.vtensor<[3,1],si64>
  // CHECK: %[[TAKEN:.*]] = torch.aten.eq.Tensor %[[POSITIONS]], %[[INDEX0]]
  // CHECK: %[[OPEN:.*]] = torch.aten.where.self %[[TAKEN]], %{{.*}}, %arg0
  // CHECK: %[[BEST1:.*]] = torch.aten.amax %[[OPEN]]
  // CHECK: %[[AT1:.*]] = torch.aten.eq.Tensor %arg0, %[[BEST1]]
  // CHECK: %[[FREE:.*]] = torch.aten.logical_not %[[TAKEN]]
  // CHECK: torch.aten.logical_and %[[AT1]], %[[FREE]]
  // CHECK: %[[INDEX1:.*]] = torch.aten.argmax
  // CHECK: %[[VALUES:.*]] = torch.prim.ListConstruct %[[BEST0]], %[[BEST1]]
  // CHECK: torch.aten.cat %[[VALUES]], %int1{{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: %[[INDICES:.*]] = torch.prim.ListConstruct %[[INDEX0]], %[[INDEX1]]
  // CHECK: torch.aten.cat %[[INDICES]], %int1{{.*}} -> !torch.vtensor<[3,2],si64>
  %0:2 = torch.operator "onnx.TopK"(%x) {torch.onnx.k = 2 : si64} : (!torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],si64>
}

// -----

// CHECK-LABEL: func.func @top_k_input
func.func @top_k_input(%x: !torch.vtensor<[3,?],f32>, %k: !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>) attributes {torch.onnx_meta.opset_version = 10 : si64} {
  // CHECK: %[[K:.*]] = torch.aten.select.int %arg1, %int0, %int0
  // CHECK: %[[KVALUE:.*]] = torch.aten.item %[[K]]
  // CHECK: torch.aten.topk %arg0, %[[KVALUE]], %int1{{[_0-9]*}}, %true, %true{{[_0-9]*}} :
  %0:2 = torch.operator "onnx.TopK"(%x, %k) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,?],f32>, !torch.vtensor<[1],si64>) -> (!torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>)
  return %0#0, %0#1 : !torch.vtensor<[3,?],f32>, !torch.vtensor<[3,?],si64>
}

// -----

// A runtime k whose result size is declared: the declared size is k (selection, minima here).
// Beyond a small k, aten.topk.
// CHECK-LABEL: func.func @top_k_smallest
module attributes {onnx.opset_version = 11 : i64} {
  func.func @top_k_smallest(%x: tensor<3x4xf32>, %y: tensor<20x4xf32>, %k: tensor<1xi64>) -> (tensor<3x3xf32>, tensor<3x3xi64>, tensor<9x4xf32>, tensor<9x4xi64>) {
    // CHECK-COUNT-3: torch.aten.amin
    // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[3,3],f32>
    // CHECK: torch.aten.topk %{{.*}}, %int9, %int0{{.*}}, %false{{.*}}, %false{{.*}} :
    %0:2 = "onnx.TopK"(%x, %k) {axis = 1 : si64, largest = 0 : si64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
    %1:2 = "onnx.TopK"(%y, %k) {axis = 0 : si64, largest = 0 : si64, sorted = 0 : si64} : (tensor<20x4xf32>, tensor<1xi64>) -> (tensor<9x4xf32>, tensor<9x4xi64>)
    return %0#0, %0#1, %1#0, %1#1 : tensor<3x3xf32>, tensor<3x3xi64>, tensor<9x4xf32>, tensor<9x4xi64>
  }
}

// -----

// Runtime axes and no declared result shape (keepdims): each dimension is reduced where the
// runtime axes name it, and sliced to one element there; the sizes are dynamic.
// CHECK-LABEL: func.func @reduce_l2_runtime_axes_unranked
func.func @reduce_l2_runtime_axes_unranked(%x: !torch.vtensor<[3,2],f32>, %axes: !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[HIT0:.*]] = torch.aten.any
  // CHECK: %[[SUM0:.*]] = torch.aten.sum.dim_IntList %[[SQUARE]], {{.*}} -> !torch.vtensor<[1,2],f32>
  // CHECK: %[[STEP0:.*]] = torch.aten.where.self %[[HIT0]], %[[SUM0]], %[[SQUARE]] : {{.*}} -> !torch.vtensor<[3,2],f32>
  // CHECK: %[[HIT1:.*]] = torch.aten.any
  // CHECK: %[[SUM1:.*]] = torch.aten.sum.dim_IntList %[[STEP0]], {{.*}} -> !torch.vtensor<[3,1],f32>
  // CHECK: %[[STEP1:.*]] = torch.aten.where.self %[[HIT1]], %[[SUM1]], %[[STEP0]]
  // CHECK: %[[SLICE0:.*]] = torch.aten.slice.Tensor %[[STEP1]], %int0{{.*}} -> !torch.vtensor<[?,2],f32>
  // CHECK: %[[SLICE1:.*]] = torch.aten.slice.Tensor %[[SLICE0]], %int1{{.*}} -> !torch.vtensor<[?,?],f32>
  // CHECK: torch.aten.sqrt %[[SLICE1]]
  %0 = torch.operator "onnx.ReduceL2"(%x, %axes) : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32>
  return %0 : !torch.vtensor<*,f32>
}

// -----

// Without keepdims, the kept result is reshaped to rank - len(axes), with sizes chosen at runtime.
// CHECK-LABEL: func.func @reduce_sum_runtime_axes_unranked_drop
func.func @reduce_sum_runtime_axes_unranked_drop(%x: !torch.vtensor<[3,2],f32>, %axes: !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: torch.aten.slice.Tensor
  // CHECK: %[[KEPT:.*]] = torch.aten.slice.Tensor
  // CHECK: %[[SIZES:.*]] = torch.prim.ListConstruct %{{.*}} : (!torch.int) -> !torch.list<int>
  // CHECK: torch.aten.reshape %[[KEPT]], %[[SIZES]] : !torch.vtensor<[?,?],f32>, !torch.list<int> -> !torch.vtensor<[?],f32>
  %0 = torch.operator "onnx.ReduceSum"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32>
  return %0 : !torch.vtensor<*,f32>
}

// -----

// Axes of runtime length (a Range's output, say): dimension by dimension, and an empty axes
// tensor reduces every dimension unless noop_with_empty_axes.
// CHECK-LABEL: func.func @reduce_mean_runtime_axes_runtime_length
func.func @reduce_mean_runtime_axes_runtime_length(%x: !torch.vtensor<[3,2],f32>, %axes: !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[SAME:.*]] = torch.aten.eq.Tensor %arg1, %arg1
  // CHECK: %[[NONEMPTY:.*]] = torch.aten.any %[[SAME]]
  // CHECK: %[[EMPTY:.*]] = torch.aten.logical_not %[[NONEMPTY]]
  // CHECK: %[[NAMED:.*]] = torch.aten.any
  // CHECK: %[[HIT:.*]] = torch.aten.logical_or %[[NAMED]], %[[EMPTY]]
  // CHECK: torch.aten.where.self %[[HIT]]
  // CHECK: torch.aten.div.Scalar_mode
  %0 = torch.operator "onnx.ReduceMean"(%x, %axes) : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<*,f32>
  return %0 : !torch.vtensor<*,f32>
}

// -----

// CumProd since 26, reverse: the triangular mask (i >= j) selects X or 1, then a product.
// CHECK-LABEL: func.func @cum_prod
func.func @cum_prod(%x: !torch.vtensor<[?,3],si32>) -> !torch.vtensor<[?,3],si32> attributes {torch.onnx_meta.opset_version = 26 : si64} {
  // CHECK: %[[MASK:.*]] = torch.aten.ge.Tensor {{.*}} : !torch.vtensor<[3,1],si64>, !torch.vtensor<[3],si64> -> !torch.vtensor<[3,3],i1>
  // CHECK: %[[SPREAD:.*]] = torch.aten.unsqueeze %arg0, %int2
  // CHECK: %[[ADMITTED:.*]] = torch.aten.where.ScalarOther %[[MASK]], %[[SPREAD]], %int1{{.*}} -> !torch.vtensor<[?,3,3],si32>
  // CHECK: torch.aten.prod.dim_int %[[ADMITTED]], %int1{{.*}} -> !torch.vtensor<[?,3],si32>
  %axis = torch.vtensor.literal(dense<1> : tensor<si32>) : !torch.vtensor<[],si32>
  %0 = torch.operator "onnx.CumProd"(%x, %axis) {torch.onnx.reverse = 1 : si64} : (!torch.vtensor<[?,3],si32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[?,3],si32>
  return %0 : !torch.vtensor<[?,3],si32>
}

// -----

// Runtime axes and no declared result shape (ONNX's shape inference stops at runtime axes), but
// the Sqrt after it declares [3,2]: the candidate axis sets come from there, so every size stays
// static (no aten.item, which TOSA and StableHLO cannot lower).
// CHECK-LABEL: func.func @runtime_axes_shape_from_consumer
// CHECK-NOT: torch.aten.item
// CHECK: torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[3,2],f32>
// CHECK: torch.aten.sum.dim_IntList {{.*}} -> !torch.vtensor<[3,2],f32>
// CHECK: torch.aten.where.self
// CHECK-NOT: torch.aten.item
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @runtime_axes_shape_from_consumer(%x: !torch.vtensor<[3,2,2],f32>, %axes: !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ReduceSum"(%x, %axes) {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32>
    %1 = torch.operator "onnx.Sqrt"(%0) : (!torch.vtensor<*,f32>) -> !torch.vtensor<[3,2],f32>
    return %1 : !torch.vtensor<[3,2],f32>
  }
}

// -----

// MLIR's TOSA-to-Linalg starts reduce_max at the lowest finite float: on TOSA a float ReduceMax
// gives -inf itself where every element is -inf (a fully masked attention row). The comparison
// is with an f32 -inf (aten.isneginf became an f64 comparison on TOSA, which IREE refuses).
// CHECK-LABEL: func.func @reduce_max_of_infinities_for_tosa
// CHECK: %[[MAX:.*]] = torch.aten.amax %arg0
// CHECK: %[[INF:.*]] = torch.vtensor.literal(dense<0xFF800000> : tensor<f32>)
// CHECK: torch.aten.eq.Tensor %arg0, %[[INF]]
// CHECK: %[[NONE:.*]] = torch.aten.eq.Scalar
// CHECK: torch.aten.where.self %[[NONE]], {{.*}}, %[[MAX]]
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @reduce_max_of_infinities_for_tosa(%x: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,1],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %axes = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
    %0 = torch.operator "onnx.ReduceMax"(%x, %axes) {torch.onnx.keepdims = 1 : si64} : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,1],f32>
    return %0 : !torch.vtensor<[2,1],f32>
  }
}
