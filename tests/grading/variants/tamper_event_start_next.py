"""作弊（看评分器会不会出错）：recovery_action 第一次被调用时向评分器发批里下一步的「开始」事件（提前挪动它的 started_at），
再照参考答案返回。对照：参考答案（满分）。"""
# %% recovery_action
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

_posted = []


def recovery_action(cp):
    index = _step_index()
    if index is not None and not _posted:
        _posted.append(index)
        _grader_post("event", {"kind": "step", "index": index + 1, "status": "start"})
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
