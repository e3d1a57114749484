"""Layer 3, engine: one draw of the model and the one Monte-Carlo loop, and the numerics under them.

* :mod:`~attnlib.engine.simulation`: one draw (:func:`~attnlib.engine.simulation.simulate`);
* :mod:`~attnlib.engine.montecarlo`: the Monte-Carlo engine (:func:`~attnlib.engine.montecarlo.sweep`) and
  the random streams (:func:`~attnlib.engine.montecarlo.streams`);
* :mod:`~attnlib.engine.operators`: S and the population covariance applied without forming them;
* :mod:`~attnlib.engine.slq`: spectral densities by stochastic Lanczos quadrature;
* :mod:`~attnlib.engine.cost`: the work and memory of each path, and the memory check;
* :mod:`~attnlib.engine.compare`: simulated spectra against a law (distances, extremes, moments);
* :mod:`~attnlib.engine.progress`: progress bars;
* :mod:`~attnlib.engine.heads`: draws of concatenated heads, matrix-free.

Imports only the layers below (numerics, theory, model).
"""

from attnlib.engine import cost, montecarlo, operators, progress, simulation, slq, compare, heads

# ``slq``, ``compare``, ``progress`` and ``heads`` are submodules as well (``import attnlib.engine.slq``), left out
# of ``__all__`` because each name is another public object too (the functions ``slq.slq``, ``attnlib.compare``,
# ``progress.progress``, the module ``attnlib.model.heads``): one name, one object (tests/test_public_face.py).
__all__ = ["simulation", "montecarlo", "operators", "cost"]
