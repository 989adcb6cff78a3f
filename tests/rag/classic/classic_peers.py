"""The two sides of the classic differential tests: the same names from langchain_classic
(with langchain_core's fakes) and from rag.classic, and a callback recorder for each."""

from types import SimpleNamespace

import langchain_classic.agents as lc_agents
import langchain_classic.chains as lc_chains
import langchain_classic.memory as lc_memory
from langchain_core.callbacks import BaseCallbackHandler as LcHandler
from langchain_core.documents import Document as LcDocument
from langchain_core.language_models import FakeListChatModel as LcFakeList
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel as LcGeneric
from langchain_core.messages import AIMessage as LcAIMessage
from langchain_core.prompts import ChatPromptTemplate as LcChatPrompt
from langchain_core.prompts import MessagesPlaceholder as LcPlaceholder
from langchain_core.prompts import PromptTemplate as LcPrompt
from langchain_core.retrievers import BaseRetriever as LcRetriever
from langchain_core.runnables import RunnableBranch as LcBranch
from langchain_core.tools import Tool as LcTool
from langchain_core.tools import tool as lc_tool

import rag.classic.agents as our_agents
import rag.classic.chains as our_chains
import rag.classic.memory as our_memory
from rag.callbacks import BaseCallbackHandler as OurHandler
from rag.documents import Document
from rag.messages import AIMessage
from rag.models import FakeListChatModel, GenericFakeChatModel
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.retrievers import BaseRetriever
from rag.runnables import RunnableBranch
from rag.tools import Tool, tool


class _Recording:
    """Records (depth, event, detail) for the events a classic run sends; depth is how
    many runs up the tree a run has (0 for the top)."""

    def __init__(self):
        self.events = []
        self._depth = {}

    def _at(self, run_id, parent_run_id):
        depth = self._depth.get(parent_run_id, -1) + 1 if parent_run_id is not None else 0
        self._depth[run_id] = depth
        return depth

    def _of(self, run_id):
        return self._depth.get(run_id, 0)

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
        self.events.append((self._at(run_id, parent_run_id), "chain_start", kw.get("name")))

    def on_chain_end(self, outputs, *, run_id, **kw):
        self.events.append((self._of(run_id), "chain_end", None))

    def on_chain_error(self, error, *, run_id, **kw):
        self.events.append((self._of(run_id), "chain_error", type(error).__name__))

    def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kw):
        self.events.append((self._at(run_id, parent_run_id), "chat_model_start", None))

    def on_llm_end(self, response, *, run_id, **kw):
        self.events.append((self._of(run_id), "llm_end", None))

    def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, **kw):
        self.events.append((self._at(run_id, parent_run_id), "tool_start", serialized["name"]))

    def on_tool_end(self, output, *, run_id, **kw):
        self.events.append((self._of(run_id), "tool_end", str(getattr(output, "content", output))))

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kw):
        self.events.append((self._at(run_id, parent_run_id), "retriever_start", query))

    def on_retriever_end(self, documents, *, run_id, **kw):
        self.events.append((self._of(run_id), "retriever_end", len(documents)))

    def on_agent_action(self, action, *, run_id, **kw):
        self.events.append((self._of(run_id), "agent_action", (action.tool, action.tool_input)))

    def on_agent_finish(self, finish, *, run_id, **kw):
        # A copy: LangChain adds intermediate_steps to this very dict after the event.
        self.events.append((self._of(run_id), "agent_finish", dict(finish.return_values)))

    def on_text(self, text, *, run_id, **kw):
        self.events.append((self._of(run_id), "text", text))

    def shallow(self, depth=1, kinds=None):
        """Events of runs at most ``depth`` deep (optionally only of ``kinds``)."""
        return [e for e in self.events if e[0] <= depth and (kinds is None or e[1] in kinds)]


class LcRecorder(_Recording, LcHandler):
    def __init__(self):
        _Recording.__init__(self)


class OurRecorder(_Recording, OurHandler):
    def __init__(self):
        _Recording.__init__(self)


class LcListRetriever(LcRetriever):
    texts: list

    def _get_relevant_documents(self, query, *, run_manager):
        return [LcDocument(page_content=t) for t in self.texts if any(w in t.lower() for w in query.lower().split())]


class OurListRetriever(BaseRetriever):
    texts: list

    def _get_relevant_documents(self, query, *, run_manager):
        return [Document(t) for t in self.texts if any(w in t.lower() for w in query.lower().split())]


def _lc_shout(text: str) -> str:
    """Say it loudly."""
    return text.upper()


LANGCHAIN = SimpleNamespace(
    name="langchain_classic", chains=lc_chains, memory=lc_memory, agents=lc_agents, Recorder=LcRecorder,
    FakeList=lambda responses: LcFakeList(responses=responses), Generic=lambda messages: LcGeneric(messages=iter(messages)),
    AIMessage=LcAIMessage, Prompt=LcPrompt, ChatPrompt=LcChatPrompt, Placeholder=LcPlaceholder,
    Retriever=LcListRetriever, Branch=LcBranch, Tool=LcTool, tool=lc_tool,
)
OURS = SimpleNamespace(
    name="rag.classic", chains=our_chains, memory=our_memory, agents=our_agents, Recorder=OurRecorder,
    FakeList=lambda responses: FakeListChatModel(responses=responses), Generic=lambda messages: GenericFakeChatModel(
        messages=iter(messages)),
    AIMessage=AIMessage, Prompt=PromptTemplate, ChatPrompt=ChatPromptTemplate, Placeholder=MessagesPlaceholder,
    Retriever=OurListRetriever, Branch=RunnableBranch, Tool=Tool, tool=tool,
)
SIDES = [LANGCHAIN, OURS]
