"""`make feedback`: after manual grading in the formgrader, everything that shows a score again.

    python -m autograder.feedback [course_root]

`make grade` skips the students it has graded, so after the written answers are scored in
the formgrader its outputs still show the autograde-only state. This command rewrites all
of them from the gradebook: every student's feedback page (nbgrader's own
generate_feedback, through the same Grader as make grade), grades.csv and the class
report (reports/lesson03.html), then checks each page for hidden-test or reference lines
as make grade does and says what is still left to grade by hand. Nobody is graded again.
Exit status 1 when a page could not be written or leaks, else 0.
"""
import argparse
import sys
import warnings
from pathlib import Path

from autograder import grade
from autograder.records import Records
from autograder.report import manual_grading_status, write_report


def refresh(root: Path) -> int:
    grader = grade.Grader(root)
    students = grade.students(grader.root)
    result = grader.api.generate_feedback(grade.ASSIGNMENT, force=True)
    trouble = 0 if result["success"] else 1
    if not result["success"]:
        print(f"nbgrader generate_feedback 失败：\n{result.get('error') or result.get('log')}", file=sys.stderr)
    for student in students:
        found = grader.feedback_leaks(student)
        if found:
            trouble += 1
            print(f"警告：{student} 的反馈里出现了隐藏测试或参考答案的代码：{found[:3]}", file=sys.stderr)
    grader.export(grader.root / "grades.csv")
    page = write_report(grader.root, grader.db_url, Records(grader.root, grade.ASSIGNMENT).reports())
    print(f"反馈已按成绩册重新生成：{len(students)} 名学生的 feedback/<学生>/{grade.ASSIGNMENT}/；"
          f"成绩：grades.csv；全班报告：{page.relative_to(grader.root)}。")
    print(manual_grading_status(grader.db_url))
    return 1 if trouble else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="人工批改之后：重新生成全部反馈、grades.csv 和全班报告。")
    parser.add_argument("course_root", nargs="?", default=".")
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy 2 warns about nbgrader's own session use
    return refresh(Path(parser.parse_args(argv).course_root))


if __name__ == "__main__":
    sys.exit(main())
