"""``bvs serve``: the read API over HTTP."""

from __future__ import annotations

import argparse
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
