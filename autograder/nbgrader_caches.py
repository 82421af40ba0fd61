"""Two caches nbgrader 0.9 goes without, for the process that runs its steps for a whole class (autograder.grade).

- Every `Gradebook` makes an engine of its own, and SQLAlchemy keeps its compiled statements per engine: each
  student's autograde and feedback compiled the same few dozen queries again. One engine per database keeps
  them (`Gradebook.close` still disposes of its connections; the engine makes new ones when asked). A relative
  SQLite path means the current folder's file, as when nbgrader makes the engine.
- `jsonschema.validate`, called for every nbgrader cell of every notebook read, first checks the schema itself
  against the metaschema. Checked once per schema here, then validated as jsonschema.validate does.

Results do not change: the same statements reach the database, the same errors are raised.
"""
import json
import os
from functools import cache

import jsonschema
import nbgrader.api
import nbgrader.nbgraderformat.common
from jsonschema.exceptions import best_match
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url


@cache
def _shared_engine(url, **options):
    return create_engine(url, **options)


def _engine(url, **options):
    url = make_url(url)
    if url.drivername.startswith("sqlite") and url.database not in (None, "", ":memory:"):
        url = url.set(database=os.path.abspath(url.database))
    return _shared_engine(url.render_as_string(hide_password=False), **options)


class _CheckedSchemas:
    """What nbgrader's metadata validator uses of the jsonschema module."""

    def __init__(self):
        self.validators = {}

    def validate(self, instance, schema):
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            kind = jsonschema.validators.validator_for(schema)
            kind.check_schema(schema)
            self.validators[key] = kind(schema)
        error = best_match(self.validators[key].iter_errors(instance))
        if error is not None:
            raise error


CHECKED_SCHEMAS = _CheckedSchemas()


def install() -> None:
    """Idempotent; for this process's nbgrader from then on."""
    nbgrader.api.create_engine = _engine
    nbgrader.nbgraderformat.common.jsonschema = CHECKED_SCHEMAS
