"""A ledger of the key's customer asked for a run it does not have: the 404 says the run is
missing and which runs the ledger has (over HTTP on 127.0.0.1; runs recorded in the real
run history, no pipeline needed: the answer comes before a run's files are read)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from pipelines.ledgers import store
from pipelines.settings import get_settings
from pipelines.state.db import state_store
from pipelines.state.keys import create_key
from tests.api.http_server import Served, serve

RUN_DATES = [f"2026-{m:02d}-{d:02d}" for m in (9, 10, 11) for d in (6, 13, 20, 27)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    data = tmp_path_factory.mktemp("ledger-runs") / "data"
    (data / "landing").mkdir(parents=True)
    settings = get_settings(data_dir=data)
    for run_date in RUN_DATES:
        store.commit_run(settings, "acme", "suppliers", f"{run_date}.01", lambda folder: {})
    (settings.ledgers_dir / "acme" / "empty" / "runs").mkdir(parents=True)
    with state_store(settings) as engine:
        key, _ = create_key(engine, "ledgers", "enterprise", customer="acme")
    for api in serve(settings):
        yield api, key


def get(served: tuple[Served, str], path: str, **params: str) -> requests.Response:
    api, key = served
    return requests.get(
        api.url + path, params=params, headers={"Authorization": f"Bearer {key}"}, timeout=10
    )


def test_a_missing_run_is_a_404_that_says_so_and_names_the_runs(
    served: tuple[Served, str],
) -> None:
    answer = get(served, "/api/robot/ledgers/suppliers", run="2026-11-01")
    assert answer.status_code == 404
    assert answer.json() == {
        "message": "ledger 'suppliers' has no run on 2026-11-01; its runs, latest first:"
        " 2026-11-27, 2026-11-20, 2026-11-13, 2026-11-06, 2026-10-27, 2026-10-20, 2026-10-13,"
        " 2026-10-06, 2026-09-27, 2026-09-20 (12 dates in all, the first 2026-09-06)"
        " (without run=, the latest)"
    }


def test_a_ledger_with_no_run_yet_says_so(served: tuple[Served, str]) -> None:
    answer = get(served, "/api/robot/ledgers/empty")
    assert answer.status_code == 404
    assert answer.json() == {"message": "ledger 'empty' has no run yet"}


def test_a_ledger_the_customer_does_not_have_is_still_no_ledger(
    served: tuple[Served, str],
) -> None:
    answer = get(served, "/api/robot/ledgers/nope", run="2026-11-01")
    assert answer.status_code == 404
    assert answer.json() == {"message": "no ledger 'nope'"}
