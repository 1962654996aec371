"""The replay viewer plays a match of every variant (every rules family, Skat included)
through, as the spectator and as a seat, without an error."""

from __future__ import annotations

import pytest
from webtools import Server, Watched, WebData, every_variant

STEP_THROUGH = """steps => {
    for (let i = 0; i < steps; i++) document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
    return document.getElementById('replay-position').textContent;
}"""


@pytest.mark.long(35)
def test_every_variant_replays_from_the_first_step_to_the_last_in_every_view(
        tab: Watched, server: Server, web_data: WebData) -> None:
    page = tab.page
    for seq, (variant, players, _) in enumerate(every_variant()):
        page.goto(f"{server.url}/m/{web_data.families}-{variant}-{players}p-{seq:04d}/")
        assert page.locator("#replay-note").is_hidden(), variant  # the engine played it again: every view is known
        last = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).steps.length - 1")
        for viewer in ("", "1"):  # the spectator, and a seat that does not deal first
            page.select_option("#replay-viewer", viewer)
            page.keyboard.press("Home")
            assert page.evaluate(STEP_THROUGH, last).startswith(f"step {last} of {last}"), (variant, viewer)
            assert page.locator(".final tbody tr").count() == players, (variant, viewer)
        assert tab.errors == [], (variant, tab.errors)
    assert tab.dialogs == [] and tab.foreign == []
