"""The spectrum explorer (ipywidgets) over the spectrum figure of :mod:`attnlib.views.figures.spectrum`."""

from __future__ import annotations

from attnlib.numerics import checks as _v
from attnlib.views.controls import resolve_state
from attnlib.views.explorers._widgets import Explorer
from attnlib.views.figures.spectrum import (SpectrumPlot, SpectrumState, spectrum_readout, spectrum_simulation,
                                            spectrum_theory)

__all__ = ["SpectrumExplorer", "spectrum_explorer"]


class SpectrumExplorer(Explorer):
    """Spectrum explorer (an ``ipywidgets.VBox``); see :func:`spectrum_explorer`.

    ``update(**changes)`` changes the state and redraws the theory; ``simulate()`` draws a fresh histogram
    (seed ``seed``, then ``seed + 1``, ...); ``state``, ``theory``, ``draw`` hold what is shown.
    """

    kind = "spectrum"
    plot_class = SpectrumPlot
    theory_function = staticmethod(spectrum_theory)

    def __init__(self, state: SpectrumState, *, simulate_d: int = 400, seed: int = 0):
        import ipywidgets as widgets

        self.simulate_d = _v.positive_int("simulate_d", simulate_d, minimum=2)
        self.seed = _v.positive_int("seed", seed, minimum=0)
        self.draw = None
        self._presses = 0
        self.button = widgets.Button(description="simulate", icon="refresh", button_style="info",
                                     tooltip=f"draw a fresh spectrum at d = {self.simulate_d}")
        self.button.on_click(lambda _: self.simulate())
        super().__init__(state)

    def _rows(self):
        rows = super()._rows()
        rows[-1].append(self.button)
        return rows

    def update(self, **changes):
        self.draw = None  # a histogram of another state would mislead: drop it
        return super().update(**changes)

    def readout_html(self, state, th):
        return spectrum_readout(state, th, self.draw)

    def simulate(self):
        """Draw and show a fresh simulated spectrum for the current state (the button)."""
        self.button.disabled = True
        try:
            self.draw = spectrum_simulation(self.state, d=self.simulate_d, seed=self.seed + self._presses)
            self._presses += 1
            key = self.plot.draw(self.state, self.theory, self.draw)
            self.image.value = self.blitter.render(("hist", self._presses, key))
            self.readout.value = self.readout_html(self.state, self.theory)
        finally:
            self.button.disabled = False
        return self.draw


def spectrum_explorer(state: SpectrumState | None = None, *, simulate_d: int = 400, seed: int = 0, **overrides):
    """The spectrum explorer (an ``ipywidgets.VBox``).

    Sliders for delta, gamma, ||mu||^2, the weighting, tau and the R family; shows the bulk density, its
    edges and the predicted outliers; a button draws the histogram of a simulated spectrum at dimension
    ``simulate_d`` (seeds ``seed``, ``seed + 1``, ... on successive presses).
    """
    state = resolve_state(SpectrumState, state, overrides)
    return SpectrumExplorer(state, simulate_d=simulate_d, seed=seed)
