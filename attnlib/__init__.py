"""attnlib: the model and the random-matrix theory of attention pooling, coded once.

Companion library of the executable book on "How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models" (Seddik, arXiv 2605.06826).

Six layers, each a subpackage, each importing only the layers below it (enforced by
``tests/test_architecture.py`` and import-linter)::

    views      plotting, tables, controls, agreement, legends, rendering, figures, explorers,
      |        webexplorer (+ weboverlays, webstills)
    studies    downstream, experiment, classifiers, finite_size, token_mixing, causal_attention,
      |        real_layer, learning, k_class_sweep, agreement, stacked_layers
    engine     simulation (one draw), montecarlo (the one loop), operators, slq, cost, compare,
      |        progress, heads
    model      positional, weights, kurtosis, limit, setting, noise, frequencies, variants,
      |        generative, pooling, k_classes, heads
    theory     the closed forms (spikes, thresholds, routes), laws (SpectralLaw: Bulk, MarchenkoPastur, ...),
      |        population, single_token, fluctuations, overlap_fluctuations, tracy_widom, heads, layers, tokens,
      |        finite_attention, classification, window
    numerics   checks (argument validation), linalg (eigen-solvers, the zero rule, BLAS threads),
               products (double-precision products with the table), randomness (the random streams)

Where a new piece goes: a formula or a law in :mod:`attnlib.theory`; a model variant in
:mod:`attnlib.model`; a way to draw or to loop over draws in :mod:`attnlib.engine`; a chapter's analysis in
:mod:`attnlib.studies`; a figure or a table in :mod:`attnlib.views` (CONTRIBUTING.md has one example each).

The public contract, importable from here: :class:`Setting`, :func:`simulate`, :func:`sweep`, :func:`compare`
(theory against simulation), :class:`Limit`, :mod:`attnlib.theory`, and two modules of the model layer under
short names: ``attnlib.weights`` (= :mod:`attnlib.model.weights`) and ``attnlib.positional``
(= :mod:`attnlib.model.positional`), which ``import attnlib.weights`` also finds.
"""

import sys

from attnlib import engine, model, numerics, studies, theory, views
from attnlib.engine.montecarlo import sweep
from attnlib.engine.simulation import simulate
from attnlib.model import positional, weights
from attnlib.model.limit import Limit
from attnlib.model.setting import Setting
from attnlib.views.agreement import compare

# ``import attnlib.weights`` and ``import attnlib.positional`` find the model's modules under their short names
sys.modules[f"{__name__}.weights"] = weights
sys.modules[f"{__name__}.positional"] = positional

__all__ = ["numerics", "theory", "model", "engine", "studies", "views", "positional", "weights", "Limit",
           "Setting", "simulate", "sweep", "compare"]
__version__ = "0.3.0"
