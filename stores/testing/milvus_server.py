"""A throwaway Milvus standalone server for tests and benchmarks (the PyPI wheel ``milvus``
2.3.5: Milvus with embedded etcd, local storage and RocksMQ in one process).

The wheel picks free ports for Milvus's own services, but its embedded etcd would listen
on the fixed ports 2379 and 2380, so a second server on the machine (another test run, a
benchmark) could not start. Here etcd gets free ports of its own through an etcd config
file (``etcd.config.path``), so any number of servers can run side by side.

>>> with milvus_server("/tmp/m") as uri:  # doctest: +SKIP
...     store = Milvus(embeddings, uri=uri)
"""

from __future__ import annotations

import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["milvus_server", "TUNED_FOR_TESTS"]

#: For tests, which make many small collections: the query coordinator checks loading
#: progress every 1 s by default (a new collection is ready after ~2.5 s; checked every
#: 50 ms, after ~1.5 s). (A shorter time tick would shorten the wait of a read for the
#: write before it, but every loaded collection then costs CPU 10x as often.)
TUNED_FOR_TESTS = {"queryCoord.checkInterval": 50, "queryCoord.distPullInterval": 50}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def milvus_server(folder: str | Path, *, settings: dict[str, object] | None = None) -> Iterator[str]:
    """Start Milvus with its data in ``folder``; yields its URI (``http://127.0.0.1:PORT``)
    and stops it on exit. ``settings``: milvus.yaml keys (dotted) to override."""
    import milvus  # the wheel: an optional test/benchmark dependency

    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    client, peer = _free_port(), _free_port()
    etcd_config = folder / "embed-etcd.yaml"
    etcd_config.write_text(
        f"listen-client-urls: http://127.0.0.1:{client}\nadvertise-client-urls: http://127.0.0.1:{client}\n"
        f"listen-peer-urls: http://127.0.0.1:{peer}\ninitial-advertise-peer-urls: http://127.0.0.1:{peer}\n"
        f"initial-cluster: default=http://127.0.0.1:{peer}\n")
    template = Path(milvus.__file__).parent / "data" / "config.yaml.template"
    text = template.read_text(encoding="utf-8").replace(
        "  use:\n    embed: true", f"  config:\n    path: {etcd_config}\n  use:\n    embed: true", 1)
    text = text.replace("{{ etcd_port(int): 2379 }}", str(client), 1)
    ours = folder / "config.yaml.template"
    ours.write_text(text, encoding="utf-8")
    config = milvus.MilvusServerConfig(template=str(ours))
    config.glog_conf_file = str(template.parent / "glog.conf")  # set by the wheel only for its own template
    server = milvus.MilvusServer(config)
    server.set_base_dir(str(folder))
    for key, value in (settings or {}).items():
        server.config.set(key, value)
    try:
        server.start()
        yield f"http://127.0.0.1:{server.listen_port}"
    finally:
        server.stop()
