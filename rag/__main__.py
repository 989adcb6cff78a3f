"""``python -m rag``: the ``rag`` command."""

import sys

from rag.cli import main

sys.exit(main())
