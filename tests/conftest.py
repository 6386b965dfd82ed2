"""Session-wide test settings: the compile cache is off (TRITONC_NO_CACHE), so that every test
compiles what it asks for (a test that patches the compiler must not be served an earlier
test's output), and points at a temporary folder in case a test turns it on
(tests/cli/test_cache.py does)."""
import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_compile_cache(tmp_path_factory):
    saved = {k: os.environ.get(k) for k in ("TRITONC_CACHE_DIR", "TRITONC_NO_CACHE")}
    os.environ["TRITONC_CACHE_DIR"] = str(tmp_path_factory.mktemp("tritonc-cache"))
    os.environ["TRITONC_NO_CACHE"] = "1"
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
