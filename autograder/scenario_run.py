"""The grader's side of one scenario while its steps run: what the step's process reports, and the
model, the tools, the lookups by key and the stand-ins it asks the grader for, each recorded as the
grader saw it; the step's deadlines."""
import json
import os
import secrets
import signal
import tempfile
import threading
import time
from pathlib import Path

import course.model
import course.tools
from course.checks import TOOL_OUTPUT_SHAPES
from course import TOOLS, ServiceUnavailable

from .folder import Places
from .mail_door import MailDoor
from .protocol import (BEFORE, DEFINING, INTERRUPT, REPORTED_STATUSES, CellStatus, EventKind, EventStatus, ModelRoute, Phase,
                       PhaseKind, StepStatus)
from .scenario import Scenario, SubmissionTrouble

READ_ONLY_TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS) - {"send_email"}
INVISIBLE = ("\u200b", "\u200c")  # zero-width space and non-joiner: the marker's 0 and 1
FORGED = "向评分器报告了两次结果（学生代码自己发了报告，或者 fork 出来的子进程没有退出、又回到了评分驱动里），这一次的结果作废"
ENDLESS_MODEL_CAP = 60  # the endless model gives up after this many calls, so a loop without a bound still ends
CELL_TIMEOUT = 10.0  # defining one answer cell; `%matplotlib inline` alone (imports, a font cache) took over 5 s at load 20
QUICK_TIMEOUT = 1.0  # for a function that already ran out of time once (correct ones take milliseconds)
NOTHING_TO_RECONCILE = "没有悬空调用（pendingToolUse 是 None）时也调用了 reconcile：只有 pendingToolUse 不是 None 时才需要对账"
STARTUP_TIMEOUT = 30.0
CLIENT_LABELS = {ModelRoute.GIVEN: "given", ModelRoute.EARLIER: "earlier"}  # the model calls' "client"; else "make_client"
LINGER = 3.0  # seconds what a step leaves behind (threads, then processes) is still watched after it returned
# After a step returned, the watch over what it left ends by itself (LINGER for the threads, then as long for the
# processes), whatever time the step had left: a deadline cutting it short could not tell a thread still running from a
# process about to exit. This bounds it, with a margin for a loaded machine.
LEFTOVERS_TIMEOUT = 2 * LINGER + 2.0
# A step (or cell) that makes strace log more than this is flooding (printing in a loop, say) and is ended: the log
# is in memory, and so are its lines once read at the job's end, gigabytes within seconds otherwise. Above what the
# file-size limit lets one file take (Limits.file_size), so that writing a file full stays the disk's trouble.
STEP_TRACE_BYTES = 128 * 1024 * 1024


class ScenarioRun:
    """The grader's side of one scenario while its steps run."""

    def __init__(self, sandbox, scenario: Scenario, places: Places, trouble: SubmissionTrouble, tmp_mail: str | None):
        self.sandbox, self.scenario, self.places, self.trouble, self.mail = sandbox, scenario, places, trouble, None
        self.folder = places.folder
        self.tmp_mail = tmp_mail  # where in the steps' /tmp the Maildir is shown (none unisolated)
        self.lock = threading.RLock()
        self.phase = BEFORE
        self.phase_started = time.monotonic()
        self.phase_trace = 0  # where strace's log ended when the phase began
        self.job_steps = ()  # the steps the running process was started for
        self.steps = [None] * len(scenario.steps)
        self.returned_at = [None] * len(scenario.steps)  # where strace's log ended when each step reported back
        # where strace's log ended when each step's call began: the calls before it defined the cells
        self.started_at = [None] * len(scenario.steps)
        self.defined_files = {}  # step index -> files in the folder that defining the cells created, up to it
        self.listing = frozenset(scenario.files)  # the places' regular files when the last job ended (or before any)
        self.defined_before = {}  # each of those files when the job's first step began: (stat, bytes)
        self.cells = {}
        self.model_calls, self.tool_calls, self.standin_calls, self.deliveries = [], [], [], []
        self.delivered_ids, self.lookups = [], []
        self.fs_events = []  # what strace saw, step by step
        self.files_by_step = {}  # step index -> regular files in the folder after it
        self.left_running = []  # {"step": the job's last step, "left": [protocol.Left]}: jobs the watch ran out on
        self.mail_elsewhere = set()  # steps whose mail went to a server the student's code named
        self.read_before = {}  # step index -> {relative path: text or None}: its "read_before" files as it began
        self.sequence = 0  # orders model calls and tool calls against each other
        self.step_pid = None  # the step's first process (pid 1 of its namespaces), as the kernel named it
        self.step_pidfd = None
        self.mail_door = None  # the step's SMTP port, served here
        self.failure = None  # the driver's own traceback, if it failed
        self.crashed = False  # the grader has killed the current step on purpose
        self.crash_done = False
        self.sending_before = False  # the grader itself is delivering scenario.emails_before
        self.received = 0  # bytes the steps have sent

    def _enter(self, phase: Phase):
        self.phase, self.phase_started, self.phase_trace = phase, time.monotonic(), self.trace_position()

    def on_delivery(self, message):
        with self.lock:
            self.deliveries.append(str(BEFORE) if self.sending_before else str(self.phase))
            self.delivered_ids.append(course.tools.message_id_of(message))

    def start_job(self, indices: list):
        with self.lock:
            self._enter(BEFORE)
            self.crashed, self.job_steps = False, indices
            self.step_pid, self.step_pidfd, self.failure = None, None, None

    def end_job(self):
        with self.lock:
            if self.step_pidfd is not None:
                os.close(self.step_pidfd)
            if self.mail_door is not None:
                self.mail_door.close()
            self.step_pid, self.step_pidfd, self.job_steps, self.mail_door = None, None, (), None

    # -- what the step's process says --

    def handed_off(self, pid: int, listener) -> bool:
        """The step's first process, before any student code: the kernel names its pid, and it hands over the
        step's SMTP port, served from here from now on. Taken once per job."""
        with self.lock:
            if self.step_pid is not None or not self.job_steps:
                return False
            self.step_pid = pid
            self._enter(DEFINING)
            try:
                self.step_pidfd = os.pidfd_open(pid)
            except OSError:
                self.step_pidfd = None
            self.mail_door = MailDoor(listener, self.mail.port, self.scenario.service_down)
            return True

    def kill_step(self):
        with self.lock:
            pid, pidfd = self.step_pid, self.step_pidfd
        if pid is None:  # not even connected yet: only the whole sandbox can be stopped
            self.sandbox.zygote.close()
            return
        try:
            if self.sandbox.isolated and pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)  # pid 1 of the step's namespace: it all ends
            else:
                os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass

    def event(self, payload: dict) -> dict:
        with self.lock:
            kind = payload.get("kind")
            cells = payload.get("cells")
            for cell in cells if isinstance(cells, list) else ():
                if isinstance(cell, dict) and cell.get("status") in (CellStatus.OK, CellStatus.RAISED):
                    name = str(cell.get("name"))
                    # a raise stands: a later process of the scenario may find a file an earlier one left (a
                    # module a %%writefile cell further down wrote), and get past it where a fresh notebook did not
                    if self.cells.get(name, {}).get("status") != CellStatus.RAISED:
                        self.cells[name] = {"status": cell["status"], "error": cell.get("error")}
            # The student's code runs in the process that reports, and can find its token: only the order the
            # driver keeps is taken (cells, then each step's start and one result, in turn); anything else is
            # ignored, and a second result for a step voids it.
            stepping = any(self.started_at[i] is not None for i in self.job_steps)
            if kind == EventKind.MAIL_ELSEWHERE and self.phase.kind is PhaseKind.STEP:
                self.mail_elsewhere.add(self.phase.step)
            elif kind == EventKind.CELL and not stepping:
                self._enter(Phase(PhaseKind.CELL, cell=str(payload.get("name"))))
            elif kind == EventKind.STEP and payload.get("index") in self.job_steps:
                index = payload["index"]
                running = Phase(PhaseKind.STEP, step=index)
                previous_done = self.phase.kind is not PhaseKind.STEP or self.steps[self.phase.step] is not None
                if payload.get("status") == EventStatus.START:
                    if index == self._next_step() and previous_done:
                        self._enter(running)
                        self.started_at[index] = self.phase_trace
                        # between two steps of one process: it waits for this reply (a job's first step's were made
                        # before its process began)
                        if index != self.job_steps[0]:
                            for relative, content in self.scenario.files_before.get(index, {}).items():
                                self.folder.put(relative, content)
                        if self.scenario.steps[index].get("read_before"):  # the step waits for this reply
                            self.read_before[index] = self._texts(self.scenario.steps[index]["read_before"])
                        if index not in self.defined_files:
                            self._note_defined_files(index)
                elif isinstance(payload.get("result"), dict) and self.started_at[index] is not None:
                    if self.steps[index] is None and self.phase == running:
                        self.steps[index] = _checked_result(payload["result"])
                        self.returned_at[index] = self.trace_position()
                        self.phase_started = time.monotonic()  # the watch over what it left begins (overdue)
                    elif self.steps[index] is not None:
                        self.steps[index] = {"status": StepStatus.DIED, "detail": FORGED}
        return {}

    def _next_step(self):
        """The job's first step not yet started: the only one the driver may start now."""
        return next((i for i in self.job_steps if self.started_at[i] is None), None)

    def _note_defined_files(self, index: int):
        """At the job's first step's start, the student's process waits for this reply: every file its definitions
        made is in the folder now. They are the notebook's (a log opened by a cell, a demo's output), not the
        step's: the steps of this job and the ones after it count them as already there."""
        earlier = max((i for i in self.defined_files if i < index), default=None)
        made = set(self.places.regular_files()) - self.listing
        files = sorted(made.union(self.defined_files[earlier] if earlier is not None else ()))
        self.defined_files.update((i, files) for i in self.job_steps if i >= index)
        self.defined_before = {name: (self.places.stat(name), self.places.read_bytes(name)) for name in files}

    def settle_defined_files(self, batch: list, events: list):
        """After the job: a file the definitions made stays the notebook's only if the steps left it as it was, or
        only appended to it through what the definitions opened for appending (a log). Else what the step did to it
        (a file the cell made empty and the function then filled: through mmap, say, which strace does not see)
        counts as the step's."""
        began = self.started_at[batch[0]]
        if batch[0] not in self.defined_files or began is None:
            return
        kept = []
        for name in self.defined_files[batch[0]]:
            before, data = self.defined_before.get(name, (None, None))
            if self.places.stat(name) == before:
                kept.append(name)
                continue
            path = self.places.path(name)
            opens = [e for e in events if e["op"] == "open" and e["path"] == path]
            appending = opens and all(e["at"] <= began and "O_APPEND" in str(e.get("flags"))
                                      and "O_RDWR" not in str(e.get("flags")) for e in opens)
            now = self.places.read_bytes(name)
            if appending and data is not None and now is not None and now.startswith(data):
                kept.append(name)
        self.defined_files.update((i, kept) for i in batch)

    def current_step(self):
        with self.lock:
            return self.phase.step

    def trace_position(self) -> int:
        """Where strace's log ends now: the step's file-system calls so far end at or before it (fs_trace "at")."""
        return self.sandbox.zygote.trace.position()

    def _snapshot(self):
        if not self.scenario.watch:
            return None
        data = self.folder.read_bytes(self.scenario.watch)
        if data is None:
            return {"missing": True}
        try:
            return {"state": json.loads(data.decode("utf-8"))}
        except ValueError:
            return {"invalid": True}

    # -- the model --

    def model_call(self, payload: dict) -> dict:
        """The offline model's answer to one request: {"status", "reply", "request_id"}, as course.model.answer's."""
        body = payload.get("body")
        request_id = course.model.new_id("req_", 24)
        step = self.current_step()
        if not isinstance(body, dict):
            return {"status": 400, "reply": _api_error("请求不是合法的 JSON"), "request_id": request_id}
        if step is None:  # a demo in a cell, run as the cell is defined: the notebook's own offline model answers it
            status, reply, request_id = course.model.answer(body)
            return {"status": status, "reply": reply, "request_id": request_id}
        snapshot, at = self._snapshot(), self.trace_position()
        messages = body.get("messages")
        failing = self.scenario.steps[step].get("model_fails_from")
        with self.lock:
            asked = sum(1 for c in self.model_calls if c["step"] == step)
        if failing is not None and asked + 1 >= failing:
            status, reply = overloaded()
        elif self.scenario.model == "endless":
            status, reply = self._endless_reply(messages)
        elif self.scenario.model == "planned":
            status, reply = course.model.planned_reply(messages, self.scenario.steps[step].get("calls") or (),
                                                       self._answered(step))
        else:
            status, reply, request_id = course.model.answer(body, self._planned_shape(step))
        interrupt = (self.scenario.crash or {}).get("interrupt_at_model_call") == asked + 1 and not self.crash_done
        with self.lock:
            self.sequence += 1
            self.model_calls.append({"step": step,
                                     "client": CLIENT_LABELS.get(payload.get("route"), "make_client"),
                                     "messages": messages, "status": status, "reply": reply,
                                     "params": {key: value for key, value in body.items() if key != "messages"},
                                     "snapshot": snapshot, "seq": self.sequence, "at": at, "interrupted": interrupt})
        if interrupt:  # Jupyter's stop button while the model is thinking: its reply never reaches the caller
            self.interrupt_now()
        return {"status": status, "reply": reply, "request_id": request_id, **({"interrupted": True} if interrupt else {})}

    def _answered(self, step: int) -> int:
        """How many of the step's model calls got a reply."""
        with self.lock:
            return sum(1 for c in self.model_calls if c["step"] == step and c["status"] == 200)

    def _planned_shape(self, step: int):
        """The reply plan: a step's "replies" name the shape (course.model.shaped) of each reply it gets, in order."""
        plan = self.scenario.steps[step].get("replies") or ()
        answered = self._answered(step)
        return plan[answered] if answered < len(plan) else None

    def _endless_reply(self, messages):
        try:
            course.model.check_tool_pairing(messages if isinstance(messages, list) else [])
        except course.model.InvalidRequest as exc:
            return 400, _api_error(str(exc))
        answered = len([c for c in self.model_calls if c["status"] == 200])
        if answered >= ENDLESS_MODEL_CAP:
            content, stop = [{"type": "text", "text": "（评分用模型）不再继续了。"}], "end_turn"
        else:
            content = [{"type": "text", "text": "再看一眼 notes 文件夹。"},
                       {"type": "tool_use", "id": course.model.new_id("toolu_01"), "name": "list_dir",
                        "input": {"path": "./notes"}}]
            stop = "tool_use"
        usage = {"input_tokens": 2000 + 37 * answered, "output_tokens": 40 + answered % 7}
        return 200, {"id": course.model.new_id("msg_01"), "type": "message", "role": "assistant",
                     "model": course.model.MODEL, "content": content, "stop_reason": stop, "stop_sequence": None,
                     "usage": usage}

    # -- the tools --

    def run_tool(self, name, tool_input, key=None, shape=None) -> str:
        """Run a tool for real, here, with the idempotency key it was given (a string, or none); read-only
        output, in its TOOL_OUTPUT_SHAPES `shape` if any, carries a marker no student can guess, made of characters
        that print as nothing (an empty output stays empty)."""
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return f"错误：工具调用的参数不对（name={name!r:.40}）"
        if self.scenario.service_down and name == "send_email":
            return "错误：邮件没有发出去：[Errno 111] Connection refused"
        with self.sandbox.tool_lock:
            output = course.tools.execute_tool(name, tool_input, idempotency_key=key if isinstance(key, str) else None)
        output = TOOL_OUTPUT_SHAPES[shape](output) if shape else output
        if name in READ_ONLY_TOOL_NAMES:
            output += "".join(INVISIBLE[bit == "1"] for bit in f"{secrets.randbits(48):048b}") if output else ""
        return output

    def _output_shape(self, step: int, name) -> str | None:
        """The shape a step's "outputs" give its next read-only call, or its "effect_output" each call of a tool with
        an effect (call with self.lock held)."""
        if name not in READ_ONLY_TOOL_NAMES:
            return self.scenario.steps[step].get("effect_output")
        shapes = self.scenario.steps[step].get("outputs") or ()
        number = sum(1 for c in self.tool_calls if c["step"] == step and c["name"] in READ_ONLY_TOOL_NAMES)
        return shapes[number] if number < len(shapes) else None

    def tool_call(self, payload: dict):
        step = self.current_step()
        if step is None:
            return {"output": "错误：评分时，定义代码的阶段不能调用工具"}
        name, tool_input, key = payload.get("name"), payload.get("input"), payload.get("key")
        snapshot, ledgers, at = self._snapshot(), self._texts(self.scenario.ledgers), self.trace_position()
        with self.lock:
            self.sequence += 1
            shape = self._output_shape(step, name)
            record = {"step": step, "name": name, "input": tool_input, "key": key, "output": None,
                      "snapshot": snapshot, "ledgers": ledgers, "seq": self.sequence, "at": at}
            self.tool_calls.append(record)
            number = len(self.tool_calls)
        crash = self.scenario.crash or {}
        if (crash.get("before_tool_call") == number or crash.get("before_tool") == name) and not self.crash_done:
            self.crash_now()
            return None
        record["output"] = self.run_tool(name, tool_input, key, shape)
        if crash.get("after_tool") == name and not self.crash_done:
            self.crash_now()
            return None
        if crash.get("interrupt_after_tool") == name and not self.crash_done:
            self.interrupt_now()
            # the interrupted caller closes its connection (child.make_poster): a call made in another thread
            # than the main one goes on, and gets its reply (endpoint.INTERRUPT_WAIT)
            return {"output": record["output"], "interrupted": True}
        return {"output": record["output"]}

    def lookup(self, payload: dict) -> dict:
        """lookup_effect(name, key): asked of the grader's own mail server, or unanswered when it is down; or, with
        "case", the lookup a step's case passes (its "$lookup" argument), answered as that service would."""
        step = self.current_step()
        name, key = payload.get("name"), payload.get("key")
        record = {"step": step, "name": name, "key": key, "answer": None, "unavailable": True,
                  "at": self.trace_position(), "case": bool(payload.get("case"))}
        with self.lock:
            self.sequence += 1
            record["seq"] = self.sequence
            self.lookups.append(record)
        if step is None:
            return {"unavailable": "评分时，定义代码的阶段不能查询服务"}
        if record["case"]:
            asked = self.scenario.steps[step]
            arguments = [*asked.get("args", []), *asked.get("kwargs", {}).values()]
            service = next((a["$lookup"] for a in arguments if isinstance(a, dict) and "$lookup" in a), None)
            try:
                record["answer"] = answering_lookup(service or {"down": True})(name, key)
            except ServiceUnavailable as exc:
                return {"unavailable": str(exc)}
            record["unavailable"] = False
            return {"output": record["answer"]}
        if self.scenario.service_down:
            return {"unavailable": "邮件服务器无法回答：[Errno 111] Connection refused"}
        if not isinstance(name, str) or not isinstance(key, str):
            return {"unavailable": f"查询的参数不对（name={name!r:.40}，key={key!r:.40}）"}
        try:
            with self.sandbox.tool_lock:
                record["answer"] = course.tools.lookup_effect(name, key)
        except ServiceUnavailable as exc:
            return {"unavailable": str(exc)}
        kept = self.scenario.steps[step].get("lookup_answers") or {}
        if record["answer"] is not None and key in kept:  # the result the service keeps for a call it has
            record["answer"] = kept[key]
        record["unavailable"] = False
        return {"output": record["answer"]}

    def _texts(self, relatives) -> dict:
        texts = {}
        for relative in relatives:
            data = self.folder.read_bytes(relative)
            texts[relative] = None if data is None else data.decode("utf-8", errors="replace")
        return texts

    def crash_now(self):
        with self.lock:
            self.crashed = self.crash_done = True
        self.kill_step()

    def interrupt_now(self):
        """What Jupyter's "interrupt the kernel" does: SIGINT to the student's process (KeyboardInterrupt in its main
        thread). Isolated, through the step's pid 1 (child.INTERRUPT: it alone knows the student's pid there)."""
        with self.lock:
            self.crash_done = True
            pid, pidfd = self.step_pid, self.step_pidfd
        try:
            if self.sandbox.isolated and pidfd is not None:
                signal.pidfd_send_signal(pidfd, INTERRUPT)
            elif pid is not None:
                os.killpg(pid, signal.SIGINT)
        except OSError:
            pass

    # -- the grader's own save / load / reconcile --

    def standin(self, name: str, payload: dict) -> dict:
        """Only in a scenario that names the stand-in: elsewhere a student's code cannot borrow it."""
        if name not in self.scenario.standins:
            return {"error": f"没有名为 {name} 的替身函数"}
        reference = self.sandbox.reference
        record = {"step": self.current_step(), "name": name, "at": self.trace_position()}
        with self.lock:
            self.sequence += 1
            record["seq"] = self.sequence
            self.standin_calls.append(record)
        try:
            if name == "reconcile":
                if isinstance(payload["cp"], dict) and payload["cp"].get("pendingToolUse") is None:
                    return {"error": NOTHING_TO_RECONCILE, "type": "TypeError"}  # what the reference meets there
                with self.sandbox.tool_lock:  # the reference's own tools again after it (a later judgement's oracle)
                    kept, reference.execute_tool = reference.execute_tool, self._standin_tool
                    try:
                        return {"cp": reference.reconcile(payload["cp"])}
                    finally:
                        reference.execute_tool = kept
            relative = self.folder.relative(payload["path"])
            failing = self.scenario.steps[record["step"]].get("saves_fail_from") if record["step"] is not None else None
            if name == "save_checkpoint" and failing is not None and failing <= sum(
                    1 for call in self.standin_calls if call["step"] == record["step"] and call["name"] == name):
                # the disk stays full from that save on: a save tried again fails again
                return {"error": f"[Errno 28] No space left on device: {payload['path']!r}"}
            if name == "save_checkpoint":
                with tempfile.TemporaryDirectory(dir=self.sandbox.base) as private:
                    saved = Path(private) / "checkpoint.json"
                    reference.save_checkpoint(payload["state"], saved)
                    self.folder.write_atomically(relative, saved.read_bytes())
                record["state"] = payload["state"]
                return {}
            if name == "load_checkpoint":
                data = self.folder.read_bytes(relative)
                if data is None:
                    return {"state": None}
                with tempfile.TemporaryDirectory(dir=self.sandbox.base) as private:
                    copy = Path(private) / Path(relative).name
                    copy.write_bytes(data)
                    return {"state": reference.load_checkpoint(copy)}
        except Exception as exc:  # the student's data made the reference fail: tell the student's code
            return {"error": str(exc), "type": type(exc).__name__}
        return {"error": f"没有名为 {name} 的替身函数"}

    def _standin_tool(self, name, tool_input):
        self.standin_calls.append({"step": self.current_step(), "name": "execute_tool", "tool": name})
        return self.run_tool(name, tool_input)

    # -- deadlines --

    def step_limit(self, index: int) -> float:
        step = self.scenario.steps[index]
        limit = step.get("timeout", self.scenario.step_timeout)
        if step["name"] in self.trouble.hung:  # it hung before: do not wait as long again
            limit = min(limit, step.get("quick_timeout", QUICK_TIMEOUT))
        return limit

    def overdue(self) -> str | None:
        """Why the running phase must be ended now: "time" (past its limit), "output" (flooding), or None."""
        with self.lock:
            phase, since, trace_start = self.phase, self.phase_started, self.phase_trace
            returned = phase.kind is PhaseKind.STEP and self.steps[phase.step] is not None
        if phase.kind is PhaseKind.BEFORE:
            limit = STARTUP_TIMEOUT
        elif returned:
            limit = LEFTOVERS_TIMEOUT
        elif phase.kind is PhaseKind.STEP:
            limit = self.step_limit(phase.step)
        else:
            limit = CELL_TIMEOUT
        if time.monotonic() - since > limit:
            return "time"
        return "output" if self.trace_position() - trace_start > STEP_TRACE_BYTES else None


def _checked_result(result: dict) -> dict:
    """A step's report, as the grader accepts it: a known status and only the fields that status has."""
    status = result.get("status")
    if status not in REPORTED_STATUSES:
        return {"status": StepStatus.DIED, "detail": "进程报告了评分器不认识的结果"}
    status = StepStatus(status)
    checked = {"status": status}
    if status is StepStatus.RETURNED:
        checked["value"] = result.get("value")
    elif status is StepStatus.RAISED:
        error = result.get("error") if isinstance(result.get("error"), dict) else {}
        checked["error"] = {"type": str(error.get("type", "")), "value_error": error.get("value_error") is True,
                            "message": str(error.get("message", ""))}
    elif status is StepStatus.UNSUPPORTED:
        checked["detail"] = str(result.get("detail", ""))
    if isinstance(result.get("seconds"), (int, float)):
        checked["seconds"] = float(result["seconds"])
    if isinstance(result.get("args_after"), list):
        checked["args_after"] = result["args_after"]
    if "args_after_problem" in result:
        checked["args_after_problem"] = str(result["args_after_problem"])
    return checked


def answering_lookup(service: dict):
    """A lookup(name, key) answering as a service in the given state would (lesson 4's recovery_action):
    down, it cannot say; up, it knows the keyed emails in `answers` and no other tool's calls."""
    answers, down = dict(service.get("answers") or {}), service.get("down") is True

    def lookup(name, key):
        if down:
            raise ServiceUnavailable("邮件服务器无法回答：[Errno 111] Connection refused")
        if name != "send_email":
            raise ServiceUnavailable(f"{name} 背后的服务不支持按幂等键查询")
        return answers.get(key)

    return lookup


def _api_error(message: str, kind: str = "invalid_request_error") -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def overloaded() -> tuple:
    """(status, reply) of the API when it is overloaded: the SDK raises it (an APIStatusError) once its retries are
    out (the offline clients make none)."""
    return 529, _api_error("Overloaded", "overloaded_error")
