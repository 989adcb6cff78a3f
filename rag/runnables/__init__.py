"""Runnables (LCEL): composable units of work with invoke, batch, stream and async.

``a | b`` chains, a dict runs branches in parallel, callables become lambdas; see
:class:`Runnable` for the entry points every component shares.

>>> from rag.runnables import RunnableParallel, RunnablePassthrough
>>> chain = {"question": RunnablePassthrough(), "length": len} | RunnablePassthrough.assign(
...     loud=lambda d: d["question"].upper())
>>> chain.invoke("hi")
{'question': 'hi', 'length': 2, 'loud': 'HI'}
"""

from rag.runnables.base import Runnable, coerce_to_runnable
from rag.runnables.binding import RunnableBinding
from rag.runnables.branch import RunnableBranch
from rag.runnables.config import RunnableConfig
from rag.runnables.configurable import (
    ConfigurableField,
    ConfigurableFieldSpec,
    RunnableConfigurableAlternatives,
    RunnableConfigurableFields,
)
from rag.runnables.fallbacks import RunnableWithFallbacks
from rag.runnables.graph import Edge, Graph, Node
from rag.runnables.lambdas import RunnableGenerator, RunnableLambda
from rag.runnables.parallel import RunnableParallel
from rag.runnables.passthrough import RunnableAssign, RunnablePassthrough, RunnablePick
from rag.runnables.retry import RunnableRetry
from rag.runnables.sequence import RunnableSequence

RunnableMap = RunnableParallel  # LangChain's older name

__all__ = [
    "Runnable",
    "RunnableConfig",
    "RunnableLambda",
    "RunnableGenerator",
    "RunnableSequence",
    "RunnableParallel",
    "RunnableMap",
    "RunnablePassthrough",
    "RunnableAssign",
    "RunnablePick",
    "RunnableBinding",
    "RunnableBranch",
    "RunnableRetry",
    "RunnableWithFallbacks",
    "Graph",
    "Node",
    "Edge",
    "coerce_to_runnable",
    "ConfigurableField",
    "ConfigurableFieldSpec",
    "RunnableConfigurableFields",
    "RunnableConfigurableAlternatives",
]
