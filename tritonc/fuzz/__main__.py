"""``python -m tritonc.fuzz``: see :func:`tritonc.fuzz.runner.main`."""
import sys

from .runner import main

sys.exit(main())
