"""nbgrader's submit step, with a submission that other students cannot open (nbgrader #978).

Stock nbgrader 0.9 makes every submitted folder in the exchange's inbound/ mode 0777 and
its files 0644. inbound/ itself cannot be listed by students, but a student who learns
another's folder name (`<student>+<assignment>+<timestamp>+<random>`) can read the
whole submission. nbgrader creates inbound/ setgid and owned by the instructor's group,
so what a student creates in it belongs to that group: keeping a submission to owner and
group (folders 0770, files 0640) leaves it readable by the instructor who collects it and by
nobody else. Copying clears the setgid bit of the copied folder (it takes the mode of the
student's own folder), and nbgrader writes timestamp.txt and submission_secret.txt after
that, so the copy is made in a hidden folder and moved into a folder made fresh in inbound/.

Students' nbgrader uses it through their nbgrader_config.py:

    c.ExchangeFactory.submit = "course.exchange.PrivateSubmit"

The other way round, `ReleaseFeedbackToStudents` (the course's nbgrader_config.py names it) releases
feedback as stock nbgrader does, readable by the student it is for: `make grade` writes feedback/
no more readable than the submission (0640 for a private one), and nbgrader's release_feedback
copies that mode into the exchange, where each page lies under a name only its student can work out
(a hash of the submission's secret) and must be readable by that student.
"""
import os
from pathlib import Path

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.exchange.default.submit import ExchangeSubmit

FOLDER_MODE = 0o770
FILE_MODE = 0o640
RELEASED_FEEDBACK_MODE = 0o644  # stock nbgrader's, for the pages in the exchange's feedback/ folder


class PrivateSubmit(ExchangeSubmit):
    def do_copy(self, src, dest):
        dest = Path(dest)
        if dest.parent != Path(self.inbound_path):  # the student's own cached copy
            return super().do_copy(src, dest)
        staging = dest.with_name("." + dest.name)  # collect's glob skips hidden names
        super().do_copy(src, staging)
        dest.mkdir()  # setgid and the instructor's group, from inbound/
        for entry in staging.iterdir():
            entry.rename(dest / entry.name)
        staging.rmdir()

    def copy_files(self):
        super().copy_files()
        submission = Path(self.inbound_path) / self.assignment_filename
        for folder, _, files in os.walk(submission):
            for name in files:
                os.chmod(Path(folder) / name, FILE_MODE)
            os.chmod(folder, FOLDER_MODE)


class ReleaseFeedbackToStudents(ExchangeReleaseFeedback):
    def copy_files(self):
        super().copy_files()
        for page in Path(self.dest_path).glob("*.html"):
            if page.stat().st_uid == os.geteuid():
                os.chmod(page, RELEASED_FEEDBACK_MODE)
