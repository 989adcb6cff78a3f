"""The exception tree: one root, and the builtins LangChain users already catch."""

import pytest

from rag import errors


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (errors.ValidationError, ValueError),
        (errors.DimensionMismatchError, ValueError),
        (errors.EmbeddingMismatchError, ValueError),
        (errors.NotFoundError, KeyError),
        (errors.StorageError, OSError),
        (errors.CorruptIndexError, OSError),
        (errors.MissingDependencyError, ImportError),
        (errors.FetchError, OSError),
        (errors.PageNotFoundError, FileNotFoundError),
        (errors.EmbeddingServiceError, RuntimeError),
    ],
)
def test_every_error_derives_from_rag_error_and_its_builtin(cls, builtin):
    assert issubclass(cls, errors.RagError) and issubclass(cls, builtin)


def test_not_found_error_prints_its_message_without_quotes():
    assert str(errors.NotFoundError("variable 'x' is missing")) == "variable 'x' is missing"
