"""nbgrader settings for the course (run nbgrader from this folder)."""
c = get_config()  # noqa: F821  (nbgrader provides it)

c.CourseDirectory.course_id = "agent-crash-recovery"
c.CourseDirectory.root = "."
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError(\"请在这里写你的代码\")"}
c.ClearSolutions.text_stub = "在这里写下你的回答。"

# A cell that runs longer than this is interrupted (the course's cells take well under a second).
c.ExecutePreprocessor.timeout = 60
c.Execute.timeout = 60

# --- Autograding (autograder/): student code never runs inside nbgrader's kernel. ---
# The judge runs each submission's solution cells in its own sandbox (separate processes,
# time and memory limits, tools and model answered by the grader) and writes every test
# cell's score and Chinese feedback as outputs; the rest of nbgrader's pipeline is unchanged.
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `autograder` lives next to this file
c.Autograde.autograde_preprocessors = [
    "autograder.nbgrader_judge.SandboxJudge",  # instead of nbgrader.preprocessors.Execute
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback pages: nbconvert's HTML exporter without per-student template compiling and re-parsing (autograder/feedback_page.py).
c.GenerateFeedback.exporter_class = "autograder.feedback_page.FeedbackExporter"
# ... with nbgrader's feedback template in Chinese (autograder/templates/feedback_zh). Set for FeedbackExporter
# only: the formgrader renders submissions with HTMLExporter and its own template; a FeedbackExporter section
# outranks the HTMLExporter one GenerateFeedback writes.
# nbgrader drops this whole file without a word when an import in it fails: a course folder without autograder/
# (one that only generates the release) must still get the stubs above.
try:
    from autograder.feedback_page import TEMPLATE_NAME, TEMPLATES  # noqa: E402
except ImportError:
    pass
else:
    c.FeedbackExporter.template_name = TEMPLATE_NAME
    c.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES)]

# --- Hand-ins without the Hub: `make collect` (nbgrader zip_collect <lesson>, for each lesson). ---
# The student bundle's `python3 lab.py handin` writes <lesson>_<student>_<UTC time>.zip (lesson03_…, lesson04_…).
# Put those files, or the unpacked "download all submissions" of an LMS, under downloaded/<lesson>/archive/;
# zip_collect unzips them into downloaded/<lesson>/extracted/ and nbgrader's FileNameCollectorPlugin reads student
# and time from each path (a later hand-in of the same student replaces an earlier one), then copies to
# submitted/<student>/<lesson>/. The pattern is matched against the whole path of each extracted file:
# <anything>/<lesson>/extracted/<folders>/[prefix]<lesson>_<student>_<time>[suffix]/<notebook>.ipynb, the same
# lesson twice (a backreference), so a zip of another lesson left in this lesson's folder is skipped. An LMS may
# add a prefix (Canvas: the student's name and numbers) or a suffix (a second upload's "-1") to the zip's name, and
# puts each student's files in a folder of its own (Moodle). lab.py's STUDENT_ID and TIME_FORMAT say what the
# parts can be.
c.FileNameCollectorPlugin.named_regexp = (
    r"^.*[\\/](?P<lesson>[^\\/]+)[\\/]extracted[\\/](?:[^\\/]+[\\/])*?[^\\/]*(?P=lesson)"
    r"_(?P<student_id>[A-Za-z0-9][A-Za-z0-9._-]*)_(?P<timestamp>\d{8}T\d{6}Z)[^\\/]*[\\/](?P<file_id>[^\\/]+\.ipynb)$")
c.ZipCollectApp.strict = True  # a notebook whose name is not one the release has is skipped, with a warning

# --- With an exchange (the course's JupyterHub): feedback released readable by its student (course/exchange.py). ---
c.ExchangeFactory.release_feedback = "course.exchange.ReleaseFeedbackToStudents"
