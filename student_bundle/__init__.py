"""Builds the student bundle (build.py) and holds what goes into it besides the notebooks and course/."""
