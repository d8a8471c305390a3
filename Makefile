# The everyday loop (docs/development.md): `make check` before every commit, `make test` for
# everything. The tools come from the test extra: pip install -e ".[test]".

# .venv's Python when there is one (as .ci/run makes it), else the python on PATH.
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python)

# The tests `make check` runs: those without a costly mark (tests/marks.py, pyproject.toml).
FAST := not slow and not browser and not kernel and not ray and not servers and not mcp_servers and not bench

# Keep Python's bytecode cache, and pytest's cache of rewritten test modules, even where the
# environment turns it off: without them each test worker spends about 10 s more collecting.
unexport PYTHONDONTWRITEBYTECODE

# More pytest options for either test target, e.g. make check PYTEST_ARGS="-x -k sessions".
PYTEST_ARGS ?=

.PHONY: check lint format typecheck test test-fast

check: lint typecheck test-fast  ## before every commit: lint, types and the fast tests

lint:  ## what CI checks: ruff's lint rules and formatting
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .

format:  ## format, and fix what ruff can fix
	$(PYTHON) -m ruff format .
	$(PYTHON) -m ruff check --fix .

typecheck:  ## mypy, strict, on the package and the tests (as CI runs it; pyproject.toml says what)
	$(PYTHON) -m mypy

test-fast:  ## the tests without a costly mark
	$(PYTHON) -m pytest -m "$(FAST)" $(PYTEST_ARGS)

test:  ## everything: the README's test command
	$(PYTHON) -m pytest $(PYTEST_ARGS)
