// onnxruntime's contrib attention (domain com.microsoft): Attention, MultiHeadAttention,
// GroupQueryAttention, RotaryEmbedding.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Fused QKV projection, heads split, a raw 0/1 key mask made additive (mask_filter_value
// -10000), the causal mask a literal (every query row but the last), one bmm per product.
// CHECK-LABEL: func.func @attention_mask_unidirectional
func.func @attention_mask_unidirectional(%x: !torch.vtensor<[2,4,6],f32>, %w: !torch.vtensor<[6,18],f32>, %b: !torch.vtensor<[18],f32>, %mask: !torch.vtensor<[2,4],si32>) -> !torch.vtensor<[2,4,6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[QKV:.*]] = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[2,4,6],f32>, !torch.vtensor<[6,18],f32> -> !torch.vtensor<[2,4,18],f32>
  // CHECK: %[[BIASED:.*]] = torch.aten.add.Tensor %[[QKV]], %arg2
  // CHECK: %[[Q:.*]] = torch.aten.slice.Tensor %[[BIASED]], %{{.*}}, %int0, %int6, %{{.*}} -> !torch.vtensor<[2,4,6],f32>
  // CHECK: %[[QH:.*]] = torch.aten.reshape %[[Q]], {{.*}} -> !torch.vtensor<[2,4,2,3],f32>
  // CHECK: torch.aten.transpose.int %[[QH]], {{.*}} -> !torch.vtensor<[2,2,4,3],f32>
  // CHECK: %[[KEEP:.*]] = torch.aten.gt.Tensor %arg3, %{{.*}} -> !torch.vtensor<[2,4],i1>
  // CHECK: %[[ZERO:.*]] = torch.vtensor.literal(dense<0.000000e+00> : tensor<f32>)
  // CHECK: %[[FILTER:.*]] = torch.vtensor.literal(dense<-1.000000e+04> : tensor<f32>)
  // CHECK: torch.aten.where.self %[[KEEP]], %[[ZERO]], %[[FILTER]] : {{.*}} -> !torch.vtensor<[2,4],f32>
  // CHECK: %[[FUTURE:.*]] = torch.vtensor.literal(dense<{{\[\[}}false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>)
  // CHECK: %[[LOWEST:.*]] = torch.vtensor.literal(dense<-3.40282347E+38> : tensor<f32>)
  // CHECK: %[[MASK:.*]] = torch.aten.where.self %[[FUTURE]], %[[LOWEST]], %{{.*}} -> !torch.vtensor<[2,1,4,4],f32>
  // CHECK: torch.aten.bmm {{.*}} : !torch.vtensor<[4,4,3],f32>, !torch.vtensor<[4,3,4],f32> -> !torch.vtensor<[4,4,4],f32>
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %{{.*}}, %float5.773500e-01
  // CHECK: %[[SCORES:.*]] = torch.aten.add.Tensor %[[SCALED]], %[[MASK]]
  // CHECK: torch.aten.softmax.int %[[SCORES]], %int-1
  // CHECK: torch.aten.bmm
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[2,4,6],f32>
  %0 = torch.operator "com.microsoft.Attention"(%x, %w, %b, %mask) {torch.onnx.num_heads = 2 : si64, torch.onnx.unidirectional = 1 : si64} : (!torch.vtensor<[2,4,6],f32>, !torch.vtensor<[6,18],f32>, !torch.vtensor<[18],f32>, !torch.vtensor<[2,4],si32>) -> !torch.vtensor<[2,4,6],f32>
  return %0 : !torch.vtensor<[2,4,6],f32>
}

// -----

// A past [2, batch, heads, past, head]: K and V are the past's followed by the new ones; present stacks them.
// CHECK-LABEL: func.func @attention_past
func.func @attention_past(%x: !torch.vtensor<[?,?,6],f32>, %w: !torch.vtensor<[6,18],f32>, %past: !torch.vtensor<[2,?,2,?,3],f32>) -> (!torch.vtensor<[?,?,6],f32>, !torch.vtensor<[2,?,2,?,3],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  // CHECK: %[[PAST_K:.*]] = torch.aten.select.int %arg2, %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?,2,?,3],f32>
  // CHECK: %[[K:.*]] = torch.aten.cat %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?,2,?,3],f32>
  // CHECK: %[[PAST_V:.*]] = torch.aten.select.int %arg2
  // CHECK: %[[V:.*]] = torch.aten.cat
  // CHECK: %[[PRESENT:.*]] = torch.aten.stack %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[2,?,2,?,3],f32>
  // CHECK: return %{{.*}}, %[[PRESENT]]
  %0:2 = torch.operator "com.microsoft.Attention"(%x, %w, %none, %none, %past) {torch.onnx.num_heads = 2 : si64} : (!torch.vtensor<[?,?,6],f32>, !torch.vtensor<[6,18],f32>, !torch.none, !torch.none, !torch.vtensor<[2,?,2,?,3],f32>) -> (!torch.vtensor<[?,?,6],f32>, !torch.vtensor<[2,?,2,?,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?,?,6],f32>, !torch.vtensor<[2,?,2,?,3],f32>
}

// -----

// A 1-D mask with a dynamic batch: [batch] (end positions) or [2 * batch] (ends, then starts),
// told apart at run time: the starts are read (at clamped positions) and kept only when the
// mask is 2 * batch long; any other length fails a run-time check.
// CHECK-LABEL: func.func @attention_mask_end_positions
func.func @attention_mask_end_positions(%x: !torch.vtensor<[?,?,6],f32>, %w: !torch.vtensor<[6,18],f32>, %mask: !torch.vtensor<[?],si32>) -> !torch.vtensor<[?,?,6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  // CHECK: %[[MASK:.*]] = torch.aten.to.dtype %arg2, {{.*}} -> !torch.vtensor<[?],si64>
  // CHECK: %[[ENDS:.*]] = torch.aten.index_select %[[MASK]], %{{.*}}, %[[ROWS:.*]] :
  // CHECK: %[[SHIFTED:.*]] = torch.aten.add.Scalar %[[ROWS]]
  // CHECK: %[[CLAMPED:.*]] = torch.aten.clamp %[[SHIFTED]]
  // CHECK: %[[STARTS:.*]] = torch.aten.index_select %[[MASK]], %{{.*}}, %[[CLAMPED]]
  // CHECK: %[[TWO_SIDED:.*]] = torch.aten.eq.int
  // CHECK: %[[ONE_SIDED:.*]] = torch.aten.eq.int
  // CHECK: %[[EITHER:.*]] = torch.aten.__or__.bool %[[ONE_SIDED]], %[[TWO_SIDED]]
  // CHECK: torch.runtime.assert %[[EITHER]], "Attention: a 1-D mask must hold batch or 2 * batch positions"
  // CHECK: %[[FACTOR:.*]] = torch.aten.Int.bool %[[TWO_SIDED]]
  // CHECK: %[[KEPT_STARTS:.*]] = torch.aten.mul.Scalar %[[STARTS]], %[[FACTOR]]
  // CHECK: torch.aten.lt.Tensor {{.*}} -> !torch.vtensor<[?,?],i1>
  // CHECK: torch.aten.ge.Tensor
  %0 = torch.operator "com.microsoft.Attention"(%x, %w, %none, %mask) {torch.onnx.num_heads = 2 : si64} : (!torch.vtensor<[?,?,6],f32>, !torch.vtensor<[6,18],f32>, !torch.none, !torch.vtensor<[?],si32>) -> !torch.vtensor<[?,?,6],f32>
  return %0 : !torch.vtensor<[?,?,6],f32>
}

// -----

// Packed QKV [batch, seq, heads, 3, head]: Q, K, V are its three parts, each with its bias part.
// CHECK-LABEL: func.func @multi_head_attention_packed_qkv
func.func @multi_head_attention_packed_qkv(%qkv: !torch.vtensor<[?,?,2,3,4],f32>, %bias: !torch.vtensor<[24],f32>) -> !torch.vtensor<[?,?,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  // CHECK: %[[Q:.*]] = torch.aten.select.int %arg0, %int3, %int0{{.*}} -> !torch.vtensor<[?,?,2,4],f32>
  // CHECK: %[[K:.*]] = torch.aten.select.int %arg0, %{{.*}}, %int1{{.*}} -> !torch.vtensor<[?,?,2,4],f32>
  // CHECK: %[[V:.*]] = torch.aten.select.int %arg0, %{{.*}}, %int2{{.*}} -> !torch.vtensor<[?,?,2,4],f32>
  // CHECK: %[[QB:.*]] = torch.aten.slice.Tensor %arg1, %{{.*}}, %{{.*}}, %int8
  // CHECK: %[[QB2:.*]] = torch.aten.reshape %[[QB]], {{.*}} -> !torch.vtensor<[2,4],f32>
  // CHECK: torch.aten.add.Tensor %[[Q]], %[[QB2]]
  // CHECK: torch.aten.softmax.int
  %0 = torch.operator "com.microsoft.MultiHeadAttention"(%qkv, %none, %none, %bias) {torch.onnx.num_heads = 2 : si64} : (!torch.vtensor<[?,?,2,3,4],f32>, !torch.none, !torch.none, !torch.vtensor<[24],f32>) -> !torch.vtensor<[?,?,8],f32>
  return %0 : !torch.vtensor<[?,?,8],f32>
}

// -----

// CHECK-LABEL: func.func @multi_head_attention_onnx_dialect
module attributes {onnx.opset_import = {ai.onnx = 17 : i64, com.microsoft = 1 : i64}} {
  func.func @multi_head_attention_onnx_dialect(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %pk: tensor<2x2x4x4xf32>, %pv: tensor<2x2x4x4xf32>) -> (tensor<2x3x8xf32>, tensor<2x2x9x4xf32>) {
    %none = "onnx.NoValue"() {value} : () -> none
    // CHECK: %[[K:.*]] = torch.aten.cat %{{.*}}, %int2{{.*}} -> !torch.vtensor<[2,2,9,4],f32>
    // CHECK: torch.aten.bmm {{.*}} : !torch.vtensor<[4,3,4],f32>, !torch.vtensor<[4,4,9],f32> -> !torch.vtensor<[4,3,9],f32>
    // CHECK: torch.aten.softmax.int {{.*}} -> !torch.vtensor<[2,2,3,9],f32>
    %0:3 = "onnx.Custom"(%q, %k, %v, %none, %none, %none, %pk, %pv) {domain_name = "com.microsoft", function_name = "MultiHeadAttention", num_heads = 2 : si64} : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, none, none, none, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> (tensor<2x3x8xf32>, tensor<2x2x9x4xf32>, none)
    return %0#0, %0#1 : tensor<2x3x8xf32>, tensor<2x2x9x4xf32>
  }
}

// -----

// Decoding with a KV cache of unknown length: each entry's start p_b = (seqlens_k + 1 - seq) when
// seq != total_sequence_length (else 0); rotary at p_b + i; present of length
// max(total_sequence_length, past) read at run time; the new row gathered to p_b, the past's rows
// before it; 4 query heads on 2 K/V heads.
// CHECK-LABEL: func.func @group_query_attention_decode
func.func @group_query_attention_decode(%q: !torch.vtensor<[?,1,64],f32>, %k: !torch.vtensor<[?,1,32],f32>, %v: !torch.vtensor<[?,1,32],f32>, %pk: !torch.vtensor<[?,2,?,16],f32>, %pv: !torch.vtensor<[?,2,?,16],f32>, %seqlens: !torch.vtensor<[?],si32>, %total: !torch.vtensor<[],si32>, %cos: !torch.vtensor<[32,8],f32>, %sin: !torch.vtensor<[32,8],f32>) -> (!torch.vtensor<[?,1,64],f32>, !torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?,2,?,16],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[LATER:.*]] = torch.aten.ne.Scalar %arg6, %int1 : !torch.vtensor<[],si32>, !torch.int -> !torch.vtensor<[],i1>
  // CHECK: %[[LENGTHS:.*]] = torch.aten.to.dtype %arg5
  // CHECK: %[[FROM:.*]] = torch.aten.add.Scalar %[[LENGTHS]], %int0
  // CHECK: torch.aten.index_select %arg7, {{.*}} -> !torch.vtensor<[?,8],f32>
  // CHECK: torch.aten.index_select %arg8, {{.*}} -> !torch.vtensor<[?,8],f32>
  // CHECK: %[[PAST:.*]] = torch.aten.size.int %arg3, %int2
  // CHECK: %[[TOTAL:.*]] = torch.aten.item %arg6 : !torch.vtensor<[],si32> -> !torch.int
  // CHECK: %[[LENGTH:.*]] = torch.prim.max.int %[[TOTAL]], %[[PAST]]
  // CHECK: %[[NEW_K:.*]] = torch.aten.gather %{{.*}}, %int2{{.*}} : !torch.vtensor<[?,2,1,16],f32>, !torch.int, !torch.vtensor<[?,2,?,16],si64>, !torch.bool -> !torch.vtensor<[?,2,?,16],f32>
  // CHECK: %[[ZEROS_K:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[?,2,?,16],f32>
  // CHECK: torch.prim.ListConstruct %arg3, %[[ZEROS_K]]
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,2,?,16],f32>
  // CHECK: %[[PRESENT_K:.*]] = torch.aten.where.self {{.*}} -> !torch.vtensor<[?,2,?,16],f32>
  // CHECK: torch.aten.gather
  // CHECK: %[[ZEROS_V:.*]] = torch.aten.full
  // CHECK: torch.prim.ListConstruct %arg4, %[[ZEROS_V]]
  // CHECK: %[[PRESENT_V:.*]] = torch.aten.where.self {{.*}} -> !torch.vtensor<[?,2,?,16],f32>
  // CHECK: torch.aten.broadcast_to %{{.*}} : !torch.vtensor<[?,2,1,?,16],f32>, !torch.list<int> -> !torch.vtensor<[?,2,2,?,16],f32>
  // CHECK: torch.aten.bmm {{.*}} -> !torch.vtensor<[?,1,?],f32>
  // CHECK: %[[VISIBLE:.*]] = torch.aten.le.Tensor {{.*}} -> !torch.vtensor<[?,1,?],i1>
  // CHECK: torch.aten.softmax.int
  // CHECK: return %{{.*}}, %[[PRESENT_K]], %[[PRESENT_V]]
  %0:3 = torch.operator "com.microsoft.GroupQueryAttention"(%q, %k, %v, %pk, %pv, %seqlens, %total, %cos, %sin) {torch.onnx.num_heads = 4 : si64, torch.onnx.kv_num_heads = 2 : si64, torch.onnx.do_rotary = 1 : si64} : (!torch.vtensor<[?,1,64],f32>, !torch.vtensor<[?,1,32],f32>, !torch.vtensor<[?,1,32],f32>, !torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[32,8],f32>, !torch.vtensor<[32,8],f32>) -> (!torch.vtensor<[?,1,64],f32>, !torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?,2,?,16],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[?,1,64],f32>, !torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?,2,?,16],f32>
}

// -----

// onnxruntime-genai's exports: total_sequence_length is Shape(attention_mask)[1] cast to int32,
// a dim, so the present length is max of two dims (no aten.item: StableHLO takes it as a run-time
// size); the past is zero-extended to it by a concatenation.
// CHECK-LABEL: func.func @group_query_attention_total_from_shape
func.func @group_query_attention_total_from_shape(%qkv: !torch.vtensor<[1,?,128],f32>, %pk: !torch.vtensor<[1,2,?,16],f32>, %pv: !torch.vtensor<[1,2,?,16],f32>, %seqlens: !torch.vtensor<[1],si32>, %mask: !torch.vtensor<[1,?],si64>) -> (!torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[TOTAL:.*]] = torch.aten.size.int %arg4, %int1
  // CHECK-NOT: torch.aten.item
  // CHECK: %[[PAST:.*]] = torch.aten.size.int %arg1, %int2
  // CHECK-NOT: torch.aten.item
  // CHECK: %[[LENGTH:.*]] = torch.prim.max.int %[[TOTAL]], %[[PAST]]
  // CHECK-NOT: torch.aten.item
  // CHECK: torch.aten.arange %[[LENGTH]]
  // CHECK-NOT: torch.aten.item
  // CHECK: torch.aten.sub.int %[[LENGTH]]
  // CHECK-NOT: torch.aten.item
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[1,2,?,16],f32>
  // CHECK-NOT: torch.aten.item
  // CHECK: return
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %n = torch.aten.size.int %mask, %int1 : !torch.vtensor<[1,?],si64>, !torch.int -> !torch.int
  %n64 = torch.prim.NumToTensor.Scalar %n : !torch.int -> !torch.vtensor<[],si64>
  %total = torch.aten.to.dtype %n64, %int3, %false, %false, %none : !torch.vtensor<[],si64>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[],si32>
  %0:3 = torch.operator "com.microsoft.GroupQueryAttention"(%qkv, %none, %none, %pk, %pv, %seqlens, %total) {torch.onnx.num_heads = 4 : si64, torch.onnx.kv_num_heads = 2 : si64} : (!torch.vtensor<[1,?,128],f32>, !torch.none, !torch.none, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1],si32>, !torch.vtensor<[],si32>) -> (!torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[1,?,64],f32>, !torch.vtensor<[1,2,?,16],f32>, !torch.vtensor<[1,2,?,16],f32>
}

// -----

// A declared static present length is used as is (no run-time read); packed QKV; no past.
// CHECK-LABEL: func.func @group_query_attention_packed_static
func.func @group_query_attention_packed_static(%qkv: !torch.vtensor<[2,5,128],f32>, %seqlens: !torch.vtensor<[2],si32>, %total: !torch.vtensor<[1],si32>) -> (!torch.vtensor<[2,5,64],f32>, !torch.vtensor<[2,2,5,16],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  // CHECK-NOT: torch.aten.item
  // CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %int0, %int64{{.*}} -> !torch.vtensor<[2,5,64],f32>
  // CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %int64{{.*}}, %int96{{.*}} -> !torch.vtensor<[2,5,32],f32>
  // CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %int96{{.*}}, %int128{{.*}} -> !torch.vtensor<[2,5,32],f32>
  // CHECK-NOT: torch.aten.constant_pad_nd
  // CHECK: torch.aten.gather {{.*}} -> !torch.vtensor<[2,2,5,16],f32>
  %0:2 = torch.operator "com.microsoft.GroupQueryAttention"(%qkv, %none, %none, %none, %none, %seqlens, %total) {torch.onnx.num_heads = 4 : si64, torch.onnx.kv_num_heads = 2 : si64} : (!torch.vtensor<[2,5,128],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[2],si32>, !torch.vtensor<[1],si32>) -> (!torch.vtensor<[2,5,64],f32>, !torch.vtensor<[2,2,5,16],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,5,64],f32>, !torch.vtensor<[2,2,5,16],f32>
}

// -----

// Interleaved pairs (x_2i, x_2i+1) of [batch, heads, seq, head], positions [batch, seq].
// CHECK-LABEL: func.func @rotary_embedding_interleaved
func.func @rotary_embedding_interleaved(%x: !torch.vtensor<[?,2,?,16],f32>, %positions: !torch.vtensor<[?,?],si64>, %cos: !torch.vtensor<[16,8],f32>, %sin: !torch.vtensor<[16,8],f32>) -> !torch.vtensor<[?,2,?,16],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: torch.aten.index_select %arg2
  // CHECK: torch.aten.index_select %arg3
  // CHECK: %[[EVEN:.*]] = torch.aten.slice.Tensor %arg0, %int3, %int0{{.*}}, %int16, %int2 : {{.*}} -> !torch.vtensor<[?,2,?,8],f32>
  // CHECK: %[[ODD:.*]] = torch.aten.slice.Tensor %arg0, %int3{{.*}}, %int1{{.*}}, %int16{{.*}}, %int2{{.*}} : {{.*}} -> !torch.vtensor<[?,2,?,8],f32>
  // CHECK: %[[PAIRS:.*]] = torch.aten.stack %{{.*}}, %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,2,?,8,2],f32>
  // CHECK: torch.aten.flatten.using_ints %[[PAIRS]], %int3{{.*}}, %int4 : {{.*}} -> !torch.vtensor<[?,2,?,16],f32>
  %0 = torch.operator "com.microsoft.RotaryEmbedding"(%x, %positions, %cos, %sin) {torch.onnx.interleaved = 1 : si64} : (!torch.vtensor<[?,2,?,16],f32>, !torch.vtensor<[?,?],si64>, !torch.vtensor<[16,8],f32>, !torch.vtensor<[16,8],f32>) -> !torch.vtensor<[?,2,?,16],f32>
  return %0 : !torch.vtensor<[?,2,?,16],f32>
}

// -----

// Halves, partial rotation (the first 8 of 16 dims per head), an offset position_ids [1].
// CHECK-LABEL: func.func @rotary_embedding_partial_offset
func.func @rotary_embedding_partial_offset(%x: !torch.vtensor<[2,3,32],f32>, %offset: !torch.vtensor<[1],si64>, %cos: !torch.vtensor<[16,4],f32>, %sin: !torch.vtensor<[16,4],f32>) -> !torch.vtensor<[2,3,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[STEPS:.*]] = torch.vtensor.literal(dense<[0, 1, 2]> : tensor<3xsi64>)
  // CHECK: torch.aten.reshape %arg0, {{.*}} -> !torch.vtensor<[2,3,2,16],f32>
  // CHECK: torch.aten.slice.Tensor {{.*}} -> !torch.vtensor<[2,3,2,4],f32>
  // CHECK: %[[ROTATED:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[2,3,2,8],f32>
  // CHECK: %[[REST:.*]] = torch.aten.slice.Tensor %{{.*}}, %int3{{.*}}, %int8{{.*}}, %int16{{.*}} -> !torch.vtensor<[2,3,2,8],f32>
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[2,3,2,16],f32>
  %0 = torch.operator "com.microsoft.RotaryEmbedding"(%x, %offset, %cos, %sin) {torch.onnx.num_heads = 2 : si64, torch.onnx.rotary_embedding_dim = 8 : si64} : (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[16,4],f32>, !torch.vtensor<[16,4],f32>) -> !torch.vtensor<[2,3,32],f32>
  return %0 : !torch.vtensor<[2,3,32],f32>
}
