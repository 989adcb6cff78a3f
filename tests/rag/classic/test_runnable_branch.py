"""RunnableBranch: construction errors, choice order, streaming and tags."""

import pytest

from rag.callbacks import BaseCallbackHandler
from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.runnables import RunnableBranch, RunnableLambda


def test_fewer_than_two_arguments_are_refused():
    with pytest.raises(ValidationError, match="at least two branches"):
        RunnableBranch(lambda x: x)


def test_a_branch_must_be_a_pair():
    with pytest.raises(TypeError, match="tuples or lists"):
        RunnableBranch("not a pair", lambda x: x)
    with pytest.raises(ValueError, match="length 2, not 3"):
        RunnableBranch((lambda x: True, lambda x: x, 3), lambda x: x)


def test_the_first_true_condition_wins():
    branch = RunnableBranch((lambda x: x > 0, lambda x: "first"), (lambda x: x > 1, lambda x: "second"),
                            lambda x: "default")
    assert [branch.invoke(v) for v in (5, -1)] == ["first", "default"]


def test_streaming_passes_the_chosen_models_chunks_on():
    branch = RunnableBranch((lambda x: "hi" in x, FakeListChatModel(responses=["hello there friend"])),
                            RunnableLambda(lambda x: "no"))
    chunks = [c.content for c in branch.stream("hi")]
    assert len(chunks) > 1 and "".join(chunks) == "hello there friend"


def test_conditions_and_branches_are_tagged_for_everything_they_call():
    seen = []

    class Tags(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, *, tags=None, **kw):
            seen.append((kw["name"], tags))

    inner = RunnableLambda(lambda x: x, name="inner")
    branch = RunnableBranch((lambda x: False, lambda x: x), RunnableLambda(lambda x: inner.invoke(x), name="outer"))
    branch.invoke(1, {"callbacks": [Tags()]})
    assert [(name, list(t)) for name, t in seen] == [("RunnableBranch", []), ("RunnableLambda", ["condition:1"]),
                                                     ("outer", ["branch:default"]), ("inner", ["branch:default"])]
