"""What the pages embed as JSON: valid, and unable to close the element that holds it."""

from __future__ import annotations

import json

from arena.web.render import _ENV


def _embedded(value: object) -> object:
    text = _ENV.from_string("{{ value | tojson }}").render(value=value)
    assert "<" not in text and ">" not in text and "&" not in text and "'" not in text
    return json.loads(text)


def test_text_that_would_close_the_script_element_is_escaped_and_reads_back() -> None:
    hostile = "</script><script>alert('x')</script>&amp;"
    assert _embedded({"name": hostile, "seats": [1, 2]}) == {"name": hostile, "seats": [1, 2]}


def test_the_fields_keep_their_order_and_nan_becomes_null() -> None:
    text = _ENV.from_string("{{ value | tojson }}").render(value={"b": 1, "a": float("nan")})
    assert text == '{"b":1,"a":null}'  # JSON.parse rejects NaN


def test_values_msgspec_declines_are_written_by_the_standard_library() -> None:
    assert _embedded({True: 1}) == {"true": 1}
    assert _embedded("\ud800") == "\ud800"  # a lone surrogate, escaped
