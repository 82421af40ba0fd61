"""满分：学生加的实验单元格让 json 能写 datetime：把库的类 json.JSONEncoder 的 default 换成先认日期、别的照旧交给原来的
default 的函数。定义单元格时换一次，之后每一步都用着它（在学生的 kernel 里也是这样），评分器看它的效果：不算留下的钩子。"""
# %% extra after imports
import datetime

_json_default = json.JSONEncoder.default


def _default_with_dates(self, o):
    if isinstance(o, (datetime.date, datetime.datetime)):
        return o.isoformat()
    return _json_default(self, o)


json.JSONEncoder.default = _default_with_dates
STARTED_AT = json.dumps({"startedAt": datetime.datetime(2026, 1, 1, 8, 0)})
