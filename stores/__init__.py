"""stores package."""

__all__: list[str] = []
