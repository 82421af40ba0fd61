# Two commands do all set-up on a fresh machine: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader runs tools such as `alembic` by name: the venv comes first on PATH.
export PATH := $(abspath $(BIN)):$(PATH)

# Debian packages: students need a CJK font for the pictures; grading needs bubblewrap (the sandbox) and
# strace (watching it from outside); the tests also need a browser and PostgreSQL.
SYSTEM_PACKAGES := fonts-noto-cjk bubblewrap strace
TEST_SYSTEM_PACKAGES := chromium postgresql

.PHONY: setup system-deps test-deps lab test test-browser release

setup: $(STAMP) system-deps

system-deps:
	bash .ci/apt-install $(SYSTEM_PACKAGES)

test-deps:
	bash .ci/apt-install $(TEST_SYSTEM_PACKAGES)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# JupyterLab on the student notebooks, offline by default (set ANTHROPIC_API_KEY for real Claude).
# Students get Validate but not the instructor's formgrader; root (as in CI) needs --allow-root.
LAB_DIR ?= release/lesson03
LAB_FLAGS := --notebook-dir=$(LAB_DIR) --ServerApp.ip=127.0.0.1 \
	--ServerApp.jpserver_extensions nbgrader.server_extensions.formgrader=False \
	--ServerApp.jpserver_extensions nbgrader.server_extensions.course_list=False \
	$(if $(filter 0,$(shell id -u)),--allow-root)
lab: setup
	$(BIN)/jupyter lab $(LAB_FLAGS) $(LAB_ARGS)

test: setup test-deps
	$(BIN)/python -m pytest -q

# The student's path in JupyterLab, driven in headless Chromium (part of `make test` too).
# Screenshots land in test-artifacts/browser/; UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots/.
test-browser: setup test-deps
	$(BIN)/python -m pytest -q tests/browser

# Regenerate the student notebooks from source/ (commit the result).
release: setup
	$(BIN)/nbgrader generate_assignment lesson03 --force

# The duplicate-email incident replayed for real: 2 emails with the incident's reconcile, then 1.
.PHONY: replay
replay: setup
	$(BIN)/python -m autograder.replay

# Every crash point of the email task, killed for real and resumed, for four variants (table + build/crash-matrix.png).
.PHONY: explore
explore: setup
	$(BIN)/python -m autograder.replay --matrix

# Autograde every submission under submitted/<student>/lesson03/ in the sandboxed judge:
# gradebook, feedback/<student>/lesson03/, grades.csv, a short summary and reports/lesson03.html.
# Students are graded in parallel on every core; an interrupted run resumes where it stopped.
.PHONY: grade bench-grade
grade: setup
	$(BIN)/python -m autograder.classgrade $(GRADE_ARGS)

# Wall time of `make grade` against serial `nbgrader autograde` on N full-marks submissions.
bench-grade: setup
	$(BIN)/python -m autograder.bench $(or $(N),20)
