"""The lesson's instruments: they run your agent as an OS process, kill it and show what happened.

The lesson itself needs only `course/`; these are the demonstrations built on top of it.
The notebook imports the first three; they fork, so they need Linux or macOS (WSL on Windows).

- replay.py        the replay harness: `replay_incident` kills the agent at a crash point and resumes it
- crash_matrix.py  `crash_matrix`: every crash point of a run, killed and resumed, for four variants
- ledger_matrix.py lesson 4's `ledger_matrix`: the same over the ledger's code, with unknown outcomes counted
- widgets.py       the checkpoint viewer and the crash explorer (a slider over one run's crash points)
- host.py          what the machine offers: a folder in RAM, a font with Chinese glyphs
- teacher_demo.py  `make replay` and `make crash-matrix` on the reference solution (repository only)
- mutants.py       mutation testing of the grader: one-change mutants of the reference answers (repository only)
"""
