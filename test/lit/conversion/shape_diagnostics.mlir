// Forms the shape family refuses, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused_opset_1(%x: !torch.vtensor<[3],f32>, %d: !torch.vtensor<[?,?],f32>, %u: !torch.vtensor<*,f32>, %m: !torch.vtensor<[1,8,2,3],f32>, %i: !torch.vtensor<[1],si64>, %dyn: !torch.vtensor<[?],si64>, %flag: !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %c0 = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %cm1 = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %half = torch.vtensor.literal(dense<0.5> : tensor<f32>) : !torch.vtensor<[],f32>
  %yes = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Slice, domain 'ai.onnx', opset 1): starts, ends, axes and steps have different lengths (1, 1, 2, 1)
  %r6 = torch.operator "onnx.Slice"(%x) {torch.onnx.starts = [0 : si64], torch.onnx.ends = [2 : si64], torch.onnx.axes = [0 : si64, 1 : si64]} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[2],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (DepthToSpace, domain 'ai.onnx', opset 1): mode 'CRD' is not an attribute of DepthToSpace before opset 11 (the model imports opset 1); use opset 11 or later
  %r7 = torch.operator "onnx.DepthToSpace"(%m) {torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32>
  return
}

func.func @refused_opset_11(%x: !torch.vtensor<[3],f32>, %d: !torch.vtensor<[?,?],f32>, %u: !torch.vtensor<*,f32>, %m: !torch.vtensor<[1,8,2,3],f32>, %i: !torch.vtensor<[1],si64>, %dyn: !torch.vtensor<[?],si64>, %flag: !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %c0 = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %cm1 = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %half = torch.vtensor.literal(dense<0.5> : tensor<f32>) : !torch.vtensor<[],f32>
  %yes = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Squeeze, domain 'ai.onnx', opset 11): without 'axes', over the dims [0, 1] known only at run time, the result's rank is decided at run time; fix their sizes with --dim or --input-shape
  %r2 = torch.operator "onnx.Squeeze"(%d) : (!torch.vtensor<[?,?],f32>) -> !torch.vtensor<*,f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Pad, domain 'ai.onnx', opset 11): 'pads' has 1 values for 1 axes
  %r10 = torch.operator "onnx.Pad"(%x, %c0) : (!torch.vtensor<[3],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Pad, domain 'ai.onnx', opset 11): 'pads' must be a constant or a 1-D tensor of static length
  %r11 = torch.operator "onnx.Pad"(%x, %dyn) : (!torch.vtensor<[3],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],f32>
  return
}

func.func @refused_opset_13(%x: !torch.vtensor<[3],f32>, %d: !torch.vtensor<[?,?],f32>, %u: !torch.vtensor<*,f32>, %m: !torch.vtensor<[1,8,2,3],f32>, %i: !torch.vtensor<[1],si64>, %dyn: !torch.vtensor<[?],si64>, %flag: !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %c0 = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %cm1 = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %half = torch.vtensor.literal(dense<0.5> : tensor<f32>) : !torch.vtensor<[],f32>
  %yes = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Constant, domain 'ai.onnx', opset 13): attribute 'sparse_value' (a sparse tensor) is not supported
  %r0 = torch.operator "onnx.Constant"() {torch.onnx.sparse_value = dense<1.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Constant, domain 'ai.onnx', opset 13): attribute 'value_string': string tensors have no torch equivalent
  %r1 = torch.operator "onnx.Constant"() {torch.onnx.value_string = "abc"} : () -> !torch.vtensor<[],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Unsqueeze, domain 'ai.onnx', opset 13): 'axes' is computed at run time and the result type has more than one dynamic dim
  %r3 = torch.operator "onnx.Unsqueeze"(%d, %i) : (!torch.vtensor<[?,?],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?,1],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Slice, domain 'ai.onnx', opset 13): axes or steps computed at run time need a static result type
  %r4 = torch.operator "onnx.Slice"(%x, %i, %i, %i) : (!torch.vtensor<[3],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (DepthToSpace, domain 'ai.onnx', opset 13): mode 'RCD' is not 'DCR' or 'CRD'
  %r14 = torch.operator "onnx.DepthToSpace"(%m) {torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "RCD"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (SpaceToDepth, domain 'ai.onnx', opset 13): needs a rank-4 input, not rank 1
  %r15 = torch.operator "onnx.SpaceToDepth"(%x) {torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (SpaceToDepth, domain 'ai.onnx', opset 13): mode 'CRD' is not an attribute of SpaceToDepth before opset 28 (the model imports opset 13); use opset 28 or later
  %r15b = torch.operator "onnx.SpaceToDepth"(%m) {torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,32,1,1],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (EyeLike, domain 'ai.onnx', opset 13): needs a rank-2 input, not rank 1
  %r16 = torch.operator "onnx.EyeLike"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Tile, domain 'ai.onnx', opset 13): 'repeats' has 1 values for a rank-2 input
  %r17 = torch.operator "onnx.Tile"(%d, %c0) : (!torch.vtensor<[?,?],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Transpose, domain 'ai.onnx', opset 13): perm [0, 0] is not a permutation of the 2 dims
  %r18 = torch.operator "onnx.Transpose"(%d) {torch.onnx.perm = [0 : si64, 0 : si64]} : (!torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Reshape, domain 'ai.onnx', opset 13): a 0 in 'shape' copies an input dim, which needs a ranked input
  %r19 = torch.operator "onnx.Reshape"(%u, %c0) : (!torch.vtensor<*,f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<*,f32>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Flatten, domain 'ai.onnx', opset 13): axis 3 is out of range for rank 2
  %r20 = torch.operator "onnx.Flatten"(%d) {torch.onnx.axis = 3 : si64} : (!torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32>
  return
}

func.func @refused_opset_18(%x: !torch.vtensor<[3],f32>, %d: !torch.vtensor<[?,?],f32>, %u: !torch.vtensor<*,f32>, %m: !torch.vtensor<[1,8,2,3],f32>, %i: !torch.vtensor<[1],si64>, %dyn: !torch.vtensor<[?],si64>, %flag: !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %c0 = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %cm1 = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %half = torch.vtensor.literal(dense<0.5> : tensor<f32>) : !torch.vtensor<[],f32>
  %yes = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Split, domain 'ai.onnx', opset 18): needs input 'split' or attribute 'num_outputs'
  %r7:2 = torch.operator "onnx.Split"(%x) : (!torch.vtensor<[3],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[1],f32>)
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Split, domain 'ai.onnx', opset 18): num_outputs=3 but the node has 2 outputs
  %r8:2 = torch.operator "onnx.Split"(%x) {torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[3],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[1],f32>)
  // CHECK: shape_diagnostics.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unnamed node (Pad, domain 'ai.onnx', opset 18): mode 'wrap' is not one of 'constant', 'reflect', 'edge'
  %r9 = torch.operator "onnx.Pad"(%x, %c0) {torch.onnx.mode = "wrap"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3],f32>
  return
}

// CHECK-NOT: error
