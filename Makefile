# Every target installs what it needs into a project-local virtual environment first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install train test lint bench demo docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The CPU build of torch first: an unpinned torch would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

install: $(STAMP)

train: $(STAMP)
	$(VENV)/bin/club-envs train configs/members_only_belief.yaml

# One worker per core; a file's tests stay on one worker, so module fixtures are built once.
test: $(STAMP)
	$(PY) -m pytest -n auto --dist loadfile

# The package's shape: the layer map of docs/development.md, no import cycles, short functions.
lint: $(STAMP)
	$(PY) -m tests.structure

# Environment speed, the training loop against its own ceiling, then the search (a few minutes).
bench: $(STAMP)
	$(PY) benchmarks/bench_envs.py
	$(PY) benchmarks/bench_vector_engine.py
	$(PY) benchmarks/bench_vector_game.py
	$(PY) benchmarks/bench_training.py
	$(PY) benchmarks/bench_search.py

# The site in site/: the generated tables rewritten from the code, then a strict build (a broken
# link, a missing page, snippet or API reference fails).
docs: $(STAMP)
	$(PY) docs/gen_pages.py
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

demo: $(STAMP)
	$(VENV)/bin/club-envs simulate members_only --players 4 --games 20 --agents heuristic,random,random,random --seed 1 --out runs/demo

clean:
	rm -rf $(VENV) runs site .pytest_cache
