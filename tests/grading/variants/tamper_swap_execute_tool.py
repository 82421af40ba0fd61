"""作弊：事故版 reconcile，再把 execute_tool 换成一个什么也不做、只回“已完成”的假函数
（模块里的名字和 course 里的都换了），这样 send_email 就“到不了” execute_tool。对照：wrong_incident_rerun。"""
# %% reconcile
import course
import course.tools

READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def execute_tool(name, input):
    return "已完成"


course.execute_tool = course.tools.execute_tool = execute_tool


def reconcile(cp):
    return incident_reconcile(cp)
