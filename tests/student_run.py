"""Run a student notebook, as it was released, in the Python that runs this script.

    python student_run.py NOTEBOOK [--all]

Used by the bundle and Python-version tests with a student venv's interpreter, so it
imports only what a student has (nbclient comes with nbgrader). Executes the cells in
order in a kernel of this interpreter, offline, and prints one JSON object:
{"python", "course_file", "cells": [{"index", "stub", "error", "message"}], "first_error"}.
Without --all it stops at the first cell that raises (a stub's NotImplementedError).
"""
import argparse
import json
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

STUB = "# YOUR CODE HERE"
WHERE = "import sys, course; print(sys.executable); print(course.__file__)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--all", action="store_true", help="go on after a cell raises")
    args = parser.parse_args()
    os.environ.pop("ANTHROPIC_API_KEY", None)
    os.environ["COURSE_OFFLINE"] = "1"
    notebook = nbformat.read(str(args.notebook), as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WHERE))
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(args.notebook.parent)}})
    report = {"cells": [], "first_error": None}
    with client.setup_kernel():
        where = client.execute_cell(notebook.cells[0], 0)
        report["python"], report["course_file"] = where.outputs[0]["text"].split()
        for index, cell in enumerate(notebook.cells[1:]):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index + 1, store_history=True)
            errors = [output for output in cell.outputs if output["output_type"] == "error"]
            entry = {"index": index, "stub": STUB in cell.source,
                     "error": errors[0]["ename"] if errors else None,
                     "message": errors[0]["evalue"][:300] if errors else None}
            report["cells"].append(entry)
            if errors and report["first_error"] is None:
                report["first_error"] = entry
                if not args.all:
                    break
    json.dump(report, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
