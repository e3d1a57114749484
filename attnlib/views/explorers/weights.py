"""The weights explorer (ipywidgets) over the weights figure of :mod:`attnlib.views.figures.weights`."""

from __future__ import annotations

from attnlib.views.controls import resolve_state
from attnlib.views.explorers._widgets import Explorer
from attnlib.views.figures.weights import WeightsPlot, WeightsState, weights_readout, weights_theory

__all__ = ["WeightsExplorer", "weights_explorer"]


class WeightsExplorer(Explorer):
    """Weights explorer (an ``ipywidgets.VBox``); see :func:`weights_explorer`."""

    kind, plot_class = "weights", WeightsPlot
    theory_function, readout_function = staticmethod(weights_theory), staticmethod(weights_readout)


def weights_explorer(state: WeightsState | None = None, **overrides):
    """The weights explorer (an ``ipywidgets.VBox``).

    Sliders for the R family, its parameter, T and tau; shows the weight profiles, R, and alpha, kappa,
    alpha/kappa of mean / causal / optimal pooling.
    """
    return WeightsExplorer(resolve_state(WeightsState, state, overrides))
