"""`/docs` (Swagger UI) and `/redoc` served from the installed package, never a CDN.

FastAPI's own pages load their scripts and styles from a CDN, so on a server without the
internet (or a user's browser behind a proxy) they stay blank. These are FastAPI's same
pages (``get_swagger_ui_html``, ``get_redoc_html``) pointed at the Swagger UI and ReDoc
files shipped in the ``fastapi-offline`` wheel (pinned in pyproject.toml), mounted here.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_PATH = "/docs-static"
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png")


def assets_dir() -> Path:
    """The folder of the installed Swagger UI and ReDoc files."""
    return Path(str(files("fastapi_offline") / "static"))


def add_offline_docs(app: FastAPI) -> None:
    """Serve `/docs` and `/redoc` with local assets (the app is created with
    ``docs_url=None, redoc_url=None``)."""
    folder = assets_dir()
    missing = [name for name in ASSETS if not (folder / name).is_file()]
    if missing:
        raise RuntimeError(f"the API docs assets are not installed ({folder}): {missing}")
    app.mount(STATIC_PATH, StaticFiles(directory=folder), name="docs-static")
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=f"{STATIC_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_PATH}/favicon.png",
        )

    @app.get(redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{STATIC_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{STATIC_PATH}/favicon.png",
            with_google_fonts=False,
        )
