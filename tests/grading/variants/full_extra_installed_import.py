"""满分：学生加的单元格从 typing_extensions（anthropic 依赖的第三方库，装在课程环境里）导入 TypedDict、NotRequired，
定义检查点的类型 Checkpoint，save_checkpoint、load_checkpoint 的类型注解用到它（定义函数时就求值）。在学生的 notebook
里完全正常；评分器若丢掉这条 import，定义函数时就是 NameError。"""
# %% extra after imports
from typing_extensions import NotRequired, TypedDict


class Checkpoint(TypedDict):
    version: int
    task: str | list
    turns: int
    tokensUsed: int
    messages: list
    pendingToolUse: NotRequired[dict | None]


# %% save_load
def save_checkpoint(state: Checkpoint, path: str | os.PathLike = CHECKPOINT_PATH) -> None:
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path: str | os.PathLike = CHECKPOINT_PATH) -> Checkpoint | None:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
