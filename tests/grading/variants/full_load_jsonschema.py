"""满分：load_checkpoint 读出 JSON 之后用 jsonschema 校验（课程环境里有，Jupyter 自己就依赖它）：必须是对象、version 等于
CHECKPOINT_VERSION；校验失败的 ValidationError 换成带路径的 ValueError。"""
# %% save_load
import jsonschema

CHECKPOINT_SCHEMA = {
    "type": "object",
    "required": ["version"],
    "properties": {"version": {"type": "integer", "const": CHECKPOINT_VERSION}},
}


def save_checkpoint(state, path=CHECKPOINT_PATH):
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
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None
    try:
        state = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{error}") from error
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{error}") from error
    try:
        jsonschema.validate(state, CHECKPOINT_SCHEMA)
    except jsonschema.ValidationError as error:
        version = state.get("version") if isinstance(state, dict) else None
        raise ValueError(f"检查点 {path} 不合格式（版本 {version!r}，这段代码只认版本 {CHECKPOINT_VERSION}）："
                         f"{error.message}") from None
    return state
