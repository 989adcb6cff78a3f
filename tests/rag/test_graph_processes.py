"""Two processes creating and writing one SQLite checkpoint file at once (different
threads) both finish with complete histories: transactions wait for each other instead of
failing."""

import subprocess
import sys
import textwrap

from rag.graph.checkpoint import SqliteSaver

WRITER = textwrap.dedent('''
    import sys
    from typing import TypedDict
    from rag.graph import StateGraph, START, END
    from rag.graph.checkpoint.sqlite import SqliteSaver

    class S(TypedDict):
        n: int

    graph = StateGraph(S).add_node("inc", lambda s: {"n": s["n"] + 1}).add_edge(START, "inc")
    graph.add_conditional_edges("inc", lambda s: "inc" if s["n"] < 40 else END, ["inc", END])
    with SqliteSaver.from_conn_string(sys.argv[1]) as saver:
        app = graph.compile(checkpointer=saver)
        print(app.invoke({"n": 0}, {"configurable": {"thread_id": sys.argv[2]}, "recursion_limit": 50})["n"])
''')


def test_two_processes_checkpoint_into_one_file_at_once(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, path, name], stdout=subprocess.PIPE, text=True)
             for name in ("left", "right")]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert outputs == ["40", "40"] and all(p.returncode == 0 for p in procs)
    with SqliteSaver.from_conn_string(path) as saver:
        for name in ("left", "right"):
            steps = [t.metadata["step"] for t in saver.list({"configurable": {"thread_id": name}})]
            assert steps == list(range(40, -2, -1))
