"""schemathesis hooks (``SCHEMATHESIS_HOOKS=tests.api.schemathesis_hooks``): strategies for the
OpenAPI document's own string formats (pipelines/api/params.py), so that the inputs it
generates as valid are valid: ABNs whose check digits hold, some of them ABNs the snapshot
in service holds (``BVS_FUZZ_ABNS``, comma-separated), so answers with content come back."""

from __future__ import annotations

import os

import schemathesis
from hypothesis import strategies as st

from pipelines.identifiers import abn_with_check_digits
from pipelines.serving.network import MAX_ABNS

known = [abn for abn in os.environ.get("BVS_FUZZ_ABNS", "").split(",") if abn]
made = st.from_regex(r"[1-9][0-9]{8}", fullmatch=True).map(abn_with_check_digits)
abns = st.one_of(made, st.sampled_from(known)) if known else made


def spaced(abn: str) -> str:
    return f"{abn[:2]} {abn[2:5]} {abn[5:8]} {abn[8:]}"


abn = st.one_of(abns, abns.map(spaced))
schemathesis.openapi.format("abn", abn)
schemathesis.openapi.format("abn-list", st.lists(abn, min_size=1, max_size=MAX_ABNS).map(",".join))
