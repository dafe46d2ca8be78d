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

test: setup lint
	$(VENV)/bin/python -m pytest $(ARGS)

# The inner loop: unit tests only (no proxy processes, browsers, databases or corpus gates).
test-fast: setup
	$(VENV)/bin/python -m pytest -q -m "not proxy and not slow" --ignore=tests/scale --ignore=tests/a11y $(ARGS)

lint: setup
	$(VENV)/bin/ruff check pagesieve tests benchmarks scripts
	$(VENV)/bin/mypy

bench:
	VENV=$(VENV) EXTRAS=test,bench ./scripts/setup.sh
	$(VENV)/bin/python benchmarks/bench_chain.py
	$(VENV)/bin/python benchmarks/bench_proxy.py
	$(VENV)/bin/python benchmarks/bench_peers.py
