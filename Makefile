# Two commands on a fresh machine:  `make demo`  and  `make test`.
# The distribution's interpreter when there is one: built with PGO and LTO and without a
# shared libpython, it runs the arena about 1.3x faster than a default pyenv build.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3.13 /usr/bin/python3.12 /usr/bin/python3.11) python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench lint clean bytecode

# compat editable mode puts the source tree on sys.path through a .pth line; the default
# mode's import hook costs every bot process ~10 ms at start-up.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	scripts/setup-sandbox
	scripts/setup-test-tools
	scripts/setup-browser
	@touch $@

# Sandboxed bots cannot write bytecode next to read-only sources: compile it for them
# (without it every bot start recompiles the arena, ~40 ms).
bytecode: $(STAMP)
	@$(PY) -m compileall -q arena bots benchmarks >/dev/null

demo: bytecode            ## install, then run the main job on its embedded default
	$(VENV)/bin/arena demo

# The suite runs two test processes per core: its tests mostly wait on bot processes, and with
# one per core the cores stood idle half the time (2 cores: 9 min 20 s at 1 per core, 3 min 48 s
# at 2 per core with work stealing, 3 min 52 s at 3 per core, where tests that race a run's end
# began to fail).  The tests that measure time or CPU shares run afterwards, alone.
TEST_WORKERS ?= $(shell echo $$(( 2 * $$(nproc) )))
test: bytecode            ## the whole test suite (doctests included), then the type check and the linter
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not alone"
	$(PY) -m pytest -m alone
	scripts/typecheck
	$(VENV)/bin/ruff check arena tests benchmarks bots scripts

bench: bytecode           ## speed measurements (not tests)
	-$(PY) benchmarks/engine.py
	-$(PY) benchmarks/ipc.py
	-$(PY) benchmarks/tournament.py
	-$(PY) benchmarks/cluster.py
	-$(PY) benchmarks/sequential.py
	-$(PY) benchmarks/settle.py

lint: $(STAMP)
	$(VENV)/bin/ruff check arena tests benchmarks bots scripts

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
