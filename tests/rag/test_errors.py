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
        (errors.UsageError, RuntimeError),
        (errors.UnsupportedOperationError, NotImplementedError),
        (errors.InvalidTypeError, TypeError),
        (errors.RequestRefusedError, OSError),
        (errors.APIError, RuntimeError),
        (errors.APIConnectionError, ConnectionError),
        (errors.APITimeoutError, TimeoutError),
        (errors.BadRequestError, ValueError),
    ],
)
def test_every_error_derives_from_rag_error_and_its_builtin(cls, builtin):
    assert issubclass(cls, errors.RagError) and issubclass(cls, builtin)


def test_not_found_error_prints_its_message_without_quotes():
    assert str(errors.NotFoundError("variable 'x' is missing")) == "variable 'x' is missing"


def test_a_refused_request_is_a_fetch_error_naming_the_url_and_the_reason():
    refused = errors.RequestRefusedError("http://outside/", "redirected outside http://docs/")
    assert isinstance(refused, errors.FetchError)
    assert (refused.url, refused.reason, refused.status) == ("http://outside/", "redirected outside http://docs/", None)


def test_embedding_service_error_is_the_root_of_the_api_family_chat_and_embeddings_share():
    assert errors.EmbeddingServiceError is errors.APIError
    assert issubclass(errors.RateLimitError, errors.EmbeddingServiceError)


def test_the_old_embedding_service_error_call_still_sets_status_code():
    assert errors.EmbeddingServiceError("down", status_code=503).status_code == 503
    assert errors.APIError("down").status_code is None


@pytest.mark.parametrize("status, cls", [(400, errors.BadRequestError), (401, errors.AuthenticationError),
                                         (403, errors.PermissionDeniedError), (404, errors.APIStatusError),
                                         (429, errors.RateLimitError), (503, errors.InternalServerError)])
def test_each_http_status_maps_to_the_most_specific_api_error(status, cls):
    assert errors.status_error_class(status) is cls


def test_the_chat_models_package_names_the_same_classes():
    from rag import models

    assert models.APIError is errors.APIError and models.RateLimitError is errors.RateLimitError
