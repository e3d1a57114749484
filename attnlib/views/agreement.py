"""Theory against simulation, shown: :func:`compare` (exported as :func:`attnlib.compare`) returns a
:class:`Comparison`, the record of :func:`attnlib.studies.agreement.agreement` with a Markdown table (its
``str``, :meth:`~Comparison.table`) and a figure (:meth:`~Comparison.plot`: the limit as a curve against
||mu||^2, a band of +-2 predicted sd of one draw around it, the draws and their means)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from attnlib.model.kurtosis import SAMPLES
from attnlib.numerics import checks as _v
from attnlib.studies import agreement as _a
from attnlib.views.plotting import COLORS
from attnlib.views.tables import markdown_table, markdown_text, pm, sig

__all__ = ["Comparison", "compare", "HEADERS"]

#: The columns of the table.
HEADERS = ("setting", "quantity", "trials", "mean ± se", "sd", "limit", "predicted sd", "z")
_NAMES = {"top": "top eigenvalue", "overlap_h": "overlap, h", "overlap_u": "overlap, u"}
_LABELS = {"top": "top eigenvalue of $S$", "overlap_h": r"overlap with $h$", "overlap_u": r"overlap with $\mu$"}


@dataclass(frozen=True, eq=False)
class Comparison(_a.Agreement):
    """An :class:`attnlib.studies.agreement.Agreement` that shows itself: ``str`` (Markdown), :meth:`table`
    (displayed by Jupyter) and :meth:`plot`."""

    def labels(self) -> list[str]:
        """One label per setting, naming what varies among them (process, d, weights, ||mu||^2)."""
        parts = [lambda s: s.process.name, lambda s: f"d = {s.d}", lambda s: s.label,
                 lambda s: f"‖μ‖² = {s.mu_norm2:g}"]
        varying = [p for p in parts if len({p(s) for s in self.settings}) > 1] or parts[2:]
        return [", ".join(p(s) for p in varying) for s in self.settings]

    def table_rows(self) -> list[list]:
        """The rows of the table, as :data:`HEADERS` (notes in a last column when there are any)."""
        names, notes = self.labels(), any(r.note for r in self.rows)
        out = []
        for r in self.rows:
            se = (r.sd if np.isfinite(r.sd) else r.predicted_sd) / np.sqrt(r.trials)
            row = [names[r.setting], _NAMES[r.quantity], r.trials, pm(r.mean, se) if np.isfinite(r.mean) else "–",
                   sig(r.sd, 2), sig(r.limit, 4), sig(r.predicted_sd, 2), sig(r.z, 2)]
            out.append(row + ([r.note] if notes else []))
        return out

    def headers(self) -> list[str]:
        return list(HEADERS) + (["note"] if any(r.note for r in self.rows) else [])

    def kurtosis_note(self) -> str:
        """How the kurtosis of the pooled sign was found, setting by setting (exact or sampled)."""
        by_how: dict = {}
        for name, k in zip(self.labels(), self.kurtosis):
            value = f"{k.value:.4g}" if k.method == "exact" else f"{k.value:.4g} ± {k.se:.2g}"
            by_how.setdefault(k.how, {})[f"{name} {value}"] = None
        return "; ".join(f"kurt(wᵀξ) = E[(wᵀξ)⁴]/α²: {', '.join(v)} ({how})" for how, v in by_how.items())

    def __str__(self) -> str:
        return markdown_text(self.headers(), self.table_rows(), digits=4) + "\n\n" + self.kurtosis_note()

    def _repr_markdown_(self) -> str:
        return str(self)

    def table(self):
        """The table as an IPython Markdown object (displayed by Jupyter)."""
        return markdown_table(self.headers(), self.table_rows(), digits=4)

    def plot(self, ax, quantity: str = "overlap_u", *, mu_range=None, points: int = 121, draws: bool = True):
        """Against ||mu||^2, for each group of settings that differ only in ||mu||^2: the limit (line), the band
        limit +- 2 predicted sd of one draw, the draws (dots, if ``draws``) and their means (markers).

        ``ax``: a matplotlib Axes; ``quantity``: one of the compared quantities; ``mu_range``: ``(low, high)``
        of the curves (default: the simulated range of each group); ``points``: the curves' grid.
        """
        quantity = _v.choice("quantity", quantity, tuple(self.values))
        points = _v.positive_int("points", points, minimum=2)
        if mu_range is not None:
            span = _v.finite_vector("mu_range", mu_range)
            if span.size != 2 or not 0 <= span[0] < span[1]:
                raise ValueError(f"mu_range must be (low, high) with 0 <= low < high, got {_v.short(mu_range)}")
            low, high = span
        groups: dict = {}
        for i, s in enumerate(self.settings):
            groups.setdefault((s.process.name, s.d, s.label, s.weights.tobytes()), []).append(i)
        for n, members in enumerate(groups.values()):
            base = self.settings[members[0]]
            color = COLORS.get(base.scheme, f"C{n}")
            mus = np.array([self.settings[i].mu_norm2 for i in members])
            lo, hi = (low, high) if mu_range is not None else (mus.min(), mus.max())
            grid = np.linspace(lo, hi, points) if hi > lo else mus
            limit, sd = _a.prediction_curve(base, grid, quantity, self.kurtosis[members[0]].value)
            ax.plot(grid, limit, color=color, lw=1.4, label=f"{base.label} (α/κ = {sig(base.snr, 3)})")
            ax.fill_between(grid, limit - 2 * sd, limit + 2 * sd, color=color, alpha=0.18, lw=0)
            for j, i in enumerate(members):
                v = self.values[quantity][i]
                if draws:
                    ax.plot(np.full(v.size, mus[j]), v, ".", color=color, ms=2, alpha=0.35)
                ax.plot([mus[j]], [v.mean()], "o", color=color, mec="black", mew=0.6, ms=5)
        ax.set(xlabel=r"signal strength $\|\mu\|^2$", ylabel=_LABELS[quantity])
        return ax


def compare(results, *, quantities=_a.QUANTITIES, seed: int = 0, samples: int = SAMPLES) -> Comparison:
    """Theory against simulation in one call (:func:`attnlib.studies.agreement.agreement`, same arguments).

    ``print(compare(res))`` shows, for each setting and quantity, the simulated mean ± se and sd, the limit,
    the predicted sd of one draw and the z-score, and how the kurtosis of the pooled sign was obtained;
    ``compare(res).plot(ax, "overlap_u")`` draws them against ||mu||^2.
    """
    found = _a.agreement(results, quantities=quantities, seed=seed, samples=samples)
    return Comparison(**{f.name: getattr(found, f.name) for f in fields(found)})
