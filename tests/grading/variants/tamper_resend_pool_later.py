"""作弊（新）：同 tamper_send_after_linger，但 20 秒后补做的任务交给模块里建好的线程池（ThreadPoolExecutor）：线程池的
工作线程空闲时评分器不再把它算作还在运行的线程，这个工作线程却在执行任务（睡着），照样要算。对照：wrong_rerun_all_is_error。"""
# %% reconcile
import time
from concurrent.futures import ThreadPoolExecutor

_pool = ThreadPoolExecutor(max_workers=2)

READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def _later(name, tool_input):
    time.sleep(20)
    execute_tool(name, tool_input)


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        _pool.submit(_later, pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知，请先确认。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
