"""The classic LangChain API (``langchain_classic``): chains with memory, the classic
memories, and agents run by ``AgentExecutor``.

Import from the subpackages, as from LangChain's: ``rag.classic.chains``,
``rag.classic.memory``, ``rag.classic.agents``. The classic ``create_react_agent``
(a text ReAct agent for ``AgentExecutor``) is ``rag.classic.agents.create_react_agent``;
``rag.agents.create_react_agent`` is LangGraph's tool-calling graph agent.
"""

__all__: list[str] = []
