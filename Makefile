# BVS: the front door. `make help` lists the targets.
# A fresh machine needs only Python 3.11: the first target that needs the environment
# installs uv into .tools/ and the locked dependencies into .venv/.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never
export UV_COMPILE_BYTECODE := 1
export PATH := $(abspath .venv/bin):$(PATH)
export DAGSTER_HOME := $(abspath .dagster_home)
export DAGSTER_DISABLE_TELEMETRY := 1
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export BVS_DATA_DIR ?= $(abspath data)
export BVS_WAREHOUSE ?= $(BVS_DATA_DIR)/warehouse.duckdb

SCALE ?= 20000
# the warm dbt's socket under `make dev` (pipelines/dbt_server.py): one per checkout
DBT_SOCKET ?= /tmp/bvs-dbt-$(shell printf '%s' '$(CURDIR)' | cksum | cut -d' ' -f1).sock

.PHONY: help install prepare sample run dev docs serve test bench bench-full lint clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# the logs of the steps below; `bvs run` writes its own there too (bvs-run-<time>.log)
LOGS := $(BVS_DATA_DIR)/logs
# $(call logged,WHAT,LOG,COMMAND): one line on the screen ("WHAT (log: LOG)") and COMMAND's
# output in LOG; if it fails, the log's last 40 lines and a non-zero exit. On a terminal a
# `bvs` command still draws its progress line there (pipelines/progress.py). VERBOSE=1: the
# output on the screen as well. WHAT may hold commas only through a variable.
define logged
mkdir -p $(LOGS); echo "$(1) (log: $(2))"; \
if [ -n "$(VERBOSE)" ]; then { $(3); } 2>&1 | tee $(2); status=$${PIPESTATUS[0]}; \
else if [ -t 2 ]; then export BVS_PROGRESS_FD=3; fi; { $(3); } 3>&2 > $(2) 2>&1; status=$$?; fi; \
if [ $$status -ne 0 ]; then \
	echo "FAILED ($$status): $(1); the last 40 lines of $(2):" >&2; tail -n 40 $(2) >&2; exit $$status; fi
endef

$(UV):
	@$(call logged,installing uv into $(TOOLS),$(LOGS)/make-install-uv.log,$(PYTHON) -m venv $(TOOLS) && $(TOOLS)/bin/python -m pip install --disable-pip-version-check uv==0.13.9)

$(VENV)/.installed: $(UV) pyproject.toml uv.lock setup.py pipelines/ingest/_abrscan.c pipelines/matching/_trgmjoin.c
	@$(call logged,installing the environment from uv.lock into $(VENV),$(LOGS)/make-install.log,$(UV) sync --frozen --python $(PYTHON))
	@touch $@

install: $(VENV)/.installed ## create .venv from uv.lock (run by every target below)

prepare: install ## parse the dbt project (the manifest Dagster loads)
	@$(BIN)/python -c "from pipelines.settings import get_settings; from pipelines.dbt import prepare_manifest; prepare_manifest(get_settings())"

WRITING_SAMPLE = writing sample data, scale $(SCALE)
sample: install ## write sample landing data (SCALE ABN records) if the landing folder is empty (its counts: data/logs/make-sample.log)
	@if [ -z "$$(ls -A $(BVS_DATA_DIR)/landing 2>/dev/null)" ]; then \
		$(call logged,$(WRITING_SAMPLE),$(LOGS)/make-sample.log,$(BIN)/bvs sample --out $(BVS_DATA_DIR)/landing --scale $(SCALE) --as-of today); \
	else echo "landing folder $(BVS_DATA_DIR)/landing has files: not writing sample data"; fi

run: sample prepare ## sample data if needed, the whole pipeline, the serving snapshot, the supplier ledgers (VERBOSE=1: Dagster's and dbt's output too)
	@$(BIN)/bvs run $(if $(VERBOSE),--verbose)
	@if [ -n "$$(ls -A $(BVS_DATA_DIR)/landing/ledgers 2>/dev/null)" ]; then \
		if [ -n "$(VERBOSE)" ]; then echo "re-verifying the supplier ledgers (bvs ledger run):"; $(BIN)/bvs ledger run --verbose; \
		else echo "re-verifying the supplier ledgers (bvs ledger run; its JSON summaries: $(LOGS)/make-ledger-run.log):"; \
			set -o pipefail; $(BIN)/bvs ledger run | tee $(LOGS)/make-ledger-run.log | $(BIN)/python -m pipelines.status ledgers; fi; fi

dev: prepare ## the Dagster UI on http://127.0.0.1:3000, its dbt commands in a warm dbt
	@mkdir -p $(DAGSTER_HOME)
	@test -f $(DAGSTER_HOME)/dagster.yaml || printf 'telemetry:\n  enabled: false\nconcurrency:\n  pools:\n    default_limit: 1\n' > $(DAGSTER_HOME)/dagster.yaml
	export BVS_DBT_SERVER=$(DBT_SOCKET); \
	$(BIN)/bvs dbt-server & server=$$!; trap 'kill $$server' EXIT; \
	$(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

docs: prepare ## dbt's docs site on http://127.0.0.1:8080: models, columns, lineage, tests, the API endpoints and ledger reports (exposures); needs a built warehouse (make run)
	@test -f $(BVS_WAREHOUSE) || { echo "no warehouse at $(BVS_WAREHOUSE): make run first"; exit 1; }
	$(BIN)/dbt docs generate --project-dir dbt_project --profiles-dir dbt_project --quiet
	$(BIN)/dbt docs serve --project-dir dbt_project --profiles-dir dbt_project --host 127.0.0.1 --port 8080 --no-browser

serve: install ## the read API on http://127.0.0.1:8000 (needs a published snapshot: make run)
	$(BIN)/bvs serve --host 127.0.0.1 --port 8000

test: prepare ## the whole test suite (two workers: the end-to-end tests on one, tests/conftest.py)
	$(BIN)/pytest -n 2 --dist loadscope --durations=25

bench: prepare ## benchmarks (BENCH_RECORDS ABN records, default 2,000,000; phoenix links at 3.5M companies, 5M officeholders; matching 100,000 register names against 20M names; verification at 2M ABNs; market signals for 2,500 products; search at 2M ABNs; network at 3.5M companies; the API at 2M ABNs; supplier ledgers of 100,000 and 1,000,000 suppliers against 20M ABNs; live checks of 10,000 domains with 100 ms latency)
	$(BIN)/python tests/benchmarks/bench_ingest.py --records $${BENCH_RECORDS:-2000000}
	$(BIN)/python tests/benchmarks/bench_phoenix.py --companies $${BENCH_COMPANIES:-3500000} --officeholders $${BENCH_OFFICEHOLDERS:-5000000}
	$(BIN)/python tests/benchmarks/bench_matching.py --names $${BENCH_NAMES:-20000000} --register-names $${BENCH_REGISTER_NAMES:-100000} --recall-sample 10
	$(BIN)/python tests/benchmarks/bench_verification.py --abns $${BENCH_VERIFY_ABNS:-2000000}
	$(BIN)/python tests/benchmarks/bench_market.py --products $${BENCH_PRODUCTS:-2500}
	$(BIN)/python tests/benchmarks/bench_search.py --abns $${BENCH_SEARCH_ABNS:-2000000}
	$(BIN)/python tests/benchmarks/bench_network.py --companies $${BENCH_COMPANIES:-3500000} --officeholders $${BENCH_OFFICEHOLDERS:-5000000}
	$(BIN)/python tests/benchmarks/bench_api.py --abns $${BENCH_API_ABNS:-2000000}
	$(BIN)/python tests/benchmarks/bench_ledgers.py --abns $${BENCH_LEDGER_ABNS:-20000000} --suppliers $${BENCH_LEDGER_SUPPLIERS:-100000} --ledgers 10 --repeat 2
	$(BIN)/python tests/benchmarks/bench_live.py --domains $${BENCH_LIVE_DOMAINS:-10000} --latency 0.1

bench-full: prepare ## the weekly refresh end to end at SCALE ABNs (landing files cached in .bench/): per stage wall, CPU, peak memory; disk
	$(BIN)/python tests/benchmarks/bench_full.py --scale $(SCALE) $(BENCH_FULL_ARGS)

lint: install ## ruff, mypy and the import boundaries (import-linter, pyproject.toml)
	$(BIN)/ruff check pipelines bvs_sample tests
	$(BIN)/mypy pipelines bvs_sample
	$(BIN)/lint-imports

clean: ## remove build output (keeps data/ and .venv/)
	rm -rf dbt_project/target dbt_project/logs .pytest_cache .ruff_cache .mypy_cache
