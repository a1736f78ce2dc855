"""``bvs serve`` (the read API over HTTP) and ``bvs dbt-server`` (a warm dbt)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipelines.settings import Settings


def add_commands(sub: Any) -> None:
    serve = sub.add_parser("serve", help="the read API over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, help="worker processes (default BVS_API_WORKERS)")
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.set_defaults(func=cmd_serve)

    dbt_server = sub.add_parser(
        "dbt-server",
        help="keep dbt and Dagster loaded; bvs-dbt's dbt commands and `bvs ledger run` start"
        " in it (faster start)",
    )
    dbt_server.add_argument("--socket", type=Path, help="its Unix socket (default BVS_DBT_SERVER)")
    dbt_server.add_argument(
        "--dbt-only",
        action="store_true",
        help="warm dbt alone, not `bvs ledger run` too (starts about 5 s sooner)",
    )
    dbt_server.set_defaults(func=cmd_dbt_server)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """The read API over HTTP (uvicorn; each worker process opens the snapshot read-only)."""
    import uvicorn

    from pipelines.api.server import HTTP_PROTOCOL

    workers = args.workers or settings.api_workers
    print(f"serving the API on http://{args.host}:{args.port} ({workers} worker(s))", flush=True)
    uvicorn.run(
        "pipelines.api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=workers,
        log_level=args.log_level,
        access_log=args.access_log,
        http=HTTP_PROTOCOL,  # uvicorn's own parse errors answered in JSON too
    )
    return 0


def cmd_dbt_server(args: argparse.Namespace, settings: Settings) -> int:
    """A warm dbt for this machine's dbt commands (pipelines/dbt_server.py)."""
    from pipelines.dbt import dbt_env
    from pipelines.dbt_server import SERVER_ENV, serve

    path = args.socket or settings.dbt_server
    if path is None:
        print(f"bvs dbt-server: give --socket or set {SERVER_ENV}", file=sys.stderr)
        return 2
    return serve(
        Path(path).expanduser().resolve(),
        project_dir=settings.dbt_project_dir,
        env=dbt_env(settings),
        warm_bvs=not args.dbt_only,
    )
