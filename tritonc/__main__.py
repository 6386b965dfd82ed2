"""``python -m tritonc``: the same as the ``tritonc`` command."""
from .cli import main

main()
