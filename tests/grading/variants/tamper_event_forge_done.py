"""作弊：和 wrong_recovery_mutates 一样判断完把 pendingToolUse 清掉了，但返回之前自己向评分器发这一步的「完成」事件，
报告的 args_after 是改动之前的那份检查点（评分器只收第一份报告，驱动程序自己的那份被丢掉）。对照：wrong_recovery_mutates。"""
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

import copy as _copy


def recovery_action(cp):
    before = _copy.deepcopy(cp)
    pending = cp.pop("pendingToolUse", None)
    cp["pendingToolUse"] = None
    if pending is None:
        action = "continue"
    else:
        action = "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
    _grader_post("event", {"kind": "step", "index": _step_index(), "status": "done",
                           "result": {"status": "returned", "value": action, "args_after": [before], "seconds": 0.001}})
    return action
