"""Reserved node names (LangGraph's values, so saved threads and drawings read the same)."""

START = "__start__"  #: the virtual first node: ``add_edge(START, "first")``
END = "__end__"  #: the virtual last node: ``add_edge("last", END)``
INTERRUPT = "__interrupt__"  #: the key under which paused runs report their interrupts

__all__ = ["START", "END", "INTERRUPT"]

# A task's kind, first in its path (PregelTask.path, the "langgraph_path" metadata): run
# because an edge named its node, or pushed by a Send (LangGraph's values).
PULL = "__pregel_pull"
PUSH = "__pregel_push"

# The write channels of a paused step in a checkpoint (a task's result, the value each
# interrupt() resumes with): part of the saved format, read by the loop and the savers.
RESULT = "__result__"
RESUME = "__resume__"
# A Command(update=...) sent with a resume: kept with the paused checkpoint (as LangGraph's
# null-task writes) so a node that pauses again does not lose it, and applied once.
UPDATE = "__update__"
# A node's error when its step failed: shown in get_state().tasks[i].error (the node runs again on resume).
ERROR = "__error__"
# A task call's return value (the functional API's @task, rag.graph.func), kept with a paused
# step so that running the step again replays the call instead of running it.
RETURN = "__return__"
# A callable in a run's configurable, called with each node's name as it finishes without
# error or pause, in subgraphs too (LangGraph's CONFIG_KEY_NODE_FINISHED, which its tests use).
CONFIG_KEY_NODE_FINISHED = "__pregel_node_finished"
