"""The headless Chromium with axe-core that the accessibility gates share (one per test module)."""

from __future__ import annotations

import pytest

from tests.a11y.axe_run import Axe, missing


@pytest.fixture(scope="module")
def axe():
    reason = missing()
    if reason:
        pytest.skip(f"axe-core cannot run: {reason}")
    with Axe() as runner:
        yield runner
