# The two commands of the README: `make run` and `make test`. Both set everything up first.
VENV ?= .venv
ARGS ?=

.PHONY: setup run test lint bench
setup:
	VENV=$(VENV) EXTRAS=test ./scripts/setup.sh

run: setup
	$(VENV)/bin/pagesieve run $(ARGS)

test: setup lint
	$(VENV)/bin/python -m pytest $(ARGS)

lint: setup
	$(VENV)/bin/ruff check pagesieve tests benchmarks scripts
	$(VENV)/bin/mypy

bench:
	VENV=$(VENV) EXTRAS=test,bench ./scripts/setup.sh
	$(VENV)/bin/python benchmarks/bench_chain.py
	$(VENV)/bin/python benchmarks/bench_proxy.py
	$(VENV)/bin/python benchmarks/bench_peers.py
