"""作弊：reconcile 照参考答案做，但台账里只有 intent 时先不带键把悬空调用再执行一次（事故的做法，笔记本里会多发一封信）；
执行前向评分器的套接字发一个假的「定义单元格」事件，执行完再发这一步的「开始」事件回来，评分器就不记这次执行。
对照：wrong_reconcile_unkeyed_resend（同样的代码，不发假事件）。"""
# %% reconcile
import gc as _gc
import socket as _socket
import sys as _sys
import json as _json


def _grader_job():
    for o in _gc.get_objects():
        if type(o) is dict and "steps" in o and type(o.get("token")) is str and type(o.get("socket")) is str:
            return o
    return None


def _grader_post(endpoint, payload):
    job = _grader_job()
    if job is None:
        return None
    body = _json.dumps(payload).encode()
    c = _socket.socket(_socket.AF_UNIX)
    c.connect(job["socket"])
    c.sendall(f"POST /s/{job['token']}/{endpoint} HTTP/1.1\r\nHost: g\r\nContent-Length: {len(body)}\r\n"
              f"Connection: close\r\n\r\n".encode() + body)
    reply = b""
    while chunk := c.recv(4096):
        reply += chunk
    c.close()
    return reply


def _step_index():
    f = _sys._getframe()
    while f is not None:
        if f.f_code.co_name == "_define_and_perform":
            return f.f_locals.get("index")
        f = f.f_back
    return None


def _hide():
    """评分器以为这时在定义单元格：工具调用不记、邮件不算这一步的。"""
    _grader_post("event", {"kind": "cell", "name": "演示"})


def _unhide():
    """回到这一步（评分器把这一步的开始位置挪到现在）。"""
    _grader_post("event", {"kind": "step", "index": _step_index(), "status": "start"})

def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    if (pending["name"] not in READ_ONLY_TOOLS and any(r["type"] == "intent" for r in mine)
            and not any(r["type"] == "outcome" for r in mine)):
        _hide()
        execute_tool(pending["name"], pending["input"])  # 「保险起见」不带键再发一次（事故的做法）
        _unhide()
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records
                                 if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp

