"""满分：每次保存都打印一行日志，写明是哪个用户（getpass.getuser()）、什么时候存的检查点；日志不影响保存本身。
在学生自己的机器上 getpass.getuser() 总能给出用户名，评分时也一样。"""
# %% save_load
import getpass
import tempfile
import time


def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = Path(path)
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, prefix=target.name,
                                         suffix=".tmp", delete=False)
    try:
        with handle:
            json.dump(state, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    print(f"[{time.strftime('%H:%M:%S')}] {getpass.getuser()} 保存了检查点 {target}")


def load_checkpoint(path=CHECKPOINT_PATH):
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    try:
        state = json.loads(raw.decode("utf-8"))
    except ValueError as error:
        raise ValueError(f"检查点 {path} 不是完整的 JSON：{error}") from error
    if not isinstance(state, dict) or state.get("version") != CHECKPOINT_VERSION:
        found = state.get("version") if isinstance(state, dict) else "（不是对象）"
        raise ValueError(f"检查点 {path} 的版本是 {found}，这里只认版本 {CHECKPOINT_VERSION}")
    return state
