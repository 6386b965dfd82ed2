"""``python -m tritonc``: the same as the ``tritonc`` command."""
from .cli import console_main

console_main()
