"""splitters package."""

__all__: list[str] = []
