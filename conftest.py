"""Repository-wide pytest configuration.

Kernels started by nbval inherit this process's environment: switch attnlib's progress bars off so that the
recomputed notebook outputs contain no progress text (the committed ones were executed the same way).
"""

import os

os.environ["ATTNLIB_PROGRESS"] = "0"
