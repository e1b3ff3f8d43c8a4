"""Input rules shared by the adapters (REST, CLI, MCP), so one rule holds everywhere."""
from __future__ import annotations

import math
from datetime import datetime
from typing import Any

ISO_HINT = "an ISO 8601 date or date-time, e.g. 2026-10-10T06:30:00Z"


def iso_timestamp(value: str) -> str:
    """Return `value` unchanged when it is ISO 8601; ValueError with the rule otherwise."""
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"timestamp must be {ISO_HINT}; got {value!r}") from None
    return value


def has_lone_surrogate(text: str) -> bool:
    """True when `text` holds a UTF-16 surrogate half, which no UTF-8 store can keep."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_json_value(value: Any, where: str = "body") -> None:
    """ValueError for what JSON parsers accept but the engine cannot store: NaN, ±Infinity (also from
    literals like 1e400) and strings with lone surrogates, anywhere in a decoded JSON document."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{path}: numbers must be finite (NaN, Infinity and out-of-range values like 1e400 "
                             "are not allowed)")
        if isinstance(item, str) and has_lone_surrogate(item):
            raise ValueError(f"{path}: text holds a lone surrogate (\\ud800-\\udfff), which is not valid Unicode")
        if isinstance(item, dict):
            for key, sub in item.items():
                if has_lone_surrogate(key):
                    raise ValueError(f"{path}: a key holds a lone surrogate, which is not valid Unicode")
                stack.append((sub, f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{n}]") for n, sub in enumerate(item))
