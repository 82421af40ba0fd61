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
