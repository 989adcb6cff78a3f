"""Checkpointers: where a graph saves its state after every step.

``InMemorySaver`` (alias ``MemorySaver``) for one process, ``SqliteSaver`` for a file that
outlives it; both keep LangGraph's interface (``get_tuple``, ``list``, ``put``,
``put_writes``) and store JSON, never pickle. A damaged file or row is one
``StorageError`` (``CorruptCheckpointError`` for a row) naming the file and thread.
"""

from rag.graph.checkpoint._checked import CorruptCheckpointError
from rag.graph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from rag.graph.checkpoint.memory import InMemorySaver, MemorySaver
from rag.graph.checkpoint.serde import SerializationError
from rag.graph.checkpoint.sqlite import SqliteSaver

__all__ = ["BaseCheckpointSaver", "CheckpointTuple", "InMemorySaver", "MemorySaver", "SqliteSaver",
           "SerializationError", "CorruptCheckpointError"]
