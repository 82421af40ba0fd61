# Two commands do all set-up on a fresh machine: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader runs tools such as `alembic` by name: the venv comes first on PATH.
export PATH := $(abspath $(BIN)):$(PATH)

# System packages, by their Debian names (.ci/system-packages installs them with apt, or says what to install
# elsewhere): a CJK font for the pictures (optional: macOS and Windows ship one; instruments/host.py finds
# it); grading needs bubblewrap (the sandbox) and strace (watching it from outside), Linux only; the tests also
# need a browser and PostgreSQL. Python 3.10+ is the only other thing make needs: setup, lab and bundle
# work without apt (macOS, Fedora).
FONT_PACKAGES := fonts-noto-cjk
GRADE_PACKAGES := bubblewrap strace
TEST_SYSTEM_PACKAGES := chromium postgresql

.PHONY: setup fonts grade-deps system-deps test-deps lab test test-browser release

setup: $(STAMP)

fonts:
	bash .ci/system-packages --optional $(FONT_PACKAGES)

grade-deps:
	bash .ci/system-packages $(GRADE_PACKAGES)

system-deps: fonts grade-deps

test-deps:
	bash .ci/system-packages $(TEST_SYSTEM_PACKAGES)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# JupyterLab on the student notebooks, offline by default (set ANTHROPIC_API_KEY for real Claude),
# started as the student bundle starts it: in Chinese, Validate and none of nbgrader's other tools
# (student_bundle/lab.py; root, as in CI, gets --allow-root there).
LAB_DIR ?= release/lesson03
lab: setup fonts
	$(BIN)/python student_bundle/lab.py open --venv $(VENV) --notebook-dir $(LAB_DIR) $(LAB_ARGS)

# What a student downloads: build/student-bundle/ and build/student-bundle.zip (no solutions, no hidden tests).
.PHONY: bundle lock
bundle: setup
	$(BIN)/python -m student_bundle.build

# Parts of `make test-e2e`: the bundle (leak scan, install with Debian's python3, run to the first stub),
# the course on every Python here (3.10, 3.12, 3.13; grading on 3.10 and 3.13), JupyterHub end to end (root).
.PHONY: test-bundle test-pythons test-hub
test-bundle: setup
	$(BIN)/python -m pytest -q tests/test_student_bundle.py tests/test_platforms.py
test-pythons: setup
	$(BIN)/python -m pytest -q tests/test_python_versions.py
test-hub: setup
	$(BIN)/python -m pytest -q tests/test_jupyterhub.py

# Regenerate the three locks (one universal lock each, Python 3.10 and newer, every platform) from requirements/*.in.
LOCK := $(BIN)/uv pip compile --universal --python-version 3.10 --annotation-style line -q --custom-compile-command "make lock"
lock: setup
	$(LOCK) requirements/dev.in -o requirements.txt
	$(LOCK) requirements/student.in -c requirements.txt -o requirements/student.txt
	$(LOCK) requirements/hub.in -c requirements.txt -o requirements/hub.txt

# Every test but the slowest end-to-end suites (E2E_SUITES, `make test-e2e`; CLASS_SUITES, `make test-class`),
# the two lessons' grading corpora (`make test-lesson03`, `make test-lesson04`), the visible checks run on both
# corpora (`make test-visible`) and the Python matrix (`make test-pythons`), which .ci/run runs after this.
E2E_SUITES := tests/test_jupyterhub.py tests/browser tests/test_student_bundle.py tests/test_two_graders.py \
	tests/test_hostile_class.py tests/test_sandbox_isolation.py
CLASS_SUITES := tests/test_class_grading.py tests/grading/test_grading_class.py tests/test_handin.py \
	tests/test_instructor_user.py
LESSON03_CORPUS := tests/grading/test_grading_corpus.py
LESSON04_CORPUS := tests/grading/test_grading_corpus_lesson04.py
VISIBLE_AGREE := tests/grading/test_visible_agree.py
test: setup system-deps test-deps
	$(BIN)/python -m pytest -q --ignore=tests/test_python_versions.py \
		$(addprefix --ignore=,$(E2E_SUITES) $(CLASS_SUITES) $(LESSON03_CORPUS) $(LESSON04_CORPUS) $(VISIBLE_AGREE))

# Each lesson's submissions with their exact points, judged in the sandbox (lesson 3's about 20 minutes on 2 cores,
# lesson 4's about 12; part of .ci/run).
.PHONY: test-lesson03
test-lesson03: setup system-deps test-deps
	$(BIN)/python -m pytest -q $(LESSON03_CORPUS)

.PHONY: test-lesson04
test-lesson04: setup system-deps test-deps
	$(BIN)/python -m pytest -q $(LESSON04_CORPUS)

# `make grade` on whole classes: in parallel and serially, interrupted and resumed, workers that die, a PostgreSQL
# gradebook, nbgrader's own commands through the judge, hand-ins collected from zips, an ordinary user as the
# instructor (about 8 minutes here; part of .ci/run).
# The notebooks' visible checks on both lessons' corpora, in this process: no correct style rejected, every mistake
# caught by one (about 3 minutes here; part of .ci/run).
.PHONY: test-visible
test-visible: setup test-deps
	$(BIN)/python -m pytest -q $(VISIBLE_AGREE)

.PHONY: test-class
test-class: setup system-deps test-deps
	$(BIN)/python -m pytest -q $(CLASS_SUITES)

# JupyterHub end to end, the student's path in the browser, the bundle on Debian's Python, two graders at once,
# a hostile class graded as root and as an ordinary user, the sandbox's isolation step by step.
.PHONY: test-e2e
test-e2e: setup system-deps fonts test-deps
	$(BIN)/python -m pytest -q $(E2E_SUITES)

# The student's path in JupyterLab, driven in headless Chromium (part of `make test-e2e`).
# Screenshots land in test-artifacts/browser/; UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots/.
test-browser: setup fonts test-deps
	$(BIN)/python -m pytest -q tests/browser

# Regenerate the student notebooks of every lesson from source/ (commit the result).
LESSONS := lesson03 lesson04
release: setup
	for lesson in $(LESSONS); do $(BIN)/nbgrader generate_assignment $$lesson --force || exit 1; done

# The duplicate-email incident replayed for real: 2 emails with the incident's reconcile, then 1.
.PHONY: replay
replay: setup
	$(BIN)/python -m instruments.teacher_demo

# Every crash point of the email task, killed for real and resumed, for four variants (table + build/crash-matrix.png).
.PHONY: crash-matrix
crash-matrix: setup
	$(BIN)/python -m instruments.teacher_demo --crash-matrix

# Autograde every lesson someone handed in (submitted/<student>/lesson03/, .../lesson04/), or only LESSON=lesson04,
# in the sandboxed judge: gradebook, feedback/<student>/<lesson>/, grades.csv (every lesson), a short summary and
# reports/<lesson>.html per lesson. Students are graded in parallel on every core; an interrupted run resumes
# where it stopped.
.PHONY: grade bench-grade
LESSON ?=
grade: setup grade-deps fonts
	$(BIN)/python -m autograder.classgrade $(if $(LESSON),--lesson $(LESSON)) $(GRADE_ARGS)

# Hand-ins without the Hub: the students' `python3 lab.py handin` zips (or an LMS's "download all", unpacked)
# under downloaded/<lesson>/archive/, sorted into submitted/<student>/<lesson>/ by nbgrader's own zip_collect
# (its FileNameCollectorPlugin, configured in nbgrader_config.py); the newest hand-in of each student wins.
# Every lesson with a downloaded/<lesson>/archive/ folder, or only LESSON=lesson04;
# downloaded/<lesson>/extracted/ is rebuilt from archive/ every time (--force).
.PHONY: collect
collect: setup
	@found=; for lesson in $(or $(LESSON),$(LESSONS)); do \
	  if [ -n "$(LESSON)" ] || [ -d downloaded/$$lesson/archive ]; then \
	    found=1; $(BIN)/nbgrader zip_collect $$lesson --force || exit 1; fi; done; \
	test -n "$$found" || { echo "没有 downloaded/<课>/archive/ 文件夹：把学生交的 zip 放进 downloaded/lesson03/archive/ 这样的文件夹。"; exit 1; }

# After manual grading in the formgrader: every student's feedback page, grades.csv and the class reports again,
# from the gradebook, for every lesson graded (or only LESSON=lesson04); make grade skips students it has graded,
# so they would keep the autograde-only total.
.PHONY: feedback lms-grades
feedback: setup
	$(BIN)/python -m autograder.feedback $(if $(LESSON),--lesson $(LESSON))

# lms-grades.csv for Canvas's or Moodle's grade import (a column per lesson handed in), through nbgrader's exporter
# plugin interface.
lms-grades: setup
	$(BIN)/nbgrader export --exporter=autograder.lms_export.LmsExport --to=lms-grades.csv

# Wall time of `make grade` against stock nbgrader (Execute in a kernel) and serial grading on N full-marks submissions.
bench-grade: setup grade-deps fonts
	$(BIN)/python -m benchmarks.grade $(or $(N),20)
