"""Holds real answers of a running API to its OpenAPI document (schemathesis's checks).

``check_conforms`` calls one operation of the document with the given parameters over HTTP
and validates the answer: not a 5xx, a status the operation lists, the documented content
type, and a body its schema accepts (the models are strict: no member left out, none
undeclared).
"""

from __future__ import annotations

from typing import Any

import requests
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def load_schema(url: str) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{url}/openapi.json")


def operations(schema: schemathesis.BaseSchema) -> dict[str, Any]:
    """Every GET operation of the document by path."""
    return {op.path: op for op in (result.ok() for result in schema.get_all_operations())}


def check_conforms(
    schema: schemathesis.BaseSchema,
    path: str,
    key: str | None,
    *,
    path_parameters: dict[str, Any] | None = None,
    query: dict[str, Any] | None = None,
    status: int = 200,
) -> requests.Response:
    """Call ``path`` and validate the answer against the document; it must be ``status``."""
    operation = operations(schema)[path]
    case = operation.Case(path_parameters=path_parameters or {}, query=query or {})
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    response = case.call(headers=headers, timeout=30)
    assert response.status_code == status, (path, path_parameters, query, response.text[:500])
    case.validate_response(response, checks=CHECKS)
    return response
