"""`make feedback`: after manual grading in the formgrader, everything that shows a score again.

    python -m autograder.feedback [--lesson lesson04] [course_root]

`make grade` skips the students it has graded, so after the written answers are scored in
the formgrader its outputs still show the autograde-only state. This command rewrites all
of them from the gradebook, for every lesson graded so far (or the one given): every
student's feedback page (nbgrader's own generate_feedback, through the same Grader as make
grade), the lesson's class report (reports/<lesson>.html) and grades.csv, then checks each
page for hidden-test or reference lines as make grade does and says what is still left to
grade by hand. Nobody is graded again. Exit status 1 when a page could not be written or
leaks, else 0.
"""
import argparse
import sys
import warnings
from pathlib import Path

from nbgrader.api import Gradebook

from autograder import grade
from autograder.lessons import LESSONS, lesson
from autograder.records import Records
from autograder.report import manual_grading_status, write_report


def refresh(root: Path, only: str | None = None) -> int:
    root = Path(root).resolve()
    db_url = grade.Grader(root).db_url
    with Gradebook(db_url) as gradebook:
        assignments = [only] if only else grade.graded_lessons(gradebook)
    if not assignments:
        print("成绩册里还没有任何一课的提交：先运行 make grade。")
        return 0
    trouble = 0
    for assignment in assignments:
        grader = grade.Grader(root, lesson(assignment))
        result = grader.api.generate_feedback(assignment, force=True)
        if not result["success"]:
            trouble += 1
            print(f"nbgrader generate_feedback {assignment} 失败：\n{result.get('error') or result.get('log')}",
                  file=sys.stderr)
        for student in grade.students(root, grader.lesson):
            found = grader.feedback_leaks(student)
            if found:
                trouble += 1
                print(f"警告：{student} 的反馈里出现了隐藏测试或参考答案的代码：{found[:3]}", file=sys.stderr)
        page = write_report(root, db_url, Records(root, assignment).reports(), assignment)
        print(f"{assignment}：反馈已按成绩册重新生成（feedback/<学生>/{assignment}/），"
              f"全班报告：{page.relative_to(root)}。{manual_grading_status(db_url, assignment)}")
    grade.export(db_url, root / "grades.csv")
    print("成绩：grades.csv（已评分的每一课）。")
    return 1 if trouble else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="人工批改之后：重新生成全部反馈、grades.csv 和全班报告。")
    parser.add_argument("course_root", nargs="?", default=".")
    parser.add_argument("--lesson", choices=list(LESSONS), help="只更新这一课（默认：成绩册里有提交的每一课）")
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy 2 warns about nbgrader's own session use
    args = parser.parse_args(argv)
    return refresh(Path(args.course_root), args.lesson)


if __name__ == "__main__":
    sys.exit(main())
