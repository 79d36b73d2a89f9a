"""pytest set-up for the Python module's tests (ctest python.pytest; docs/python.md).

ctest puts BUILD/python on PYTHONPATH and names the CLI binary in SHARDSIM_BINARY."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("SHARDSIM_BINARY")
    if not binary:
        pytest.skip("SHARDSIM_BINARY is not set (run through ctest)")
    return binary
