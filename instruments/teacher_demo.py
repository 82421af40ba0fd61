"""`make replay` and `make crash-matrix`: the instruments run on the reference solution, for the class.

`python -m instruments.teacher_demo` replays the duplicate-email incident twice: with the
incident's reconcile (always re-run) and with the fixed one. Each time the agent process is
killed with SIGKILL right after send_email delivered and before save point B, then started
again with --resume on the same checkpoint.json. The account is printed in Chinese; the last
line is one JSON object for machines:
{"incident_reconcile": {"emails_delivered": 2, ...}, "fixed_reconcile": {"emails_delivered": 1, ...}}

`--crash-matrix`: the crash matrix over every crash point of the email task instead, with the
time it took; the picture goes to build/crash-matrix.png.

`--ledger-matrix`: lesson 4's crash matrix on lesson 4's reference solution (the ledger version,
the incident's reconcile, lesson 3's reconcile); the picture goes to build/ledger-matrix.png.

It reads the reference solution from source/ (through autograder.notebook_code), so it runs in
this repository only; the student bundle's wheel leaves this module out.
"""
import json
import sys

from autograder.lessons import lesson
from autograder.notebook_code import ROOT, load_reference

from .crash_matrix import crash_matrix, plot_matrix
from .ledger_matrix import ledger_matrix
from .replay import replay_incident

BUILD = ROOT / "build"


def show_crash_matrix(lesson: int = 3) -> None:
    if lesson == 4:
        reference, picture = load_reference(lesson("lesson04")), BUILD / "ledger-matrix.png"
        matrix = ledger_matrix(reference.run_agent, reference.reconcile)
    else:
        reference, picture = load_reference(), BUILD / "crash-matrix.png"
        matrix = crash_matrix(reference.run_agent, reference.reconcile)
    print(matrix.to_text())
    BUILD.mkdir(exist_ok=True)
    plot_matrix(matrix).savefig(picture, dpi=120)
    print(f"图：{picture}")
    print(json.dumps({"crash_points": len(matrix.columns), "runs": len(matrix.results),
                      "seconds": round(matrix.seconds, 1), "summary": matrix.summary()}, ensure_ascii=False))


def replay_the_incident() -> None:
    reference = load_reference()
    runs = {
        "incident_reconcile": ("事故时线上的 reconcile（一律重跑）", reference.incident_reconcile),
        "fixed_reconcile": ("修好的 reconcile（只读重跑，高影响补 is_error）", reference.reconcile),
    }
    print("事故回放：agent 作为独立进程运行，在 send_email 送达之后、存档点 B 之前被 SIGKILL，"
          "随后 --resume 续跑。邮件服务器在 harness 里，只数它真正收到的邮件。\n")
    summary = {}
    for key, (label, reconcile) in runs.items():
        result = replay_incident(reference.run_agent, reconcile, label=label)
        print(result.report(), end="\n\n")
        summary[key] = result.to_dict()
    incident, fixed = (summary[key]["emails_delivered"] for key in runs)
    print(f"结论：事故版收到 {incident} 封，修好后收到 {fixed} 封。")
    print(json.dumps(summary, ensure_ascii=False))


def main() -> None:
    if "--crash-matrix" in sys.argv[1:]:
        show_crash_matrix()
    elif "--ledger-matrix" in sys.argv[1:]:
        show_crash_matrix(lesson=4)
    else:
        replay_the_incident()


if __name__ == "__main__":
    main()
