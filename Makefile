# The two commands of the README: `make run` and `make test`. Both set everything up first.
VENV ?= .venv
ARGS ?=

.PHONY: setup setup-run run test test-fast lint bench
setup:
	VENV=$(VENV) EXTRAS=test ./scripts/setup.sh

# What running needs and nothing more: the lists, the runtime dependencies, the model.
setup-run:
	VENV=$(VENV) EXTRAS=run ./scripts/setup.sh

run: setup-run
	$(VENV)/bin/pagesieve run $(ARGS)

# PAGESIEVE_REQUIRE_COMPILED: a test fails unless the set-up built the compiled page table (so CI runs it).
test: setup lint
	PAGESIEVE_REQUIRE_COMPILED=1 $(VENV)/bin/python -m pytest $(ARGS)

# The inner loop: unit tests only (no proxy processes, browsers, databases or corpus gates).
test-fast: setup
	PAGESIEVE_REQUIRE_COMPILED=1 $(VENV)/bin/python -m pytest -q -m "not proxy and not slow" --ignore=tests/scale --ignore=tests/a11y $(ARGS)

lint: setup
	$(VENV)/bin/ruff check pagesieve tests benchmarks scripts
	$(VENV)/bin/mypy

bench:
	VENV=$(VENV) EXTRAS=test,bench ./scripts/setup.sh
	$(VENV)/bin/python benchmarks/bench_chain.py
	$(VENV)/bin/python benchmarks/bench_proxy.py
	$(VENV)/bin/python benchmarks/bench_peers.py
