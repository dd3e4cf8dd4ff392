# rhinoref: the two commands a newcomer needs are `make sim` and `make test`.
# Both create the virtual environment and install everything on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: sim test bench clean help

help:
	@echo "make sim    - a simulated game in the terminal (no board needed)"
	@echo "make test   - every test: rules, detector, app, host tool, firmware on MicroPython"
	@echo "make bench  - the benchmarks under bench/, printing their figures"

# Reinstall whenever the pinned dependencies change.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

sim: $(STAMP)
	$(BIN)/rhinoref sim $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) node_modules .pytest_cache .hypothesis
