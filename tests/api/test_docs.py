"""`/docs` and `/redoc` work offline: their pages name only the API's own files, and the API
serves those files (Swagger UI and ReDoc from the installed fastapi-offline wheel)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from pipelines.api.app import create_app
from pipelines.settings import Settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data = tmp_path_factory.mktemp("data")
    with TestClient(create_app(Settings(data_dir=data))) as client:
        yield client


def _assets(page: str) -> list[str]:
    return re.findall(r"""(?:src|href)=["']([^"']+)["']""", page) + re.findall(
        r"""url:\s*["']([^"']+)["']""", page
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/docs", {"swagger-ui-bundle.js", "swagger-ui.css"}),
        ("/redoc", {"redoc.standalone.js"}),
    ],
)
def test_docs_pages_load_only_the_apis_own_files(
    client: TestClient, path: str, expected: set[str]
) -> None:
    page = client.get(path)
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    urls = [u for u in _assets(page.text) if u != "/openapi.json"]
    assert urls, page.text
    assert all(u.startswith("/docs-static/") for u in urls), urls  # no CDN, no fonts
    assert expected <= {u.rsplit("/", 1)[-1] for u in urls}
    for url in urls:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url


def test_the_openapi_document_the_pages_read_is_served(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["info"]["title"] == "BVS robot API"
    assert "/docs" not in document["paths"] and "/redoc" not in document["paths"]
