"""满分：学生加的单元格用各种类型工具描述检查点：pydantic 的 BaseModel（SDK 已经载入了 pydantic）、dataclass、Enum、
Protocol、Generic[T]、NamedTuple，一个 json.JSONEncoder 子类，一个跑完就 join 的 threading.Thread 子类，并把示例检查点
校验、转成 JSON 一遍。这些都只在学生自己的类上加东西，不改库的类。"""
# %% extra after imports
import dataclasses
import enum
import threading
import typing

import pydantic


class Pending(pydantic.BaseModel):
    id: str
    name: str
    input: dict


class Snapshot(pydantic.BaseModel):
    version: int
    task: typing.Any
    turns: int = 0
    tokensUsed: int = 0
    messages: list = []
    pendingToolUse: typing.Optional[Pending] = None


class Action(enum.Enum):
    CONTINUE = "continue"
    RERUN = "rerun"
    IS_ERROR = "is_error"


T = typing.TypeVar("T")


@dataclasses.dataclass
class Box(typing.Generic[T]):
    value: T


class Saver(typing.Protocol):
    def __call__(self, state: dict, path: str) -> None: ...


class Turn(typing.NamedTuple):
    number: int
    tokens: int


class QuietEncoder(json.JSONEncoder):
    item_separator = ","

    def default(self, o):
        if isinstance(o, Action):
            return o.value
        return super().default(o)


class Warmer(threading.Thread):
    def run(self):
        self.result = Snapshot(version=1, task="热身").model_dump_json()


warmer = Warmer()
warmer.start()
warmer.join()
example = Snapshot.model_validate({"version": 1, "task": "示例", "pendingToolUse": {"id": "t1", "name": "grep",
                                                                                   "input": {"q": "x"}}})
EXAMPLE_JSON = json.dumps({"action": Action.RERUN, "turn": Turn(1, 2), "box": Box(3).value}, cls=QuietEncoder)
