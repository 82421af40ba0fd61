"""满分（常见的第一版）：load_checkpoint 先 os.path.exists 判断，再 json.load(open(path, encoding="utf-8"))——文件对象
没有用 with，靠 CPython 的引用计数在 json.load 返回后关上；UnicodeDecodeError 和 JSONDecodeError 分开说明，
版本不符时 raise 一个写出两个版本号的中文 ValueError。path 上是文件夹、没有读权限时 open 抛出的 OSError 照样抛出去。"""
# %% save_load
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
    if not os.path.exists(path):
        return None
    try:
        state = json.load(open(path, encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"检查点 {path} 不是 UTF-8 编码：{e}")
    except json.JSONDecodeError as e:
        raise ValueError(f"检查点 {path} 的 JSON 已损坏：{e}")
    if type(state) != dict:
        raise ValueError(f"检查点 {path} 不是一个 JSON 对象")
    if "version" not in state or state["version"] != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state.get('version')}，需要版本 {CHECKPOINT_VERSION}")
    return state
