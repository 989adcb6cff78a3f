"""One table of message roles (rag.message_roles.ROLES): every name of every kind of message
means the same kind wherever it is read or written, and the vocabulary sits below the
layers that use it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rag import codec
from rag.errors import ValidationError
from rag.graph.checkpoint import serde
from rag.memory import message_from_dict, message_to_dict
from rag.message_roles import OPENAI_ROLES, ROLES, MessageRole, openai_role_named, role_named, role_of
from rag.messages import AIMessageChunk, BaseMessage, ToolMessage, convert_to_messages, get_buffer_string
from rag.models._openai_format import message_to_openai
from rag.prompts import ChatPromptTemplate

ROLE_IDS = [role.type for role in ROLES]


def _example(role: MessageRole) -> BaseMessage:
    extra = {"tool_call_id": "call_1"} if role.message_class is ToolMessage else {}
    return role.message_class("text", id="m1", **extra)


def test_the_table_has_one_row_per_kind_under_langchains_type_tags():
    assert [role.type for role in ROLES] == ["human", "ai", "system", "tool"]


def test_no_name_means_two_kinds():
    names = [name for role in ROLES for name in role.names]
    openai = [name for role in ROLES for name in role.openai_roles]
    assert len(names) == len(set(names)) and len(openai) == len(set(openai))


@pytest.mark.parametrize("role", ROLES, ids=ROLE_IDS)
def test_each_name_of_a_role_makes_its_message_from_a_role_dict(role):
    extra = {"tool_call_id": "call_1"} if role.message_class is ToolMessage else {}
    for name in role.names:
        message = convert_to_messages([{"role": name, "content": "x", **extra}])[0]
        assert type(message) is role.message_class, name


@pytest.mark.parametrize("role", [role for role in ROLES if role.templated], ids=lambda r: r.type)
def test_each_name_of_a_templated_role_makes_its_message_in_a_prompt(role):
    for name in role.names:
        [message] = ChatPromptTemplate.from_messages([(name, "about {topic}")]).format_messages(topic="cats")
        assert type(message) is role.message_class and message.content == "about cats", name


def test_a_tool_message_cannot_be_a_prompt_template_and_the_refusal_says_why():
    with pytest.raises(ValidationError, match="'tool' message cannot be a template.*answers a tool call by its id"):
        ChatPromptTemplate.from_messages([("tool", "{result}")])


@pytest.mark.parametrize("role", ROLES, ids=ROLE_IDS)
def test_each_kind_comes_back_as_itself_through_the_codec_a_checkpoint_and_a_history_record(role):
    message = _example(role)
    assert codec.loads(codec.dumps(message)) == message
    assert serde.loads(serde.dumps({"messages": [message]}))["messages"] == [message]
    assert message_from_dict(message_to_dict(message)) == message


@pytest.mark.parametrize("role", ROLES, ids=ROLE_IDS)
def test_each_kind_is_sent_to_openai_with_its_openai_role_and_read_back_from_each(role):
    assert message_to_openai(_example(role))["role"] == role.openai_role
    assert all(openai_role_named(name) is role for name in role.openai_roles)


def test_the_openai_roles_read_include_developer_and_the_legacy_function():
    assert set(OPENAI_ROLES) == {"user", "assistant", "system", "developer", "tool", "function"}


def test_a_chunk_is_of_its_messages_kind():
    assert role_of(AIMessageChunk("hi")) is role_named("ai")
    assert get_buffer_string([AIMessageChunk("hi")]) == "AI: hi"


def test_transcript_prefixes_come_from_the_table_and_human_and_ai_can_be_renamed():
    messages = [_example(role) for role in ROLES]
    assert get_buffer_string(messages) == "\n".join(f"{role.prefix}: text" for role in ROLES)
    assert get_buffer_string(messages[:2], human_prefix="User", ai_prefix="Bot") == "User: text\nBot: text"


def test_a_history_record_of_an_unknown_type_is_refused_naming_the_known_ones():
    with pytest.raises(ValidationError, match=r"known type \(human, ai, system, tool\)"):
        message_from_dict({"type": "function", "data": {"content": "{}"}})


def test_a_message_of_no_kind_is_not_sent_to_openai():
    from rag.graph.message import RemoveMessage
    from rag.models.errors import APIError

    with pytest.raises(APIError, match="RemoveMessage"):
        message_to_openai(RemoveMessage(id="m1"))


def test_the_codec_and_the_role_table_import_nothing_above_the_vocabulary():
    code = ("import sys, rag.codec, rag.message_roles; "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.split('.')[0] == 'rag' and m.count('.')} "
            "& {'memory', 'graph', 'agents', 'index', 'serve', 'cli'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_chat_histories_import_nothing_from_the_server():
    code = "import sys, rag.memory; print(sorted(m for m in sys.modules if m.startswith('rag.serve')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
