"""The tile IR (tt level) and its GPU form (ttg level); importing the package registers every op."""
from . import ops, ttg_ops  # noqa: F401  (registers the tt/arith/math/scf ops and the ttg ops)
