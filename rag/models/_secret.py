"""SecretStr: a string that never shows itself in repr, str or logs."""

from __future__ import annotations

from rag.errors import InvalidTypeError

__all__ = ["SecretStr"]


class SecretStr:
    """Holds a secret (an API key); ``get_secret_value()`` is the only way to read it.

    >>> key = SecretStr("sk-123")
    >>> key, str(key), key.get_secret_value()
    (SecretStr('**********'), '**********', 'sk-123')
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise InvalidTypeError(f"a secret must be a str, got {type(value).__name__}")
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self):  # never pickle a key by accident
        raise TypeError("SecretStr cannot be pickled")
