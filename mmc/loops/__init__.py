"""The learning loops: ``mmc.loops.alphazero``, the AlphaZero loop of one variant (the expert stage's), which the
meta-learners (``mmc.meta``) and the adaptation reuse."""
