"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Modules: :mod:`~attnlib.theory` (bulk law and spike formulas), :mod:`~attnlib.weights` (pooling weights),
:mod:`~attnlib.positional` (sign processes and their correlation R), :mod:`~attnlib.model` (vocabulary,
tokens, pooling), :mod:`~attnlib.setting` (one object for a setting), :mod:`~attnlib.simulation` (Monte-Carlo),
:mod:`~attnlib.attention` (finite-d causal self-attention), :mod:`~attnlib.plotting`.
"""

from . import attention, model, positional, progress, report, simulation, theory, weights
from .setting import Setting
from .simulation import simulate, sweep

__all__ = ["theory", "weights", "positional", "model", "simulation", "attention", "report", "progress", "Setting", "simulate", "sweep"]
__version__ = "0.1.0"
