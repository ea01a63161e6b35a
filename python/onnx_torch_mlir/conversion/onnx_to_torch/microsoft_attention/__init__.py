"""onnxruntime's contrib attention operators (domain `com.microsoft`, version 1), one family in
three modules that share `common.py` (dims, head reshapes, batched products):
- `attention.py`: Attention (the fused QKV projection of BERT and GPT-2) and MultiHeadAttention;
- `group_query.py`: GroupQueryAttention (the KV-cached, rotary attention of onnxruntime-genai's
  LLM exports) and RotaryEmbedding.
"""

from . import attention, group_query  # noqa: F401
