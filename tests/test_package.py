"""attnlib stands alone: its wheel builds, holds only the package, and works in a fresh virtual environment.

The wheel is built (``pip wheel --no-deps``) from a copy of the repository, so the book, the tests and the
benchmarks are there to be left out. It is installed (by this environment's pip, ``--no-deps --no-index``)
into a new virtual environment without pip that holds its declared dependencies only: the distributions its
``Requires-Dist`` names and theirs, in the versions of this environment, linked from this environment's
site-packages rather than downloaded and unpacked again; ``pip check`` confirms that they satisfy the
wheel's requirements. A script run by that environment's python imports attnlib, evaluates the theory,
simulates a small setting, draws a spectrum overlay on an Agg figure and checks that ``attnlib.views.explorers``
refuses to import without ipywidgets, naming the extra to install.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

import attnlib

ROOT = Path(__file__).resolve().parents[1]
# Not copied into the build tree: large, generated, or the environments themselves.
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "_build", "node_modules", "build", "dist", "*.egg-info",
                                    "__pycache__", ".pytest_cache", ".ipynb_checkpoints")
EXPLORERS_HINT = 'pip install "attnlib[explorers]"'
PIP_QUIET = ["--disable-pip-version-check", "--no-input", "-q"]
# Environment of the subprocesses: nothing of this checkout or of this venv leaks into the fresh one.
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE")}

# Run by the fresh environment's python, from an empty directory; prints one JSON object.
CHECK_SCRIPT = textwrap.dedent(r'''
    import importlib.metadata
    import importlib.util
    import io
    import json

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    import attnlib
    from attnlib.views import plotting
    from attnlib.model import positional
    from attnlib import theory

    out = {"file": attnlib.__file__, "version": attnlib.__version__,
           "metadata_version": importlib.metadata.version("attnlib"),
           "present": {m: importlib.util.find_spec(m) is not None
                       for m in ("ipywidgets", "IPython", "jupyter_core", "jupyter_book", "pytest")}}

    delta, gamma, kappa = 0.5, 0.25, 1.0
    lower, upper = theory.Bulk(delta, gamma, kappa).support
    theta_pop, theta_sample = theory.thresholds(delta, gamma)
    spike = theory.signal(delta, gamma, 2.0, 1.0, 1.0)
    out["theory"] = {"edges": [lower, upper], "thresholds": [theta_pop, theta_sample],
                     "theta": spike.theta, "sample_overlap": spike.sample_overlap,
                     "density": float(theory.Bulk(delta, gamma, kappa).density(0.5 * (lower + upper)))}

    setting = attnlib.Setting(d=40, V=80, N=160, mu_norm2=2.0, process=positional.markov(8, 0.5), weights="mean")
    draw = attnlib.simulate(setting, np.random.default_rng(0), spectrum="exact")
    ev = np.asarray(draw.spectrum, dtype=float)
    out["simulation"] = {"n": int(ev.size), "finite": bool(np.all(np.isfinite(ev)))}

    fig, ax = plt.subplots()
    w = np.asarray(setting.weights, dtype=float)
    plotting.spectrum_overlay(ax, ev, setting.d / setting.V, setting.d / setting.N, float(w @ w))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    out["plot"] = {"png_bytes": buffer.tell(), "artists": len(ax.patches) + len(ax.lines)}

    try:
        import attnlib.views.explorers  # noqa: F401
    except ImportError as exc:
        out["explorers_error"] = str(exc)
    else:
        out["explorers_error"] = None
    print(json.dumps(out))
''')


def _run(cmd, **kwargs):
    """Run ``cmd``; on failure, fail the test with its output (pip's messages say what went wrong)."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=CLEAN_ENV, **kwargs)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited with {proc.returncode}\n"
                    f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return proc


def _venv_python(env_dir: Path) -> Path:
    return env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the repository (a build never writes into the checkout)."""
    work = tmp_path_factory.mktemp("attnlib-wheel")
    src = work / "src"
    shutil.copytree(ROOT, src, ignore=NOT_COPIED)
    _run([sys.executable, "-m", "pip", "wheel", *PIP_QUIET, "--no-deps", "-w", work / "dist", src])
    wheels = sorted((work / "dist").glob("attnlib-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _requirements(requires) -> list[str]:
    """Names of the requirements that apply here without extras."""
    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in requires or []]
    return [r.name for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def _dependencies(wheel: Path) -> list:
    """This environment's distributions that the wheel's requirements name, and theirs (the closure)."""
    todo, found = _requirements(_metadata(wheel).get_all("Requires-Dist")), {}
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        name = dist.metadata["Name"].lower()
        if name not in found:
            found[name] = dist
            todo += _requirements(dist.requires)
    return list(found.values())


def _link(dists, site: Path) -> None:
    """Make ``dists`` importable in ``site`` by linking their top-level files and folders (as RECORDed)."""
    for dist in dists:
        tops = {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "__pycache__")}
        for top in sorted(tops):
            target = Path(dist.locate_file(top))
            assert not (site / top).exists(), f"{top} of {dist.metadata['Name']} is already in {site}"
            (site / top).symlink_to(target, target_is_directory=target.is_dir())


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """Install the wheel into a fresh virtual environment and run :data:`CHECK_SCRIPT` there."""
    work = tmp_path_factory.mktemp("attnlib-venv")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)
    python = _venv_python(env_dir)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    _link(_dependencies(wheel), site)
    pip = [sys.executable, "-m", "pip", "--python", python]
    _run([*pip, "install", *PIP_QUIET, "--no-deps", "--no-index", wheel])
    _run([*pip, "check"])
    run_dir = work / "run"  # empty: nothing importable from the working directory
    run_dir.mkdir()
    proc = _run([python, "-c", CHECK_SCRIPT], cwd=run_dir)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["env_dir"] = str(env_dir)
    return result


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(z.read(name).decode("utf-8"))


# ------------------------------------------------------------------------------------------ the wheel


def test_wheel_holds_only_the_package(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    dist_info = f"attnlib-{attnlib.__version__}.dist-info/"
    assert wheel.name.startswith(f"attnlib-{attnlib.__version__}-")
    assert "attnlib/__init__.py" in names and "attnlib/theory/__init__.py" in names
    stray = [n for n in names if not (n.startswith("attnlib/") or n.startswith(dist_info))]
    assert not stray, f"files outside attnlib/ in the wheel: {stray}"
    for folder in ("book", "tests", "bench", "scripts", "_ext"):
        assert not any(f"/{folder}/" in f"/{n}" for n in names), f"{folder}/ leaked into the wheel"
    assert not any(n.endswith((".ipynb", ".md", ".pyc")) for n in names)
    assert f"{dist_info}licenses/LICENSE" in names


def test_wheel_metadata(wheel):
    meta = _metadata(wheel)
    assert meta["Name"] == "attnlib"
    assert meta["Version"] == attnlib.__version__
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert meta.get_all("License-File") == ["LICENSE"]
    requires = meta.get_all("Requires-Dist")
    base = sorted(r.split(">")[0].split("=")[0].split(";")[0].strip() for r in requires if "extra ==" not in r)
    assert base == ["matplotlib", "numpy", "scipy", "threadpoolctl"]
    explorers = [r for r in requires if 'extra == "explorers"' in r]
    assert explorers and all(r.startswith("ipywidgets") for r in explorers)
    assert "explorers" in meta.get_all("Provides-Extra")


# ------------------------------------------------------------------------------------------ the fresh venv


def test_fresh_venv_imports_the_installed_wheel(installed):
    assert Path(installed["file"]).resolve().is_relative_to(Path(installed["env_dir"]).resolve())
    assert installed["metadata_version"] == installed["version"] == attnlib.__version__
    assert installed["present"] == {"ipywidgets": False, "IPython": False, "jupyter_core": False,
                                    "jupyter_book": False, "pytest": False}


def test_fresh_venv_theory_simulation_and_plotting(installed):
    th = installed["theory"]
    lower, upper = th["edges"]
    assert 0 <= lower < upper
    assert th["density"] > 0
    theta_pop, theta_sample = th["thresholds"]
    assert 0 < theta_pop < theta_sample
    assert th["theta"] > theta_sample and 0 < th["sample_overlap"] < 1
    # The same numbers as this environment's attnlib (same source, same formulas).
    assert lower == pytest.approx(attnlib.theory.Bulk(0.5, 0.25, 1.0).lower, rel=1e-12)
    assert th["sample_overlap"] == pytest.approx(attnlib.theory.signal(0.5, 0.25, 2.0, 1.0, 1.0).sample_overlap,
                                                 rel=1e-12)
    assert installed["simulation"] == {"n": 40, "finite": True}
    assert installed["plot"]["png_bytes"] > 1000 and installed["plot"]["artists"] > 0


def test_fresh_venv_explorers_name_the_extra(installed):
    message = installed["explorers_error"]
    assert message is not None, "attnlib.views.explorers imported without ipywidgets"
    assert EXPLORERS_HINT in message


# ------------------------------------------------------------------------------------------ single sources


def test_version_single_source():
    """pyproject.toml reads the version from attnlib.__version__; CITATION.cff carries the same number."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'attr = "attnlib.__version__"' in text
    init = (ROOT / "attnlib" / "__init__.py").read_text()
    assert f'__version__ = "{attnlib.__version__}"' in init
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(citation["version"]) == attnlib.__version__


def test_citation_cites_the_paper():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    paper = citation["preferred-citation"]
    assert paper["url"] == "https://arxiv.org/abs/2605.06826"
    assert paper["authors"][0]["family-names"] == "Seddik"
    assert paper in citation["references"]
    assert set(citation["license"]) == {"BSD-3-Clause", "CC-BY-4.0"}
