"""The situations the hidden tests put a submission in, as data for the sandbox.

Every grading run draws them afresh from its own seed (`build(max_turns, rng)` with a
`random.Random(seed)`; the judge records the seed with the verdict, so `--seed N`
draws the same run again): the task's wording, the checkpoint's folder and file name
(nested, never the default checkpoint.json), the counters in every checkpoint, the
tool-call ids and inputs, and which unheard-of tools stand in for "any other tool".
A submission can hard-code none of it.

The unheard-of tools come from three pools, drawn from each in every run, so that
each shortcut loses the same points whatever the seed: names that begin with a
read-only tool's name (a prefix test calls them read-only), names with one further in
(so does a substring test), and high-impact tools whose verbs are not the obvious ones
(a deny-list of verbs lets them through).
"""
import json
import string

from course import load_sample

from autograder.sandbox import Scenario


# The scripted model picks its plan from the task's words: "纪要" (meeting notes) or "邮件" (email).
MEETING_TASKS = (
    "把本周几次会议的纪要整理成一份结论清单",
    "请汇总这周所有会议纪要里的结论",
    "读一遍 notes 里的会议纪要，列出本周定下来的事",
    "帮忙梳理本周的会议纪要，告诉我都有哪些结论",
    "整理一下这周的会议纪要，按会议列出结论",
    "本周开了几次会？把每份纪要的结论汇总给我",
    "请根据 notes 文件夹里的纪要，总结本周的决定",
    "把这周会议纪要的要点整理出来，下午开会要用",
    "翻一下本周的会议纪要，把结论归纳成要点",
    "看看这周的纪要，整理出所有结论",
    "周报要用：请把本周会议纪要里的结论列出来",
    "帮我过一遍这周的纪要，挑出已经拍板的事项",
)
EMAIL_TASKS = (
    "把本周会议的结论整理好，发邮件告诉团队",
    "请汇总这周的会议结论，并用邮件通知全组",
    "读完本周纪要后，把结论用邮件发给团队",
    "帮我把这周定下来的事发邮件同步给大家",
    "本周会议结论请用邮件通知团队成员",
    "把纪要里的结论汇总成一封邮件，发给团队",
    "请给团队发一封邮件，列出本周各次会议的结论",
    "整理本周结论后发邮件给全组，让大家都知道",
)
FOLDERS = ("runs", "state", "agent-data", "work", "ckpt", "sessions", "jobs", "var", "data", "tmp-agent")

READ_ONLY_INPUTS = {  # tool -> the inputs a dangling call may have had
    "read_file": [{"path": f"./notes/meeting-08-{day}.md"} for day in (25, 26, 27, 28, 29)] + [{"path": "./team.md"}],
    "grep": [{"pattern": word, "path": "./notes"} for word in ("结论", "决定", "负责", "下周", "预算")],
    "list_dir": [{"path": "./notes"}, {"path": "."}],
    "web_search": [{"query": words} for words in ("检查点 恢复", "tool_result is_error", "原子写入 fsync",
                                                  "幂等 重试", "tool_use 配对")],
}
# Tools the lesson never names. Each of these begins with the exact name of a read-only tool ...
BEGINS_WITH_READ_ONLY_NAME = (
    "read_file_then_delete", "read_file_and_shred", "read_file_and_forward", "grep_and_replace",
    "grep_replace_in_place", "grep_then_purge_matches", "list_dir_purge", "list_dir_and_wipe",
    "list_dir_then_archive", "web_search_and_buy", "web_search_then_post", "web_search_and_subscribe",
    "list_sent_emails_and_resend", "read_file_or_overwrite",
)
# ... and each of these has one further in.
HAS_READ_ONLY_NAME_INSIDE = (
    "purge_read_file_cache", "wipe_list_dir_entries", "rewrite_grep_matches", "forward_read_file_output",
    "archive_list_dir_results", "buy_from_web_search", "resend_list_sent_emails", "shred_after_read_file",
    "publish_web_search_digest", "replace_grep_hits", "truncate_read_file_target", "bulk_list_dir_move",
)
# The verbs a deny-list of high-impact tools would name first ...
OBVIOUS_VERBS = ("send", "delete", "remove", "drop", "transfer", "pay", "charge", "deploy", "cancel", "post",
                 "write", "update", "create", "rotate", "email", "mail", "exec", "run", "kill")
# ... and high-impact tools whose names contain none of them.
UNUSUAL_VERBS = (
    "notify_oncall", "archive_thread", "publish_report", "escalate_ticket", "merge_pull_request",
    "provision_vm", "revoke_access", "schedule_meeting", "approve_invoice", "refund_order", "enqueue_job",
    "restart_service", "scale_cluster", "book_flight", "order_supplies", "page_engineer", "sign_contract",
    "invite_guest", "ban_account", "mute_channel", "rename_branch", "tag_release", "promote_build",
    "rollback_release", "compact_logs", "purge_cache", "wipe_device", "lock_account", "reset_password",
    "grant_role", "commit_changes", "push_commits", "submit_form", "file_expense", "reserve_room",
    "print_badges", "ship_order", "broadcast_alert", "forward_invoice", "close_ticket", "reopen_incident",
    "assign_owner", "terminate_instance", "suspend_user", "unsubscribe_all", "renew_license",
    "upgrade_plan", "migrate_database", "reboot_router", "invalidate_tokens", "expire_sessions",
    "void_invoice", "settle_invoice", "dispatch_courier", "tweet_status", "open_door", "start_backup_restore",
)
AGENT_TIMEOUT = 20.0  # seconds for one run_agent call (at most ten turns here, on a busy machine)
AGENT_QUICK_TIMEOUT = 8.0  # once run_agent has run out of time
FILE_SIZE_LIMIT = 64 * 1024  # bytes: the "disk" fills up half-way through the big save
STANDINS = ("save_checkpoint", "load_checkpoint", "reconcile")
FOLDER, FOLDER_FILE = "（一个文件夹）", "notes.txt"  # a broken "file" that is a folder (holding one file)
CLIENT = {"$client": True}  # a client of its own, not the one make_client() returns


class Draw:
    """Everything random in one grading run, from one seeded random.Random."""

    def __init__(self, rng):
        self.rng = rng

    def letters(self, length: int) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(length))

    def tool_id(self) -> str:
        alphabet = string.ascii_letters + string.digits
        return "toolu_01" + "".join(self.rng.choice(alphabet) for _ in range(22))

    def folder(self) -> str:
        """A nested folder such as "runs/qkzv/mwe" (one to three levels)."""
        parts = [self.rng.choice(FOLDERS)] + [self.letters(self.rng.randint(3, 6))
                                             for _ in range(self.rng.randint(0, 2))]
        return "/".join(parts)

    def file(self, prefix: str = "", folder: str | None = None) -> str:
        return f"{folder or self.folder()}/{prefix}{self.letters(8)}.json"

    def two_wordings(self, pool) -> tuple:
        return tuple(self.rng.sample(pool, 2))

    def sample(self, name: str, task: str) -> dict:
        """A lesson sample checkpoint with this task's wording, fresh counters and a fresh pending id."""
        cp = load_sample(name)
        cp["task"] = task
        cp["messages"][0]["content"] = task
        # More model calls than the history shows (a history may be trimmed): counting messages is no counter.
        cp["turns"] = sum(m["role"] == "assistant" for m in cp["messages"]) + self.rng.randint(1, 12)
        cp["tokensUsed"] = self.rng.randint(9_000, 60_000)
        if cp["pendingToolUse"]:
            cp = self.with_pending(cp, cp["pendingToolUse"]["name"], cp["pendingToolUse"]["input"])
        return cp

    def with_pending(self, cp: dict, name: str, tool_input: dict) -> dict:
        """`cp` (saved at point A) with its dangling call replaced by `name(tool_input)` under a fresh id."""
        tool_id = self.tool_id()
        block = next(b for b in cp["messages"][-1]["content"] if b["type"] == "tool_use")
        block.update(id=tool_id, name=name, input=dict(tool_input))
        cp["pendingToolUse"] = {"id": tool_id, "name": name, "input": dict(tool_input)}
        return cp

    def read_only_calls(self) -> list:
        return [(name, self.rng.choice(inputs)) for name, inputs in READ_ONLY_INPUTS.items()]

    def unheard_of_calls(self) -> list:
        """Two tools whose names contain a read-only name (at the start, further in), two with unusual verbs."""
        names = [self.rng.choice(BEGINS_WITH_READ_ONLY_NAME), self.rng.choice(HAS_READ_ONLY_NAME_INSIDE),
                 *self.rng.sample(UNUSUAL_VERBS, 2)]
        self.rng.shuffle(names)
        return [(name, {"target": f"{self.letters(4)}-{self.rng.randint(100, 9999)}", "note": "本周结论"})
                for name in names]


READ_ONLY_NAMES = tuple(READ_ONLY_INPUTS)
RESULT_TEXTS = ("meeting-08-25.md\nmeeting-08-26.md", "notes/meeting-08-26.md:10: 结论：格式定为 version 1",
                "# 08-27 周会\n结论：send_email 列为高影响工具", "已发送", "（没有找到）", "错误：文件不存在")
SAY = ("我先看看有哪些纪要。", "再读一份。", "找一下结论行。", "", "好的。", "接下来查一下邮件记录。")


class Generated:
    """Checkpoints drawn afresh for each case: the answer must follow from pendingToolUse alone.

    Any number of earlier turns; every layout of content blocks the Messages API allows here (text
    before a tool_use or not, several text blocks, a tool_result whose content is a string or text
    blocks, a text block after the tool_result, an earlier is_error result); the task as a string or
    as a text block, in the wording of either kind of task whatever the answer; earlier calls that
    repeat the dangling call's name and input; counters unrelated to the history's length.
    """

    def __init__(self, draw: Draw):
        self.draw, self.rng = draw, draw.rng
        self.wordings = [MEETING_TASKS, EMAIL_TASKS]
        self.rng.shuffle(self.wordings)

    def _call(self, name=None, tool_input=None) -> dict:
        if name is None:
            name, tool_input = self.rng.choice([*self.draw.read_only_calls(), *self.draw.unheard_of_calls(),
                                                ("send_email", {"to": "team@example.com", "subject": "本周结论"})])
        return {"type": "tool_use", "id": self.draw.tool_id(), "name": name, "input": dict(tool_input)}

    def _assistant(self, call: dict | None) -> dict:
        words = [w for w in self.rng.sample(SAY, self.rng.randint(0, 2)) if w]
        blocks = [{"type": "text", "text": w} for w in words] or ([] if call else [{"type": "text", "text": "完成。"}])
        return {"role": "assistant", "content": blocks + ([call] if call else [])}

    def _result(self, call: dict) -> dict:
        text = self.rng.choice(RESULT_TEXTS)
        result = {"type": "tool_result", "tool_use_id": call["id"],
                  "content": text if self.rng.random() < 0.6 else [{"type": "text", "text": text}]}
        if self.rng.random() < 0.15:
            result["is_error"] = True
        blocks = [result] + ([{"type": "text", "text": "继续。"}] if self.rng.random() < 0.2 else [])
        return {"role": "user", "content": blocks}

    def checkpoints(self, pending: list) -> list:
        """One checkpoint per item of `pending`; the kinds of task wording take turns, so each kind of
        dangling call comes with both."""
        return [self.checkpoint(item, self.wordings[number % 2]) for number, item in enumerate(pending)]

    def checkpoint(self, pending: tuple | None, tasks: tuple) -> dict:
        """A checkpoint at save point A with `pending` = (name, input) dangling, or with nothing pending:
        ending with a tool_result (pending = "result") or with the model's final answer (pending = None)."""
        ends_with_result, pending = pending == "result", None if pending == "result" else pending
        task = self.rng.choice(tasks)
        first = task if self.rng.random() < 0.7 else [{"type": "text", "text": task}]
        messages = [{"role": "user", "content": first}]
        for _ in range(self.rng.randint(0, 5)):
            repeat = pending is not None and self.rng.random() < 0.3  # the same call made before, and answered
            call = self._call(*pending) if repeat else self._call()
            messages += [self._assistant(call), self._result(call)]
        if pending is not None:
            call = self._call(*pending)
            messages.append(self._assistant(call))
            dangling = {"id": call["id"], "name": call["name"], "input": dict(call["input"])}
        else:
            dangling = None
            if ends_with_result:
                call = self._call()
                messages += [self._assistant(call), self._result(call)]
            else:
                messages.append(self._assistant(None))
        turns = sum(m["role"] == "assistant" for m in messages) + self.rng.randint(0, 9)
        return {"version": 1, "task": task, "turns": turns, "tokensUsed": self.rng.randint(1_000, 90_000),
                "messages": messages, "pendingToolUse": dangling}


def after_save_point_b(cp: dict) -> dict:
    """A checkpoint saved at point A, one step later: the call's result is in messages, nothing is pending."""
    pending = cp["pendingToolUse"]
    cp["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": pending["id"], "content": "（读到的纪要全文）"}]})
    cp["pendingToolUse"] = None
    return cp


def before_sending(cp: dict) -> dict:
    """cpC one turn earlier: the email task at save point B, just before the model asks for send_email."""
    cp["messages"].pop()
    cp["turns"] -= 1
    cp["pendingToolUse"] = None
    return cp


MISSING_NOTE = "meeting-08-31.md"  # listed by list_dir, absent from the workspace: reading it is an ordinary failure


def with_missing_note(cp: dict) -> dict:
    """cp whose list_dir result also lists MISSING_NOTE, so that the resumed run's read of it fails."""
    for message in cp["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and "meeting-08-25.md" in block["content"]:
                block["content"] += "\n" + MISSING_NOTE
    return cp


def finished(cp: dict) -> dict:
    """cp one step on, the task done: the model's closing reply saved at point A, nothing pending."""
    cp["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "本周的结论已经整理好了。"}]})
    cp["turns"] += 1
    return cp


def without_version(cp: dict) -> dict:
    return {key: value for key, value in cp.items() if key != "version"}


def call(name: str, *args, **kwargs) -> dict:
    return {"kind": "call", "name": name, "args": list(args), "kwargs": kwargs}


def path(name: str) -> dict:
    return {"$path": name}


def build(max_turns: int, rng) -> dict:
    """name -> Scenario for one grading run; `rng` is the run's seeded random.Random."""
    draw = Draw(rng)
    scenarios = {}

    def add(scenario: Scenario):
        scenarios[scenario.name] = scenario

    meeting, resumed_meeting = draw.two_wordings(MEETING_TASKS)
    email, resumed_email = draw.two_wordings(EMAIL_TASKS)

    # -- save_checkpoint / load_checkpoint --
    # A save, loading it back, a missing file, then broken files, each a way a checkpoint goes bad (in
    # shuffled order, sharing one process: one point for all of them). Their JSON is ASCII (\u escapes), so
    # a Chinese error message cannot come from quoting the file; the GBK one is what an editor on Windows may save.
    state, previous = draw.sample("cpB", meeting), draw.sample("cpA", meeting)
    saved = draw.file()
    folder = draw.folder()
    wrong_version = rng.randint(2, 9)
    broken = draw.sample("cpA", meeting)
    text = json.dumps(broken)
    damaged = {"corrupt": text[:rng.randint(80, len(text) - 80)],
               "empty": "",
               "future": json.dumps({**broken, "version": wrong_version}),
               "older": json.dumps({**broken, "version": rng.choice([0, -1])}),
               "not_utf8": json.dumps(broken, ensure_ascii=False).encode("gbk"),
               "not_object": json.dumps(rng.choice([[broken], "checkpoint", 42, None, True])),
               "no_version": json.dumps(without_version(broken)),
               "folder": FOLDER}
    damaged = {kind: damaged[kind] for kind in rng.sample(list(damaged), len(damaged))}
    files = {kind: draw.file(prefix=kind.replace("_", "-") + "-", folder=folder) for kind in damaged}
    on_disk = {f"{files[kind]}/{FOLDER_FILE}" if damaged[kind] == FOLDER else files[kind]:
               "" if damaged[kind] == FOLDER else damaged[kind] for kind in damaged}
    # The save replaces an earlier checkpoint: a power cut at any moment must leave the one or the other.
    add(Scenario("save_roundtrip", independent_steps=True, watch=saved,
                 files={saved: json.dumps(previous, ensure_ascii=False), **on_disk},
                 meta={"state": state, "previous": previous, "file": saved, "broken": files, "first_broken": 3,
                       "damaged": damaged, "version": wrong_version, "task": meeting},
                 steps=[call("save_checkpoint", state, path(saved)),
                        call("load_checkpoint", path(saved)),
                        call("load_checkpoint", path(draw.file(folder=saved.rsplit("/", 1)[0]))),
                        *({**call("load_checkpoint", path(files[kind])), "batch": "broken"} for kind in damaged)]))

    small, big = draw.sample("cpB", meeting), draw.sample("cpC", email)
    big["messages"][-2]["content"][0]["content"] += "\n" + "会议纪要的附录，很长很长。" * 12_000
    target = draw.file()
    add(Scenario("save_atomic", watch=target, meta={"state": small, "big": big, "file": target}, steps=[
        call("save_checkpoint", small, path(target)),
        {**call("save_checkpoint", big, path(target)), "file_size_limit": FILE_SIZE_LIMIT},
    ]))

    # -- reconcile -- (read_file earns its own point; the other read-only tools one together, in one process,
    # and so do the unheard-of tools)
    read_only = [draw.with_pending(draw.sample("cpB", meeting), name, tool_input)
                 for name, tool_input in draw.read_only_calls()]
    add(Scenario("reconcile_read_only", independent_steps=True, meta={"checkpoints": read_only},
                 steps=[{**call("reconcile", cp), "report_args": True, **({"batch": "others"} if index else {})}
                        for index, cp in enumerate(read_only)]))

    send = draw.sample("cpC", email)
    add(Scenario("reconcile_send_email", meta={"checkpoints": [send]},
                 emails_before=(send["pendingToolUse"]["input"],),  # it went out just before the crash
                 steps=[{**call("reconcile", send), "report_args": True}]))

    unheard_of_calls = draw.unheard_of_calls()
    unheard_of = [draw.with_pending(draw.sample("cpC", email), name, tool_input)
                  for name, tool_input in unheard_of_calls]
    add(Scenario("reconcile_unheard_of", independent_steps=True, meta={"checkpoints": unheard_of},
                 steps=[{**call("reconcile", cp), "report_args": True, "batch": "unheard_of"} for cp in unheard_of]))

    # -- recovery_action -- over generated checkpoints; the expected answer is the reference's, at judging
    # time. The kinds of dangling call are spread evenly, every task wording goes with every answer, and all
    # the cases share one process in shuffled order, so neither the wording, the shape, the position nor
    # an earlier call says what to answer.
    generated = Generated(draw)
    cases = generated.checkpoints(rng.sample([None, None, "result", "result"], 4))
    cases += generated.checkpoints(draw.read_only_calls())
    cases += generated.checkpoints([("send_email", send["pendingToolUse"]["input"]), *unheard_of_calls])
    rng.shuffle(cases)
    add(Scenario("recovery_action", independent_steps=True, meta={"cases": cases},
                 steps=[{**call("recovery_action", cp), "report_args": True, "batch": "recovery"} for cp in cases]))

    # -- the multiple-choice answers (values only: one process reads them all) --
    add(Scenario("answers", independent_steps=True, steps=[
        {"kind": "value", "name": name, "batch": "answers"}
        for name in ("QUIZ_DELETE_ANSWER", "ROOT_CAUSE_ANSWER", "QUIZ_FAILURE_ANSWER")]))
    # -- run_agent: with the grader's own save / load / reconcile (STANDINS), or in Level 2 with the
    # student's own, the way the notebook's replay runs the incident --
    def agent(name, task, checkpoint=None, runs=1, standins=STANDINS, **options):
        where = draw.file()
        files = {where: json.dumps(checkpoint, ensure_ascii=False)} if checkpoint else {}
        step = {**call("run_agent", task, client=CLIENT, path=path(where)), "timeout": AGENT_TIMEOUT,
                "quick_timeout": AGENT_QUICK_TIMEOUT}
        add(Scenario(name, steps=[step] * runs, files=files, watch=where, standins=standins,
                     meta={"task": task, "checkpoint": checkpoint, "file": where}, **options))

    # Level 2. SIGKILL right after send_email delivered, before save point B: the incident itself; then
    # SIGKILL just before the second tool call (grep) runs: a read-only call left dangling.
    agent("incident_replay", email, before_sending(draw.sample("cpC", email)), runs=2, standins=(),
          crash={"after_tool": "send_email"})
    agent("incident_read_only_crash", meeting, runs=2, standins=(), crash={"before_tool_call": 2})

    # When it resumes, run_agent is given the task in other words: the checkpoint's own task wins.
    agent("agent_fresh", meeting)
    agent("agent_resume", resumed_meeting, with_missing_note(draw.sample("cpA", meeting)))
    agent("agent_pending", resumed_meeting, draw.sample("cpB", meeting))
    agent("agent_crash_send", resumed_email, before_sending(draw.sample("cpC", email)), runs=2,
          crash={"after_tool": "send_email"})
    # A few turns left; the process dies before one of the tool calls and is started again.
    ending = draw.sample("cpA", meeting)
    ending["turns"] = max_turns - rng.randint(8, 12)
    agent("agent_max_turns_crash", resumed_meeting, ending, runs=2, model="endless",
          crash={"before_tool_call": rng.randint(3, 5)})
    agent("agent_max_turns_spent", resumed_meeting, {**draw.sample("cpA", meeting), "turns": max_turns},
          model="endless")
    agent("agent_finished", resumed_meeting, finished(draw.sample("cpA", meeting)))
    return scenarios
