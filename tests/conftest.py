"""Fixtures shared across the test folders."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (:mod:`tests.browser`) for a module's browser tests; each test opens its
    own contexts. Module-scoped, so that Playwright's event loop ends with the module and never
    overlaps other modules' own event loops."""
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
