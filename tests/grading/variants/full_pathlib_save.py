"""满分：pathlib 写法——随机名字的临时文件（uuid）、Path.open 写入后 fsync、Path.replace、O_DIRECTORY 打开文件夹 fsync；
读的时候先 read_bytes 再自己解码，每种坏文件各有一句中文说明。"""
# %% save_load
import uuid


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    scratch = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with scratch.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(state, ensure_ascii=False, indent=1))
            handle.flush()
            os.fsync(handle.fileno())
        scratch.replace(path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"检查点 {path} 不是 UTF-8 编码的文本") from None
    try:
        state = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 无法解析（第 {error.lineno} 行）：文件可能只写了一半") from None
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 的内容应该是一个 JSON 对象，实际是 {type(state).__name__}")
    if "version" not in state:
        raise ValueError(f"检查点 {path} 缺少 version 字段，这段代码只认版本 {CHECKPOINT_VERSION}")
    if state["version"] != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state['version']}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
