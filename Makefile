PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The reference MCP servers the mcp-proxy tests and bench run, pinned by the lock file.
MCP_SERVERS := tests/mcp_servers
MCP_STAMP := $(MCP_SERVERS)/node_modules/.installed
# The real coding agents (Claude Code, Gemini CLI, Codex CLI) and the MCP Inspector that
# tests/coding_agents/ drive offline, pinned by the lock file. npm 11 skips install
# scripts, so Claude Code's own postinstall (it copies the native binary from its
# platform package into bin/) runs here; nothing is downloaded at test time.
AGENTS := tests/coding_agents
AGENTS_STAMP := $(AGENTS)/node_modules/.installed

# Debian's Chromium drives `serve`'s browser tests (playwright cannot download its own
# here) and nginx runs docs/security.md's proxy example; a clean machine gets both.
SYSTEM_STAMP := $(VENV)/.system-packages

.PHONY: test lint typecheck unit demo bench bench-smoke clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,postgres,serve,notify]'
	touch $(STAMP)

$(SYSTEM_STAMP): $(STAMP)
	command -v chromium >/dev/null && command -v nginx >/dev/null || \
		(apt-get update && apt-get install -y chromium nginx-light)
	touch $(SYSTEM_STAMP)

$(MCP_STAMP): $(MCP_SERVERS)/package.json $(MCP_SERVERS)/package-lock.json
	npm ci --prefix $(MCP_SERVERS) --no-audit --no-fund
	touch $(MCP_STAMP)

$(AGENTS_STAMP): $(AGENTS)/package.json $(AGENTS)/package-lock.json
	npm ci --prefix $(AGENTS) --no-audit --no-fund
	cd $(AGENTS)/node_modules/@anthropic-ai/claude-code && node install.cjs
	touch $(AGENTS_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# tests/ runs once per folder that has its own conftest.py: mypy allows one module per
# name, and each folder's conftest and helpers are top-level modules (pytest's rootdir
# imports, pythonpath = tests in pyproject.toml). The package, the sample runs and the rest
# of tests/ share one run (one start and one load of the cache instead of three; the same
# config, so the same strictness); bench/ cannot join it, since it imports tests.pg_server,
# which the tests' run knows as pg_server.
TEST_FOLDERS := tests/tui tests/trust tests/store_pg tests/coding_agents

typecheck: $(STAMP)
	$(BIN)/mypy handoff_gate sample_runs tests --exclude '^tests/(tui|trust|store_pg|coding_agents)/'
	MYPYPATH=$(AGENTS) $(BIN)/mypy bench
	for folder in $(TEST_FOLDERS); do $(BIN)/mypy $$folder || exit 1; done
	$(BIN)/lint-imports

# The benchmark harness's smoke run (the `alone` test) is not part of `make test`: it
# times nothing, yet takes minutes of every core by itself, and what it proves (each
# benchmark runs and reports a figure beside its baseline) is about bench/: `make
# bench-smoke` runs it, and `make bench` runs the same harness in full.
# Four workers on two cores: a third of the suite's time waits on child processes,
# servers and deadlines, so one worker per core left the cores a third idle (quiet
# machine: 435 s on two workers, 363 s on four).
# The package is compiled first: an editable install leaves it as source, and with
# PYTHONDONTWRITEBYTECODE set (as on the machines this runs on) every child interpreter
# the tests start (CLI commands, hooks, served apps: hundreds) compiled each module it
# imported, about 0.12 s of CPU per `handoff-gate` command. A .pyc is checked against its
# source on every import, so an edited module never runs stale.
unit: $(STAMP) $(MCP_STAMP) $(AGENTS_STAMP) $(SYSTEM_STAMP)
	$(BIN)/python -m compileall -q -j 0 -x '/node_modules/' handoff_gate tests bench
	$(BIN)/pytest -q -n 4

bench-smoke: $(STAMP) $(MCP_STAMP) $(AGENTS_STAMP) $(SYSTEM_STAMP)
	$(BIN)/pytest -q -m alone

# The checks run beside the suite rather than before it: a third of the suite's time its
# workers wait on children, servers and deadlines, and the checks (at a lower priority, so
# the suite keeps the cores it can use) fill that idle time. The suite prints as it runs;
# the checks' output is held and printed after it, whole, and either failing fails `make test`.
test: $(STAMP) $(MCP_STAMP) $(AGENTS_STAMP) $(SYSTEM_STAMP)
	@checks=$$(mktemp); \
	nice -n 10 $(MAKE) --no-print-directory lint typecheck >$$checks 2>&1 & pid=$$!; \
	$(MAKE) --no-print-directory unit; unit=$$?; \
	wait $$pid; checked=$$?; \
	echo "== make lint typecheck (run beside the tests): exit $$checked"; \
	cat $$checks; rm -f $$checks; \
	test $$unit -eq 0 && test $$checked -eq 0

demo: $(STAMP)
	$(BIN)/handoff-gate demo

bench: $(STAMP) $(MCP_STAMP) $(AGENTS_STAMP) $(SYSTEM_STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache $(MCP_SERVERS)/node_modules $(AGENTS)/node_modules
