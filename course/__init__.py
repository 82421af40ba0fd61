"""The course runtime: what the lesson notebooks import.

- model.py   the Claude client (real, or the offline scripted model)
- tools.py   the tools and `execute_tool`
- mail.py    the local SMTP server that `send_email` delivers to
- samples.py the lesson's sample checkpoints cpA, cpB, cpC
- ledger.py  lesson 4: where the effect ledger lives and how it is read back after a crash
- checks.py  the notebook's visible checks (`from course import checks`; not imported here,
             because importing it in a notebook also explains errors in Chinese)
- checks_ledger.py  lesson 4's visible checks (`from course import checks_ledger as checks`)

Beside the lesson: exchange.py, the nbgrader submit step of the course's JupyterHub. The
instruments the notebook's demonstrations import (replay, crash matrix, widgets) are in instruments/.
"""
from .mail import MailServer
from .model import assistant_message, make_client, request_params
from .samples import load_sample, sample_path
from .tools import TOOLS, ServiceUnavailable, execute_tool, lookup_effect

__all__ = ["MailServer", "ServiceUnavailable", "TOOLS", "assistant_message", "execute_tool", "load_sample",
           "lookup_effect", "make_client", "request_params", "sample_path"]
