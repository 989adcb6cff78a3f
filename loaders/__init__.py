"""loaders package."""

__all__: list[str] = []
