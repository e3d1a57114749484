"""Repository-wide pytest configuration.

Kernels started by nbval inherit this process's environment. Two settings make the recomputed notebook outputs
equal to the committed ones, which ``scripts/execute_notebook.py`` produced with the same environment:

* attnlib's progress bars are switched off (no progress text in outputs);
* BLAS runs on one thread in the kernels: results are then bit-for-bit independent of the machine's core count
  and of other load (on a busy 2-core machine, two BLAS threads per kernel also ran several times slower).
"""

import os

NOTEBOOK_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

os.environ["ATTNLIB_PROGRESS"] = "0"
os.environ.update(NOTEBOOK_THREADS)
