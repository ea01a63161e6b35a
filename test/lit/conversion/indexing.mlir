// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Gather: negative indices wrap, indices are flattened for index_select, then reshaped.
// CHECK-LABEL: func.func @gather
func.func @gather(%data: !torch.vtensor<[?,4],f32>, %indices: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[SIZE:.*]] = torch.aten.size.int %arg0, %{{.*}}
  // CHECK: %[[NEG:.*]] = torch.aten.lt.Scalar %arg1
  // CHECK: %[[WRAP:.*]] = torch.aten.add.Scalar %arg1, %[[SIZE]]
  // CHECK: %[[IDX:.*]] = torch.aten.where.self %[[NEG]], %[[WRAP]], %arg1
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %[[IDX]], {{.*}} -> !torch.vtensor<[6],si64>
  // CHECK: %[[SEL:.*]] = torch.aten.index_select %arg0, %{{.*}}, %[[FLAT]] : {{.*}} -> !torch.vtensor<[6,4],f32>
  // CHECK: torch.aten.reshape %[[SEL]], {{.*}} -> !torch.vtensor<[2,3,4],f32>
  %0 = torch.operator "onnx.Gather"(%data, %indices) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @gather_onnx_dialect
module attributes {onnx.opset_version = 11 : i64} {
  func.func @gather_onnx_dialect(%data: tensor<5x4xf32>, %indices: tensor<3xi32>) -> tensor<5x3xf32> {
    // CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[3],si64>
    // CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[5,3],f32>
    %0 = "onnx.Gather"(%data, %indices) {axis = 1 : si64} : (tensor<5x4xf32>, tensor<3xi32>) -> tensor<5x3xf32>
    return %0 : tensor<5x3xf32>
  }
}

// -----

// CHECK-LABEL: func.func @gather_elements
func.func @gather_elements(%data: !torch.vtensor<[3,3],f32>, %indices: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[IDX:.*]] = torch.aten.where.self
  // CHECK: %[[AXIS:.*]] = torch.constant.int 0
  // CHECK: torch.aten.gather %arg0, %[[AXIS]], %[[IDX]]
  %0 = torch.operator "onnx.GatherElements"(%data, %indices) {torch.onnx.axis = -2 : si64} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// CHECK-LABEL: func.func @gather_nd
func.func @gather_nd(%data: !torch.vtensor<[2,2,3],f32>, %indices: !torch.vtensor<[4,2],si64>) -> !torch.vtensor<[4,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[ROW:.*]] = torch.aten.where.self
  // CHECK: %[[COL:.*]] = torch.aten.where.self
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[ROW]]
  // CHECK: %[[OFFSET:.*]] = torch.aten.add.Tensor %[[SCALED]], %[[COL]]
  // CHECK: %[[TABLE:.*]] = torch.aten.reshape %arg0, {{.*}} -> !torch.vtensor<[4,3],f32>
  // CHECK: torch.aten.index_select %[[TABLE]], %{{.*}}, %[[OFFSET]] : {{.*}} -> !torch.vtensor<[4,3],f32>
  %0 = torch.operator "onnx.GatherND"(%data, %indices) : (!torch.vtensor<[2,2,3],f32>, !torch.vtensor<[4,2],si64>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// CHECK-LABEL: func.func @gather_nd_batch_dims
func.func @gather_nd_batch_dims(%data: !torch.vtensor<[?,2,2],f32>, %indices: !torch.vtensor<[?,1],si64>) -> !torch.vtensor<[?,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[BATCH:.*]] = torch.aten.size.int %arg0, %{{.*}}
  // CHECK: %[[START:.*]] = torch.aten.arange %[[BATCH]]
  // CHECK: torch.aten.mul.Scalar %[[START]]
  // CHECK: torch.aten.add.Tensor
  // CHECK: torch.aten.mul.int %[[BATCH]]
  // CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[?,2],f32>
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[?,2],f32>
  %0 = torch.operator "onnx.GatherND"(%data, %indices) {torch.onnx.batch_dims = 1 : si64} : (!torch.vtensor<[?,2,2],f32>, !torch.vtensor<[?,1],si64>) -> !torch.vtensor<[?,2],f32>
  return %0 : !torch.vtensor<[?,2],f32>
}

// -----

// CHECK-LABEL: func.func @scatter
func.func @scatter(%data: !torch.vtensor<[3,3],f32>, %indices: !torch.vtensor<[2,3],si64>, %updates: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  // CHECK: %[[IDX:.*]] = torch.aten.where.self
  // CHECK: torch.aten.scatter.src %arg0, %{{.*}}, %[[IDX]], %arg2
  %0 = torch.operator "onnx.Scatter"(%data, %indices, %updates) : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32>
  return %0 : !torch.vtensor<[3,3],f32>
}

// -----

// CHECK-LABEL: func.func @scatter_elements
func.func @scatter_elements(%data: !torch.vtensor<[3,3],f32>, %indices: !torch.vtensor<[2,3],si64>, %updates: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: torch.aten.scatter.src %arg0
  // CHECK: %[[REDUCE:.*]] = torch.constant.str "amax"
  // CHECK: %[[TRUE:.*]] = torch.constant.bool true
  // CHECK: torch.aten.scatter_reduce.two %arg0, %{{.*}}, %{{.*}}, %arg2, %[[REDUCE]], %[[TRUE]]
  %0 = torch.operator "onnx.ScatterElements"(%data, %indices, %updates) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32>
  %1 = torch.operator "onnx.ScatterElements"(%data, %indices, %updates) {torch.onnx.reduction = "max"} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,3],f32>
  return %0, %1 : !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>
}

// -----

// CHECK-LABEL: func.func @scatter_nd
func.func @scatter_nd(%data: !torch.vtensor<[4,4,4],f32>, %indices: !torch.vtensor<[2,1],si64>, %updates: !torch.vtensor<[2,4,4],f32>) -> !torch.vtensor<[4,4,4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: %[[TABLE:.*]] = torch.aten.reshape %arg0, {{.*}} -> !torch.vtensor<[4,16],f32>
  // CHECK: %[[ROWS:.*]] = torch.aten.reshape %arg2, {{.*}} -> !torch.vtensor<[2,16],f32>
  // CHECK: %[[INDEX:.*]] = torch.aten.expand {{.*}} -> !torch.vtensor<[2,16],si64>
  // CHECK: %[[REDUCE:.*]] = torch.constant.str "prod"
  // CHECK: %[[OUT:.*]] = torch.aten.scatter_reduce.two %[[TABLE]], %{{.*}}, %[[INDEX]], %[[ROWS]], %[[REDUCE]]
  // CHECK: torch.aten.reshape %[[OUT]], {{.*}} -> !torch.vtensor<[4,4,4],f32>
  %0 = torch.operator "onnx.ScatterND"(%data, %indices, %updates) {torch.onnx.reduction = "mul"} : (!torch.vtensor<[4,4,4],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2,4,4],f32>) -> !torch.vtensor<[4,4,4],f32>
  return %0 : !torch.vtensor<[4,4,4],f32>
}

// -----

// CHECK-LABEL: func.func @one_hot
func.func @one_hot(%indices: !torch.vtensor<[3],si64>, %depth: !torch.vtensor<[],f32>, %values: !torch.vtensor<[2],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[DEPTH_T:.*]] = torch.aten.to.dtype %arg1
  // CHECK: %[[DEPTH:.*]] = torch.aten.item %[[DEPTH_T]] : !torch.vtensor<[],si64> -> !torch.int
  // CHECK: %[[IDX:.*]] = torch.aten.where.self
  // CHECK: %[[COLUMN:.*]] = torch.aten.unsqueeze %[[IDX]], %{{.*}} -> !torch.vtensor<[1,3],si64>
  // CHECK: %[[RANGE:.*]] = torch.aten.arange %[[DEPTH]]
  // CHECK: %[[ROW:.*]] = torch.aten.unsqueeze %[[RANGE]], {{.*}} -> !torch.vtensor<[?,1],si64>
  // CHECK: %[[HIT:.*]] = torch.aten.eq.Tensor %[[COLUMN]], %[[ROW]] : {{.*}} -> !torch.vtensor<[?,3],i1>
  // CHECK: %[[OFF:.*]] = torch.aten.select.int %arg2
  // CHECK: %[[ON:.*]] = torch.aten.select.int %arg2
  // CHECK: torch.aten.where.self %[[HIT]], %[[ON]], %[[OFF]]
  %0 = torch.operator "onnx.OneHot"(%indices, %depth, %values) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// CHECK-LABEL: func.func @non_zero
func.func @non_zero(%x: !torch.vtensor<[2,2],i1>) -> !torch.vtensor<[2,?],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[FOUND:.*]] = torch.aten.nonzero %arg0 : !torch.vtensor<[2,2],i1> -> !torch.vtensor<[?,2],si64>
  // CHECK: torch.aten.transpose.int %[[FOUND]], {{.*}} -> !torch.vtensor<[2,?],si64>
  %0 = torch.operator "onnx.NonZero"(%x) : (!torch.vtensor<[2,2],i1>) -> !torch.vtensor<[2,?],si64>
  return %0 : !torch.vtensor<[2,?],si64>
}

// -----

// CHECK-LABEL: func.func @compress
func.func @compress(%x: !torch.vtensor<[3,2],f32>, %condition: !torch.vtensor<[3],i1>) -> (!torch.vtensor<[?,2],f32>, !torch.vtensor<[?],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[FOUND:.*]] = torch.aten.nonzero %arg1
  // CHECK: %[[CHOSEN:.*]] = torch.aten.flatten.using_ints %[[FOUND]]
  // CHECK: torch.aten.index_select %arg0, %{{.*}}, %[[CHOSEN]] : {{.*}} -> !torch.vtensor<[?,2],f32>
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %arg0, {{.*}} -> !torch.vtensor<[6],f32>
  // CHECK: torch.aten.index_select %[[FLAT]]
  %0 = torch.operator "onnx.Compress"(%x, %condition) {torch.onnx.axis = -2 : si64} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3],i1>) -> !torch.vtensor<[?,2],f32>
  %1 = torch.operator "onnx.Compress"(%x, %condition) : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3],i1>) -> !torch.vtensor<[?],f32>
  return %0, %1 : !torch.vtensor<[?,2],f32>, !torch.vtensor<[?],f32>
}

// -----

// CHECK-LABEL: func.func @reverse_sequence
func.func @reverse_sequence(%x: !torch.vtensor<[4,?],f32>, %lengths: !torch.vtensor<[?],si64>) -> !torch.vtensor<[4,?],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  // CHECK: %[[BATCH:.*]] = torch.aten.size.int %arg0
  // CHECK: %[[STEPS:.*]] = torch.aten.arange
  // CHECK: %[[TIME:.*]] = torch.aten.unsqueeze %[[STEPS]], {{.*}} -> !torch.vtensor<[4,1],si64>
  // CHECK: %[[LENGTHS:.*]] = torch.aten.unsqueeze %arg1, {{.*}} -> !torch.vtensor<[1,?],si64>
  // CHECK: %[[INSIDE:.*]] = torch.aten.lt.Tensor %[[TIME]], %[[LENGTHS]]
  // CHECK: %[[LAST:.*]] = torch.aten.sub.Scalar %[[LENGTHS]]
  // CHECK: %[[MIRROR:.*]] = torch.aten.sub.Tensor %[[LAST]], %[[TIME]]
  // CHECK: %[[SOURCE:.*]] = torch.aten.where.self %[[INSIDE]], %[[MIRROR]], %[[TIME]]
  // CHECK: %[[INDEX:.*]] = torch.aten.expand %[[SOURCE]]
  // CHECK: torch.aten.gather %arg0, %{{.*}}, %[[INDEX]]
  %0 = torch.operator "onnx.ReverseSequence"(%x, %lengths) {torch.onnx.batch_axis = 1 : si64, torch.onnx.time_axis = 0 : si64} : (!torch.vtensor<[4,?],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[4,?],f32>
  return %0 : !torch.vtensor<[4,?],f32>
}

// -----

// CHECK-LABEL: func.func @resize_10
func.func @resize_10(%x: !torch.vtensor<[1,1,2,2],f32>, %scales: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  // CHECK: torch.runtime.assert {{.*}}, "Resize: scale of dimension 0 must leave it unchanged"
  // CHECK: torch.runtime.assert {{.*}}, "Resize: scale of dimension 1 must leave it unchanged"
  // CHECK: %[[H:.*]] = torch.aten.item {{.*}} -> !torch.float
  // CHECK: %[[W:.*]] = torch.aten.item {{.*}} -> !torch.float
  // CHECK: %[[SCALES:.*]] = torch.prim.ListConstruct %[[H]], %[[W]]
  // CHECK: %[[MODE:.*]] = torch.constant.str "nearest"
  // CHECK: torch.aten.__interpolate.size_list_scale_list %arg0, %{{.*}}, %[[SCALES]], %[[MODE]]
  %0 = torch.operator "onnx.Resize"(%x, %scales) : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32>
  return %0 : !torch.vtensor<[1,1,4,4],f32>
}

// -----

// CHECK-LABEL: func.func @resize_11_sizes
func.func @resize_11_sizes(%x: !torch.vtensor<[1,1,2,2],f32>, %roi: !torch.vtensor<[0],f32>, %scales: !torch.vtensor<[0],f32>, %sizes: !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,?,?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: torch.runtime.assert {{.*}}, "Resize: size of dimension 1 must leave it unchanged"
  // CHECK: %[[H:.*]] = torch.aten.item {{.*}} -> !torch.int
  // CHECK: %[[W:.*]] = torch.aten.item {{.*}} -> !torch.int
  // CHECK: %[[SIZES:.*]] = torch.prim.ListConstruct %[[H]], %[[W]]
  // CHECK: %[[MODE:.*]] = torch.constant.str "bilinear_pytorch_half_pixel"
  // CHECK: torch.aten.__interpolate.size_list_scale_list %arg0, %[[SIZES]], %{{.*}}, %[[MODE]]
  %0 = torch.operator "onnx.Resize"(%x, %roi, %scales, %sizes) {torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "pytorch_half_pixel"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,?,?],f32>
  return %0 : !torch.vtensor<[1,1,?,?],f32>
}

// -----

// Scales known at run time with a static declared result: the taps' coordinates are computed at
// run time (here asymmetric x / scale, rounded up, clamped to the edge); no interpolate op.
// CHECK-LABEL: func.func @resize_13_scales
// CHECK-NOT: torch.aten.__interpolate
// CHECK: %[[SCALE_H:.*]] = torch.aten.select.int %arg1, %int0{{.*}}, %int2 : !torch.vtensor<[4],f32>, !torch.int, !torch.int -> !torch.vtensor<[],f32>
// CHECK: %[[Y:.*]] = torch.vtensor.literal(dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>)
// CHECK: %[[X:.*]] = torch.aten.div.Tensor %[[Y]], %[[SCALE_H]] : !torch.vtensor<[4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[4],f32>
// CHECK: torch.aten.floor %[[X]]
// CHECK: %[[CEIL:.*]] = torch.aten.add.Scalar %{{.*}}, %float1.000000e00
// CHECK: %[[INDEX_H:.*]] = torch.aten.clamp %[[CEIL]], %float0.000000e00, %float1.000000e00
// CHECK: %[[INDEX_H_INT:.*]] = torch.aten.to.dtype %[[INDEX_H]], %int4
// CHECK: %[[ROWS:.*]] = torch.aten.index_select %arg0, %int2{{.*}}, %[[INDEX_H_INT]] : !torch.vtensor<[1,1,2,2],f32>, !torch.int, !torch.vtensor<[4],si64> -> !torch.vtensor<[1,1,4,2],f32>
// CHECK: torch.aten.index_select %[[ROWS]], %int3{{.*}} -> !torch.vtensor<[1,1,4,4],f32>
func.func @resize_13_scales(%x: !torch.vtensor<[1,1,2,2],f32>, %scales: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.mode = "nearest", torch.onnx.nearest_mode = "ceil", torch.onnx.coordinate_transformation_mode = "asymmetric"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32>
  return %0 : !torch.vtensor<[1,1,4,4],f32>
}

// -----

// Constant scales: the taps are computed at compile time, axis by axis in the order of `axes`
// (W by 3, then H by 2): an index_select and a weight per tap, summed.
// CHECK-LABEL: func.func @resize_18_axes
// CHECK-NOT: torch.runtime.assert
// CHECK-NOT: torch.aten.__interpolate
// CHECK: %[[I0:.*]] = torch.vtensor.literal(dense<[0, 0, 0, 0, 1, 0]> : tensor<6xsi64>)
// CHECK: %[[T0:.*]] = torch.aten.index_select %arg0, %int3, %[[I0]] : !torch.vtensor<[1,1,2,2],f32>, !torch.int, !torch.vtensor<[6],si64> -> !torch.vtensor<[1,1,2,6],f32>
// CHECK: %[[W0:.*]] = torch.vtensor.literal(dense<[1.11111116, 1.000000e+00, 0.685185194, 0.314814806, 1.000000e+00, -0.111111112]> : tensor<6xf32>)
// CHECK: %[[P0:.*]] = torch.aten.mul.Tensor %[[T0]], %[[W0]]
// CHECK: %[[I1:.*]] = torch.vtensor.literal(dense<[1, 0, 1, 1, 1, 1]> : tensor<6xsi64>)
// CHECK: %[[T1:.*]] = torch.aten.index_select %arg0, %int3{{.*}}, %[[I1]]
// CHECK: %[[P1:.*]] = torch.aten.mul.Tensor %[[T1]], %{{.*}}
// CHECK: %[[W:.*]] = torch.aten.add.Tensor %[[P0]], %[[P1]], %int1 : {{.*}} -> !torch.vtensor<[1,1,2,6],f32>
// CHECK: torch.aten.index_select %[[W]], %int2, %{{.*}} : !torch.vtensor<[1,1,2,6],f32>, !torch.int, !torch.vtensor<[4],si64> -> !torch.vtensor<[1,1,4,6],f32>
// CHECK: torch.vtensor.literal(dense<{{\[\[}}1.10546875], [0.7734375], [0.2265625], [-0.10546875]]> : tensor<4x1xf32>)
func.func @resize_18_axes(%x: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,6],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %none = torch.constant.none
  %scales = torch.vtensor.literal(dense<[3.0, 2.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %0 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.mode = "cubic", torch.onnx.axes = [3 : si64, 2 : si64]} : (!torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,1,4,6],f32>
  return %0 : !torch.vtensor<[1,1,4,6],f32>
}

// -----

// align_corners from scales maps by the fractional output length in * scale (ONNX's reference
// and Resize cases): W 4 -> 2.4 (from the float32 scale), so output 1 reads x = 1 * 3 / 1.4 = 2.142857,
// between 2 and 3.
// CHECK-LABEL: func.func @resize_align_corners_downsample
// CHECK: torch.vtensor.literal(dense<[0, 2]> : tensor<2xsi64>)
// CHECK: torch.vtensor.literal(dense<[1.000000e+00, 0.857142984]> : tensor<2xf32>)
// CHECK: torch.vtensor.literal(dense<[0, 3]> : tensor<2xsi64>)
// CHECK: torch.vtensor.literal(dense<[0.000000e+00, 1.428570e-01]> : tensor<2xf32>)
func.func @resize_align_corners_downsample(%x: !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,1,2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %none = torch.constant.none
  %scales = torch.vtensor.literal(dense<[1.0, 1.0, 0.6, 0.6]> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  %0 = torch.operator "onnx.Resize"(%x, %none, %scales) {torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "align_corners"} : (!torch.vtensor<[1,1,2,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,1,2],f32>
  return %0 : !torch.vtensor<[1,1,1,2],f32>
}

// -----

// CHECK-LABEL: func.func @resize_19_onnx_dialect
module attributes {onnx.opset_version = 19 : i64} {
  func.func @resize_19_onnx_dialect(%x: tensor<1x1x1x4xf32>, %scales: tensor<4xf32>) -> tensor<1x1x1x2xf32> {
    // half_pixel_symmetric at run time: offset = 4 / 2 * (1 - 2 / (4 * scale)).
    // CHECK: %[[SCALE_W:.*]] = torch.aten.select.int %{{.*}}, %int0{{.*}}, %int3
    // CHECK: %[[WIDTH:.*]] = torch.aten.mul.Scalar %[[SCALE_W]], %float4.000000e00
    // CHECK: %[[INVERSE:.*]] = torch.aten.reciprocal %[[WIDTH]]
    // CHECK: %[[RATIO:.*]] = torch.aten.mul.Scalar %[[INVERSE]], %float2.000000e00
    // CHECK: %[[ADJUST:.*]] = torch.aten.rsub.Scalar %[[RATIO]], %float1.000000e00
    // CHECK: torch.aten.mul.Scalar %[[ADJUST]], %float2.000000e00
    // CHECK: torch.aten.index_select {{.*}} -> !torch.vtensor<[1,1,1,2],f32>
    // CHECK-NOT: torch.aten.__interpolate
    %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.Resize"(%x, %none, %scales, %none) {mode = "linear", coordinate_transformation_mode = "half_pixel_symmetric"} : (tensor<1x1x1x4xf32>, none, tensor<4xf32>, none) -> tensor<1x1x1x2xf32>
    return %0 : tensor<1x1x1x2xf32>
  }
}

// -----

// CHECK-LABEL: func.func @upsample_7
func.func @upsample_7(%x: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,6],f32> attributes {torch.onnx_meta.opset_version = 8 : si64} {
  // CHECK: %[[H:.*]] = torch.constant.float 2.000000e+00
  // CHECK: %[[W:.*]] = torch.constant.float 3.000000e+00
  // CHECK: %[[SCALES:.*]] = torch.prim.ListConstruct %[[H]], %[[W]]
  // CHECK: %[[MODE:.*]] = torch.constant.str "nearest"
  // CHECK: torch.aten.__interpolate.size_list_scale_list %arg0, %{{.*}}, %[[SCALES]], %[[MODE]]
  %0 = torch.operator "onnx.Upsample"(%x) {torch.onnx.scales = [1.0 : f32, 1.0 : f32, 2.0 : f32, 3.0 : f32]} : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,6],f32>
  return %0 : !torch.vtensor<[1,1,4,6],f32>
}

// -----

// CHECK-LABEL: func.func @upsample_9
func.func @upsample_9(%x: !torch.vtensor<[1,1,2,2],f32>, %scales: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  // CHECK: torch.runtime.assert {{.*}}, "Upsample: scale of dimension 1 must leave it unchanged"
  // CHECK: %[[MODE:.*]] = torch.constant.str "bilinear_asymmetric"
  // CHECK: torch.aten.__interpolate.size_list_scale_list %arg0, {{.*}}, %[[MODE]]
  %0 = torch.operator "onnx.Upsample"(%x, %scales) {torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32>
  return %0 : !torch.vtensor<[1,1,4,4],f32>
}


// -----

// OneHot: a static declared depth dimension replaces reading depth at run time.
// CHECK-LABEL: func.func @one_hot_declared_depth
func.func @one_hot_declared_depth(%indices: !torch.vtensor<[3],si64>, %depth: !torch.vtensor<[1],si64>, %values: !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,10],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  // CHECK-NOT: torch.aten.item
  // CHECK: %[[DEPTH:.*]] = torch.constant.int 10
  // CHECK: torch.aten.add.Scalar %arg0, %[[DEPTH]]
  // CHECK: torch.aten.arange %[[DEPTH]]
  // CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[3,10],i1>
  %0 = torch.operator "onnx.OneHot"(%indices, %depth, %values) : (!torch.vtensor<[3],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,10],f32>
  return %0 : !torch.vtensor<[3,10],f32>
}


// -----

// Resize with sizes and a static declared result: the result sizes are used, nothing is read at
// run time, and the nearest taps are one compile-time index_select per axis.
// CHECK-LABEL: func.func @resize_sizes_declared
func.func @resize_sizes_declared(%x: !torch.vtensor<[1,1,2,2],f32>, %sizes: !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,3,5],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %none = torch.constant.none
  // CHECK-NOT: torch.aten.item
  // CHECK: %[[H:.*]] = torch.vtensor.literal(dense<[0, 0, 1]> : tensor<3xsi64>)
  // CHECK: %[[ROWS:.*]] = torch.aten.index_select %arg0, %int2, %[[H]] : !torch.vtensor<[1,1,2,2],f32>, !torch.int, !torch.vtensor<[3],si64> -> !torch.vtensor<[1,1,3,2],f32>
  // CHECK: %[[W:.*]] = torch.vtensor.literal(dense<[0, 0, 0, 1, 1]> : tensor<5xsi64>)
  // CHECK: torch.aten.index_select %[[ROWS]], %int3, %[[W]] : !torch.vtensor<[1,1,3,2],f32>, !torch.int, !torch.vtensor<[5],si64> -> !torch.vtensor<[1,1,3,5],f32>
  %0 = torch.operator "onnx.Resize"(%x, %none, %none, %sizes) {torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,3,5],f32>
  return %0 : !torch.vtensor<[1,1,3,5],f32>
}

// -----

// On TOSA and StableHLO a scatter with a reduction is a one-hot comparison of the indices with
// every position along the axis, reduced over the axis and combined with data (no scatter_reduce).
// CHECK-LABEL: func.func @scatter_elements_max_for_tosa
// CHECK-NOT: torch.aten.scatter_reduce
// CHECK: torch.aten.eq.Tensor {{.*}} -> !torch.vtensor<[1,2,5],i1>
// CHECK: torch.aten.where.self {{.*}} -> !torch.vtensor<[1,2,5],f32>
// CHECK: torch.aten.amax {{.*}} -> !torch.vtensor<[2,5],f32>
// CHECK: torch.aten.permute {{.*}} -> !torch.vtensor<[5,2],f32>
// CHECK: torch.aten.constant_pad_nd {{.*}} -> !torch.vtensor<[5,3],f32>
// CHECK: torch.aten.maximum %arg0
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @scatter_elements_max_for_tosa(%data: !torch.vtensor<[5,3],f32>, %indices: !torch.vtensor<[1,2],si64>, %updates: !torch.vtensor<[1,2],f32>) -> !torch.vtensor<[5,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ScatterElements"(%data, %indices, %updates) {torch.onnx.axis = 0 : si64, torch.onnx.reduction = "max"} : (!torch.vtensor<[5,3],f32>, !torch.vtensor<[1,2],si64>, !torch.vtensor<[1,2],f32>) -> !torch.vtensor<[5,3],f32>
    return %0 : !torch.vtensor<[5,3],f32>
  }
}

// -----

// CHECK-LABEL: func.func @scatter_elements_max_for_linalg
// CHECK: torch.aten.scatter_reduce.two
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @scatter_elements_max_for_linalg(%data: !torch.vtensor<[5,3],f32>, %indices: !torch.vtensor<[1,2],si64>, %updates: !torch.vtensor<[1,2],f32>) -> !torch.vtensor<[5,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.ScatterElements"(%data, %indices, %updates) {torch.onnx.axis = 0 : si64, torch.onnx.reduction = "max"} : (!torch.vtensor<[5,3],f32>, !torch.vtensor<[1,2],si64>, !torch.vtensor<[1,2],f32>) -> !torch.vtensor<[5,3],f32>
    return %0 : !torch.vtensor<[5,3],f32>
  }
}
