"""Files and folders this project writes are its owner's alone.

Customer data (supplier ledgers, their run history and audit trail, the warehouse, the
serving snapshots, the state database, the logs) must not be readable by other users of the
machine. :func:`owner_only` sets the process's umask to 077 at each entry point (the ``bvs``
command, the Dagster code location, the API server); every file and folder the process and
its children create is then 0600 and 0700, whatever mode the code asks for.
"""

from __future__ import annotations

import os

UMASK = 0o077


def owner_only() -> None:
    """New files and folders of this process (and of the processes it starts): owner only."""
    os.umask(UMASK)
