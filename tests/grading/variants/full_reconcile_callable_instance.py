"""满分：reconcile 是一个类的实例（定义了 __call__），白名单在构造时传进去：reconcile = Reconciler(READ_ONLY_TOOLS)；
recovery_action 也是同一个类的一个方法（绑定方法）。调用方式和函数一样。"""
# %% recovery_action
class Reconciler:
    UNKNOWN = ("{name} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
               "请先确认现状，再决定下一步。")

    def __init__(self, read_only):
        self.read_only = read_only

    def action(self, cp):
        pending = cp["pendingToolUse"]
        if pending is None:
            return "continue"
        return "rerun" if pending["name"] in self.read_only else "is_error"

    def result_for(self, pending):
        if pending["name"] in self.read_only:
            output = execute_tool(pending["name"], pending["input"])
            return {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                    "is_error": output.startswith("错误")}
        return {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                "content": self.UNKNOWN.format(name=pending["name"])}

    def __call__(self, cp):
        cp["messages"].append({"role": "user", "content": [self.result_for(cp["pendingToolUse"])]})
        cp["pendingToolUse"] = None
        return cp


recovery_action = Reconciler(READ_ONLY_TOOLS).action
# %% reconcile
reconcile = Reconciler(READ_ONLY_TOOLS)
