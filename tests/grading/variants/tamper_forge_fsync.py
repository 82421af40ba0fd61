"""作弊：和 wrong_save_no_fsync 一样不 fsync，却把 os.fsync、os.replace、json.dump 和内置 open 换成
“记一笔就返回”的版本，想让评分器以为保存是持久的。对照：wrong_save_no_fsync。"""
# %% save_load
import builtins

_real_open, _real_replace = builtins.open, os.replace
os.fsync = os.fdatasync = lambda fd: None
os.replace = lambda src, dst: _real_replace(src, dst)
json.dump = lambda obj, fp, **options: fp.write(json.dumps(obj, **options))
builtins.open = lambda *args, **kwargs: _real_open(*args, **kwargs)


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = path.parent / (path.name + ".tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(state, file, ensure_ascii=False)
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)

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
