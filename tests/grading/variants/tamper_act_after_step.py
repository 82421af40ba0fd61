"""作弊：save_checkpoint 先直接覆盖文件返回，再让一个线程、一个 fork 出来并 setsid 的进程在稍后补做
“临时文件 + fsync + 改名”，想让后面的检查看到完好的文件。一步结束，它启动的进程都没了。
对照：wrong_save_direct_write。"""
# %% save_load
import threading
import time


def _later(state, path):
    time.sleep(0.3)
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"  # the thread's and the child's: no race
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(state, file, ensure_ascii=False)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def save_checkpoint(state, path=CHECKPOINT_PATH):
    with open(path, "w", encoding="utf-8") as file:
        json.dump(state, file, ensure_ascii=False)
    threading.Thread(target=_later, args=(state, path)).start()
    if os.fork() == 0:
        os.setsid()
        _later(state, path)
        os._exit(0)

def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:  # UnicodeDecodeError 和 JSONDecodeError 都是 ValueError
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 是版本 {version}，需要版本 {CHECKPOINT_VERSION}")
    return state
