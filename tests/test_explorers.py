"""attnlib.explorers: the widgets build, a control change redraws exactly what attnlib.theory predicts, the
static figures show the explorers' default states, the simulation button agrees with the theory, and bad
input is refused. Latency is measured (measure_latency) but never asserted: timings depend on the machine."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from attnlib import explorers, positional, theory  # noqa: E402
from attnlib import weights as W  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------------------------------ helpers


def test_make_process_families():
    assert np.allclose(explorers.make_process("independent", 5).R, np.eye(5))
    assert np.allclose(explorers.make_process("markov", 6, r=0.5).R, positional.markov(6, 0.5).R)
    assert np.allclose(explorers.make_process("prefix", 6, L=3).R, positional.prefix(6, 3).R)
    assert np.allclose(explorers.make_process("suffix", 6, L=2).R, positional.suffix(6, 2).R)
    # blocks of L with a shorter last block
    assert np.allclose(explorers.make_process("blocks", 7, L=3).R, positional.blocks([3, 3, 1]).R)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: explorers.make_process("cauchy", 8), "family"),
        (lambda: explorers.make_process("prefix", 4, L=5), "L"),
        (lambda: explorers.make_process("markov", 4, r=1.5), "r"),
        (lambda: explorers.weights_for("softmax", positional.independent(3)), "weighting"),
        (lambda: explorers.SpectrumState(delta=-1), "delta"),
        (lambda: explorers.SpectrumState(T=0), "T"),
        (lambda: explorers.SpectrumState(weighting="max"), "weighting"),
        (lambda: explorers.PhaseState(theta=-0.1), "theta"),
        (lambda: explorers.WeightsState(family="x"), "family"),
        (lambda: explorers.spectrum_simulation(d=1), "d"),
        (lambda: explorers.measure_latency(None, []), "changes"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_nice_ceil_steps():
    assert explorers._nice_ceil(0.42) == 0.5
    assert explorers._nice_ceil(3.1) == 4.0
    assert explorers._nice_ceil(1.0) == 1.0
    assert explorers._nice_ceil(0.0) == 1.0


# ------------------------------------------------------------------------------------------ spectrum


def _expected_spectrum(delta, gamma, mu_norm2, w, R):
    """Independent of the explorer: straight from attnlib.theory and attnlib.weights."""
    alpha, kappa = float(w @ R @ w), float(w @ w)
    return theory.bulk_edges(delta, gamma, kappa), theory.signal(delta, gamma, alpha, kappa, mu_norm2), kappa


def test_spectrum_explorer_builds_and_follows_the_theory():
    ex = explorers.spectrum_explorer()
    assert isinstance(ex, widgets.VBox)
    assert bytes(ex.image.value).startswith(PNG) and "θ" in ex.readout.value
    first_png = bytes(ex.image.value)
    # every control has its own Layout (hiding one must not hide the others)
    assert len({id(c.layout) for c in ex.controls.values()}) == len(ex.controls)
    visible = [name for name, c in ex.controls.items() if c.layout.display != "none"]
    assert visible == ["delta", "gamma", "mu_norm2", "weighting", "family", "T", "r", "centered"]

    ex.controls["delta"].value = 0.8  # through the widget, as a slider drag would
    R = positional.markov(16, 0.6).R
    (lo, hi), sig, kappa = _expected_spectrum(0.8, 0.25, 1.0, W.mean(16), R)
    x, y = ex.plot.density.get_data()
    atom = theory.zero_atom(0.8, 0.25)
    assert x[0] == pytest.approx(lo) and x[-1] == pytest.approx(hi)
    assert np.allclose(y, theory.bulk_density(x, 0.8, 0.25, kappa) / (1 - atom))
    assert [e.get_xdata()[0] for e in ex.plot.edges] == pytest.approx([lo, hi])
    assert ex.plot.outlier.get_visible()
    assert ex.plot.outlier.get_xdata()[0] == pytest.approx(sig.sample_eigenvalue)
    assert bytes(ex.image.value) != first_png

    # causal weights: tau shows up and moves the prediction as theory says
    assert ex.controls["tau"].layout.display == "none"
    ex.controls["weighting"].value = "causal"
    ex.controls["tau"].value = 2.0
    assert ex.controls["tau"].layout.display == ""
    _, sig, _ = _expected_spectrum(0.8, 0.25, 1.0, W.causal(16, 2.0), R)
    assert ex.plot.outlier.get_xdata()[0] == pytest.approx(sig.sample_eigenvalue)

    # below the sample threshold the outlier line disappears
    ex.update(mu_norm2=0.0, family="independent")
    assert not ex.theory["signal"].sample_detectable and not ex.plot.outlier.get_visible()
    assert "none" in ex.readout.value

    # uncentered: the vocabulary-mean outlier appears
    ex.update(centered=False)
    mean = theory.mean_spike(0.8, 0.25, 1.0, float(W.causal(16, 2.0) @ W.causal(16, 2.0)))
    assert ex.plot.mean_outlier.get_visible()
    assert ex.plot.mean_outlier.get_xdata()[0] == pytest.approx(mean.sample_eigenvalue)


def test_spectrum_simulation_button_agrees_with_theory():
    ex = explorers.spectrum_explorer(seed=0)
    ex.button.click()
    draw = ex.draw
    assert draw is not None and draw.setting.d == 400 and ex.plot.hist is not None
    assert len(draw.eigenvalues) == 400 and "simulated" in ex.readout.value
    th = ex.theory
    # d = 400: over 8 seeds the top eigenvalue has sd 0.022 around the prediction 0.421 and cos^2 with h sd
    # 0.008; allow about 4.5 and 5 sd. The largest bulk eigenvalue sits at the edge (sd 0.005; allow 0.03).
    assert abs(draw.eigenvalues[0] - th["signal"].sample_eigenvalue) < 0.1
    assert abs(draw.overlap_h - th["signal_h"].sample_overlap) < 0.04
    assert abs(draw.eigenvalues[1] - th["edges"][1]) < 0.03
    # a second press draws a fresh spectrum (next seed); moving a slider drops the stale histogram
    second = ex.simulate()
    assert not np.allclose(second.eigenvalues, draw.eigenvalues)
    ex.update(gamma=0.3)
    assert ex.draw is None and ex.plot.hist is None


def test_spectrum_figure_is_the_default_state():
    fig, th, draw = explorers.spectrum_figure()
    assert draw is None
    ex = explorers.spectrum_explorer()
    assert th["theta"] == pytest.approx(ex.theory["theta"])
    assert np.allclose(fig.axes[0].lines[0].get_ydata(), ex.plot.density.get_ydata())
    fig2, _, draw2 = explorers.spectrum_figure(simulate_d=200, seed=3)
    again = explorers.spectrum_simulation(d=200, seed=3)
    assert np.array_equal(draw2.eigenvalues, again.eigenvalues)  # seeded: reproducible


# ------------------------------------------------------------------------------------------ phase


def test_phase_explorer_regions_and_predictions():
    ex = explorers.phase_explorer()
    assert isinstance(ex, widgets.VBox) and bytes(ex.image.value).startswith(PNG)
    delta, gamma = 0.5, 0.25
    pop, smp = theory.thresholds(delta, gamma)
    for theta, region in [(0.5 * pop, "none"), ((pop + smp) / 2, "population"), (smp + 1.0, "sample")]:
        ex.controls["theta"].value = round(theta, 2)
        assert ex.theory["region"] == region, (theta, region)
        assert list(ex.plot.point.get_xydata()[0]) == pytest.approx([gamma, round(theta, 2)])
    expected = theory.spike(ex.state.theta, delta, gamma, 1.0, direction="h")
    assert ex.theory["spike"].sample_eigenvalue == pytest.approx(expected.sample_eigenvalue)
    assert ex.theory["spike"].sample_overlap == pytest.approx(expected.sample_overlap)

    ex.controls["delta"].value = 1.0
    g, th_smp = ex.plot.smp_line.get_data()
    i = len(g) // 2
    assert th_smp[i] == pytest.approx(theory.thresholds(1.0, g[i])[1])
    assert ex.plot.pop_line.get_ydata()[0] == pytest.approx(1.0 + 1.0)  # delta + sqrt(delta)


def test_phase_figure_is_the_default_state():
    fig, th = explorers.phase_figure()
    assert th["region"] == explorers.phase_explorer().theory["region"] == "sample"
    assert len(fig.axes) == 2


# ------------------------------------------------------------------------------------------ weights


def test_weights_explorer_scalars():
    ex = explorers.weights_explorer()
    assert isinstance(ex, widgets.VBox) and bytes(ex.image.value).startswith(PNG)
    ex.controls["family"].value = "prefix"
    ex.controls["L"].value = 5
    ex.controls["tau"].value = 1.5
    R = positional.prefix(16, 5).R
    expected = {"mean": W.mean(16), "causal": W.causal(16, 1.5), "optimal": W.optimal(R)}
    for name, w in expected.items():
        assert np.allclose(ex.plot.lines[name].get_ydata(), w)
        assert ex.theory["scalars"][name] == pytest.approx((W.alpha(w, R), W.kappa(w), W.snr(w, R)))
    assert ex.theory["lambda_max"] == pytest.approx(np.linalg.eigvalsh(R)[-1])
    assert ex.theory["scalars"]["optimal"][2] == pytest.approx(ex.theory["lambda_max"])
    assert all(s[2] <= ex.theory["lambda_max"] + 1e-12 for s in ex.theory["scalars"].values())
    assert ex.controls["r"].layout.display == "none" and ex.controls["L"].layout.display == ""
    ex.controls["T"].value = 8  # L's range follows T
    assert ex.controls["L"].max == 8
    assert np.array_equal(ex.plot.image.get_array(), positional.prefix(8, 5).R)
    ex.controls["T"].value = 3  # shorter than the prefix: L is clamped to T, no error
    assert ex.state.L == ex.controls["L"].value == ex.controls["L"].max == 3 and ex.message.value == ""
    assert np.array_equal(ex.plot.image.get_array(), positional.prefix(3, 3).R)


def test_weights_figure_is_the_default_state():
    fig, th = explorers.weights_figure()
    ex = explorers.weights_explorer()
    assert all(th["scalars"][k] == pytest.approx(v) for k, v in ex.theory["scalars"].items())
    assert len(fig.axes) == 3


# ------------------------------------------------------------------------------------------ latency


def test_latency_is_measured_not_asserted():
    ex = explorers.phase_explorer()
    report = explorers.measure_latency(ex, [{"theta": 1.0 + 0.25 * i} for i in range(5)])
    assert report["n"] == 5
    assert report["median_ms"] > 0 and report["cpu_median_ms"] >= 0
    # moving the point never changes the axes: every update is a blit, no full redraw
    assert report["full_draws"] == 0
