"""Recurrent layers: LSTM, GRU and RNN, one family in three modules:
- `sequence.py`: what the three share: operands and layouts, the activation list, the input
  projection, the time loop (unrolled or `torch.prim.Loop`) and the three outputs;
- `cells.py`: the patterns, each one time step of its cell;
- `dynamic_quantized.py`: com.microsoft DynamicQuantizeLSTM, LSTM's cell on integer GEMMs of
  dynamically quantized activations.
"""

from . import cells, dynamic_quantized  # noqa: F401
