"""Property-based fuzz of the OpenAPI document (schemathesis) over real HTTP on 127.0.0.1.

Every operation gets generated inputs, valid and invalid; no answer may be a 5xx, use a
status the document does not list, or break the documented response schema. Keys are on
the Enterprise plan with raised limits, so the fuzz exercises the endpoints, not 429s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import schemathesis
from api_server import Clock, data_copy, serve
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pipelines.settings import get_settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key

pytestmark = pytest.mark.slow

EXAMPLES = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzz_server(pipeline_world: dict, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    import datetime as dt

    data = data_copy(pipeline_world["data"], tmp_path_factory.mktemp("fuzz") / "data")
    limits = json.dumps({"enterprise": {"per_minute": 10**6, "per_hour": 10**6, "per_day": 10**6}})
    config = get_settings(data_dir=data, plan_limits=limits)
    with state_store(config) as engine:
        key, _ = create_key(engine, "fuzz", "enterprise")
    for api in serve(config, Clock(dt.datetime.now(dt.UTC))):
        yield api, key


@pytest.fixture(scope="module")
def api_schema(fuzz_server: tuple) -> schemathesis.BaseSchema:
    api, _key = fuzz_server
    return schemathesis.openapi.from_url(f"{api.url}/openapi.json")


def _operations(schema: schemathesis.BaseSchema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_answers_5xx_or_breaks_its_schema(
    api_schema: schemathesis.BaseSchema, fuzz_server: tuple, mode: GenerationMode
) -> None:
    _api, key = fuzz_server
    for operation in _operations(api_schema):

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def fuzz(case: schemathesis.Case) -> None:
            response = case.call(headers={"Authorization": f"Bearer {key}"}, timeout=30)
            case.validate_response(response, checks=CHECKS)

        try:
            fuzz()
        except Unsatisfiable:
            # no invalid input exists for it (e.g. /health takes no parameters)
            assert mode is GenerationMode.NEGATIVE, operation.path


def test_the_fuzz_reaches_every_endpoint(api_schema: schemathesis.BaseSchema) -> None:
    paths = {operation.path for operation in _operations(api_schema)}
    assert len(paths) >= 10, paths
