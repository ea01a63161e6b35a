"""Recurrent layers: LSTM, GRU and RNN, one family in two modules:
- `sequence.py`: what the three share: operands and layouts, the activation list, the input
  projection, the time loop (unrolled or `torch.prim.Loop`) and the three outputs;
- `cells.py`: the patterns, each one time step of its cell.
"""

from . import cells  # noqa: F401
