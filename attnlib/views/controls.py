"""The controls of the three explorers, declared once, and the state helpers they share.

Every control is one row of :data:`CONTROLS`: the state field it sets, its kind, its range and step, its
default (which is also the default of the field in the explorers' states), its label and a help text. The
explorers differ only in which rows they show and how they arrange them (:data:`LAYOUTS`). A slider's
default lies on its grid ``low + k * step`` (:func:`on_grid`), so that a slider shows its default exactly
instead of snapping to the nearest step when it is first drawn.

Nothing here needs ipywidgets: the JupyterLab explorers (:mod:`attnlib.views.explorers`) and the live explorers of
the HTML book (:mod:`attnlib.views.webexplorer`) both build their controls from these rows.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from attnlib.numerics import checks as _v
from attnlib.model import positional
from attnlib.model import weights as _w

__all__ = ["CONTROL_KINDS", "Control", "CONTROLS", "LAYOUTS", "WIDTHS", "FAMILIES", "FAMILY_FIELDS", "WEIGHTINGS",
           "GAMMA_MAX", "THETA_MAX", "TAU_MAX", "HEADS_MAX", "on_grid", "resolve_state", "sequence_process",
           "family_parameters", "state_fields", "PRIMER_VIEWS"]

#: The R families offered (those of :func:`attnlib.model.positional.family`) and the named weightings
#: (those of :func:`attnlib.model.weights.named`).
FAMILIES = positional.FAMILIES
WEIGHTINGS = _w.NAMED

#: The widget kinds (float and int sliders, a dropdown, toggle buttons, a checkbox).
CONTROL_KINDS = ("float", "int", "dropdown", "toggle", "check")

#: Right ends of the gamma, theta and tau axes (the phase plane, the overlap curves, the causal curve).
GAMMA_MAX = 3.0
THETA_MAX = 8.0
TAU_MAX = 8.0
#: Most heads of the heads explorer.
HEADS_MAX = 4

_GRID_TOL = 1e-9

#: The views of the primer's figure (the ``view`` control): the Marchenko-Pastur law, a spike, the free product.
PRIMER_VIEWS = ("MP law", "spike", "MP ⊠ MP")


@dataclass(frozen=True)
class Control:
    """One control: the state field it sets and everything needed to draw it.

    Parameters
    ----------
    name : str
        The state field the control sets (also its key in an explorer's ``controls``).
    kind : str
        One of ``CONTROL_KINDS``.
    low, high, step : float, optional
        Slider range and step (sliders only). ``high`` may be the name of another state field, whose value
        bounds this one (the block length L is at most T).
    default : object
        Default value, on the slider's grid.
    label : str
        The text shown next to the control.
    help : str
        A tooltip saying what the control sets.
    options : tuple
        The choices of a dropdown or of toggle buttons, as (value, help) pairs.
    shown_when : tuple, optional
        A pair (field, values): show the control only while the state's ``field`` is one of ``values``
        (always, if the state has no such field).
    """

    name: str
    kind: str
    low: float | None = None
    high: float | str | None = None
    step: float | None = None
    default: object = None
    label: str = ""
    help: str = ""
    options: tuple = ()
    shown_when: tuple = ()

    def __post_init__(self):
        _v.choice("kind", self.kind, CONTROL_KINDS)
        if self.kind in ("float", "int"):
            if self.low is None or self.high is None or self.step is None or not self.step > 0:
                raise ValueError(f"control {self.name!r}: a slider needs low, high and step > 0, got "
                                 f"low={self.low!r}, high={self.high!r}, step={self.step!r}")
        elif self.kind in ("dropdown", "toggle"):
            values = [value for value, _ in self.options]
            _v.choice(f"default of control {self.name!r}", self.default, values)

    @property
    def values(self) -> tuple:
        """The allowed values of a dropdown or toggle control."""
        return tuple(value for value, _ in self.options)


_WEIGHTING_HELP = {
    "mean": "mean pooling, w_t = 1/T",
    "causal": "causal self-attention in the limit, scores multiplied by tau",
    "optimal": "top eigenvector of R (the largest alpha/kappa)",
}
#: The state fields of a family's process: the family, T and the parameters of the families (a control each,
#: shown while the family is one that has it).
FAMILY_FIELDS = ("family", "T", *positional.PARAMETERS)

#: The controls of all three explorers, keyed by the state field they set.
CONTROLS: dict[str, Control] = {c.name: c for c in (
    Control("delta", "float", 0.05, 2.0, 0.05, 0.5, "δ = d/V",
            "vocabulary ratio: embedding dimension d over vocabulary size V"),
    Control("gamma", "float", 0.01, GAMMA_MAX, 0.01, 0.25, "γ = d/N",
            "sample ratio: embedding dimension d over the number N of sequences"),
    Control("mu_norm2", "float", 0.0, 4.0, 0.05, 1.0, "‖μ‖²", "signal strength: squared norm of the class mean"),
    Control("theta", "float", 0.0, THETA_MAX, 0.05, 5.3, "θ (point)",
            "spike strength of the point, in units of κ"),
    Control("weighting", "toggle", default="mean", label="weights", help="the pooling weights",
            options=tuple((name, _WEIGHTING_HELP[name]) for name in WEIGHTINGS)),
    Control("tau", "float", 0.0, TAU_MAX, 0.1, 0.0, "τ (causal)",
            "score scale of causal attention (it multiplies the scores): the extra score of a query on itself",
            shown_when=("weighting", ("causal",))),
    Control("family", "dropdown", default="markov", label="R family",
            help="the positional correlation R of the class signs",
            options=tuple((f.name, f.help) for f in positional.FAMILY_RECORDS)),
    Control("T", "int", 2, 64, 1, 16, "T", "sequence length"),
    *(Control(p.name, p.kind, p.low, p.high, p.step, p.default, p.label, p.help,
              shown_when=("family", tuple(f.name for f in positional.FAMILY_RECORDS if p in f.params)))
      for p in positional.PARAMETERS.values()),
    Control("centered", "check", default=True, label="center the pooled vectors",
            help="centre the pooled vectors before forming S (uncentered: a second, vocabulary-mean spike)"),
    Control("view", "toggle", default=PRIMER_VIEWS[0], label="view", help="what the primer's figure shows",
            options=tuple(zip(PRIMER_VIEWS, ("the Marchenko–Pastur law MP_δ and its Stieltjes transform G",
                                             "a spike of strength θ on MP_δ: the secular equation G(λ) = 1/θ",
                                             "MP_δ ⊠ MP_γ against its two factors, and the spike seen in it")))),
    Control("heads", "toggle", default="2", label="heads H", help="the number of concatenated heads",
            options=tuple((str(h), f"{h} head{'s' if h > 1 else ''}") for h in range(1, HEADS_MAX + 1))),
    Control("anticausal", "check", default=True, label="even heads anti-causal",
            help="heads 2 and 4 read the sequence from its end (their weights reversed)",
            shown_when=("heads", tuple(str(h) for h in range(2, HEADS_MAX + 1)))),
    *(Control(f"tau{j}", "float", -4.0, TAU_MAX, 0.5, 0.0, f"τ{'₁₂₃₄'[j - 1]}",
              f"score scale of head {j} (causal attention in the limit)",
              shown_when=("heads", tuple(str(h) for h in range(j, HEADS_MAX + 1))) if j > 1 else ())
      for j in range(1, HEADS_MAX + 1)),
)}

#: Which controls each explorer shows, row by row.
LAYOUTS = {
    "spectrum": (("delta", "gamma", "mu_norm2"), ("weighting", "tau"), FAMILY_FIELDS, ("centered",)),
    "phase": (("delta", "gamma", "theta"),),
    "weights": (FAMILY_FIELDS, ("tau",)),
}
#: Slider width of each explorer.
WIDTHS = {"spectrum": "250px", "phase": "300px", "weights": "250px"}


def on_grid(control: Control, high=None) -> bool:
    """Whether ``control``'s default lies in its range and, for a slider, on its grid ``low + k * step``.

    ``high``: the upper bound to use when ``control.high`` names another field (default: that field's
    control default). The range must also be a whole number of steps, so that ``high`` is reachable.
    """
    if not isinstance(control, Control):
        raise ValueError(f"control must be an explorers Control, got {control!r}")
    if control.kind in ("dropdown", "toggle"):
        return control.default in control.values
    if control.kind == "check":
        return isinstance(control.default, bool)
    top = control.high
    if isinstance(top, str):
        top = CONTROLS[top].default if high is None else high
    if control.kind == "int" and not all(float(v).is_integer() for v in (control.low, top, control.step,
                                                                            control.default)):
        return False
    steps = (control.default - control.low) / control.step
    span = (top - control.low) / control.step
    return bool(control.low <= control.default <= top and abs(steps - round(steps)) < _GRID_TOL
                and abs(span - round(span)) < _GRID_TOL)


def resolve_state(cls: type, state, overrides: dict):
    """``state`` (default: ``cls()``) with ``overrides`` applied, after checking both."""
    if state is None:
        state = cls()
    elif not isinstance(state, cls):
        raise ValueError(f"state must be a {cls.__name__} or None, got {state!r}")
    allowed = [f.name for f in fields(cls)]
    unknown = sorted(set(overrides) - set(allowed))
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(map(repr, unknown))}; "
                         f"allowed fields: {', '.join(allowed)}")
    return replace(state, **overrides) if overrides else state


def sequence_process(state) -> positional.SignProcess:
    """Normalise the sequence fields of a frozen ``state`` (:data:`FAMILY_FIELDS` and tau) and return its sign
    process.

    Every family parameter is made a finite number (a positive integer for an integer slider); the family's own
    rules (r in [-1, 1] for markov, 1 <= L <= T for the block families) are those of
    :func:`attnlib.model.positional.family`.
    """
    set_ = object.__setattr__
    set_(state, "T", _v.positive_int("T", state.T))
    for p in positional.PARAMETERS.values():
        set_(state, p.name, (_v.positive_int if p.kind == "int" else _v.finite_scalar)(p.name, getattr(state, p.name)))
    set_(state, "tau", _v.finite_scalar("tau", state.tau))
    return positional.family(state.family, state.T, **family_parameters(state))


def family_parameters(state) -> dict:
    """The family parameters (:data:`attnlib.model.positional.PARAMETERS`) of ``state``, a mapping or an object
    with those fields, by name."""
    get = state.get if isinstance(state, dict) else lambda name: getattr(state, name)
    return {name: get(name) for name in positional.PARAMETERS}


def state_fields(cls_namespace: dict):
    """Declare every family parameter as a field (with its control's default) in the body of a state dataclass:
    ``state_fields(locals())`` after the fields ``family`` and ``T``."""
    annotations = cls_namespace.setdefault("__annotations__", {})
    for p in positional.PARAMETERS.values():
        annotations[p.name] = int if p.kind == "int" else float
        cls_namespace[p.name] = p.default


def _check_table():
    """The table's own consistency: every default on its grid (also checked by the tests)."""
    bad = [name for name, control in CONTROLS.items() if not on_grid(control)]
    if bad:
        raise ValueError(f"controls {bad} have a default off their slider grid")
    if {name for rows in LAYOUTS.values() for row in rows for name in row} - set(CONTROLS):
        raise ValueError("LAYOUTS names a control that CONTROLS does not declare")


_check_table()
