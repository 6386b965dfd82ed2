"""The version of tritonc (printed by ``tritonc --version`` and written into generated launchers)."""
__version__ = "0.1.0"
