# rhinoref: the two commands a newcomer needs are `make sim` and `make test`.
# Both create the virtual environment and install everything on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The firmware's static check: MicroPython's RP2 stubs (kept out of the venv's site-packages,
# where their stdlib stubs would shadow CPython's) and pyright from package-lock.json.
STUBS_PIN := micropython-rp2-rpi-pico-stubs==1.29.0.post1
STUBS  := $(VENV)/mpy-stubs/.installed
NODE   := node_modules/.installed

.PHONY: sim test bench reliability clean help

help:
	@echo "make sim    - a simulated game in the terminal (no board needed)"
	@echo "make test   - every test: rules, detector, app, host tool, firmware on MicroPython"
	@echo "make bench  - the benchmarks under bench/, printing their figures"
	@echo "make reliability - fuzzing, power cuts, sensor faults, 8 h soak, deploy cuts (full size)"

# Reinstall whenever the pinned dependencies change.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

$(STUBS): $(STAMP) Makefile
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade \
		--target $(VENV)/mpy-stubs '$(STUBS_PIN)'
	touch $@

$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

sim: $(STAMP)
	$(BIN)/rhinoref sim $(ARGS)

test: $(STAMP) $(STUBS) $(NODE)
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	@# every benchmark prints its figures, even after one has missed a target
	@missed=""; for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || missed="$$missed $$b"; done; \
	if [ -n "$$missed" ]; then echo "targets missed in:$$missed"; exit 1; fi

reliability: $(STAMP)
	$(BIN)/python bench/bench_reliability.py $(ARGS)

clean:
	rm -rf $(VENV) node_modules .pytest_cache .hypothesis
