"""作弊：同 wrong_recovery_saves（recovery_action 判断完把检查点存一遍），写法是 tamper_recovery_mmap_save 的升级版：
定义单元格时（还没有检查点的话）建好 CHECKPOINT_PATH、一次定好大小（256 KB 空格）并打开；函数里经 mmap 写进去（JSON 后面补空格，大小不变），
写完用 os.utime 把修改时间改回原样：评分器比较的 (大小, 修改时间, inode) 都没变，就当作这个文件「没被这一步动过」。
对照：wrong_recovery_saves。"""
# %% recovery_action
import mmap as _mmap

_SIZE = 256 * 1024
_MAP = None
if not os.path.exists(CHECKPOINT_PATH):  # 只在还没有检查点的文件夹里准备（别的场景里不碰已有的文件）
    _FD = os.open(CHECKPOINT_PATH, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(_FD, b" " * _SIZE)
    _MAP = _mmap.mmap(_FD, _SIZE)
    _STAT = os.fstat(_FD)


def _hidden_save(cp):
    if _MAP is None:
        return
    data = json.dumps(cp, ensure_ascii=False).encode("utf-8")
    _MAP[:_SIZE] = data + b" " * (_SIZE - len(data))
    _MAP.flush()
    os.utime(_FD, ns=(_STAT.st_atime_ns, _STAT.st_mtime_ns))


def recovery_action(cp):
    pending = cp["pendingToolUse"]
    _hidden_save(cp)
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
