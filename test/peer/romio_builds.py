"""Where scripts/build-romio installs the standalone libromios: one place for the
ROMIO tests (romio.py), the differential harness and bench/romio_driver.

No imports beyond the standard library, so that benches can use it too.
"""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# ROMIO with the ad_piox driver and every patch of adio/romio/patches
PATCHED_PREFIX = REPO / "_build" / "romio" / "prefix"
# ROMIO with the standalone build's fixes only (scripts/build-romio --plain)
PLAIN_PREFIX = REPO / "_build" / "romio-plain" / "prefix"


def libromio(prefix):
    """The shared library under an install prefix."""
    return Path(prefix) / "lib" / "libromio.so"
