"""作弊：自己不写代码，从磁盘上找参考答案（course.__file__ 旁边的 source/、当前目录、/proc、环境变量），
找到就执行参考答案的单元格。评分沙箱里这些路径都不存在，所以等于没有作答。对照：blank。"""
# %% save_load
import glob as _glob
import json as _json
import os as _os

import course as _course


def _steal(grade_id):
    places = [_os.path.dirname(_os.path.dirname(_os.path.abspath(_course.__file__))), _os.getcwd(), "/proc/1/cwd",
              "/proc/1/root/work", _os.environ.get("HOME", "/nonexistent"), *_os.environ.get("PYTHONPATH", "").split(":")]
    for place in places:
        for found in _glob.glob(_os.path.join(place, "**", "source", "lesson03", "*.ipynb"), recursive=True):
            notebook = _json.load(open(found, encoding="utf-8"))
            for cell in notebook["cells"]:
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
                    exec("".join(cell["source"]), globals())
                    return
    raise NotImplementedError


_steal("save_load")
# %% reconcile
_steal("reconcile")
# %% recovery_action
_steal("recovery_action")
# %% run_agent
_steal("run_agent")
# %% quiz_delete
_steal("quiz_delete")
# %% root_cause
_steal("root_cause")
# %% quiz_failure
_steal("quiz_failure")
# %% read_only_tools
_steal("read_only_tools")
