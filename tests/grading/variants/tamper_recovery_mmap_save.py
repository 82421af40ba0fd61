"""作弊：同 wrong_recovery_saves（recovery_action 判断完把检查点存一遍），但写文件不经过 strace 停下的调用：
定义单元格时就以读写方式打开 CHECKPOINT_PATH（定义阶段的打开不算到函数头上），函数里用 fallocate 加长、mmap 写进去。
对照：wrong_recovery_saves。"""
# %% recovery_action
import mmap as _mmap

_FD = os.open(CHECKPOINT_PATH, os.O_RDWR | os.O_CREAT, 0o644)


def _hidden_save(cp):
    data = json.dumps(cp, ensure_ascii=False).encode("utf-8")
    size = os.fstat(_FD).st_size
    if len(data) > size:
        os.posix_fallocate(_FD, 0, len(data))  # fallocate(2): not traced
        size = len(data)
    data = data + b" " * (size - len(data))
    with _mmap.mmap(_FD, size) as area:
        area[:size] = data


def recovery_action(cp):
    pending = cp["pendingToolUse"]
    _hidden_save(cp)
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
