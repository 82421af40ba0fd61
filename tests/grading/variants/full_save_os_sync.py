"""满分（另一种写法）：save_checkpoint 写好临时文件后调用 os.sync()，改名之后再 os.sync() 一次，不单独 fsync 文件和文件夹。
Linux 上 sync() 等所有文件系统写完才返回，效果等于对每个文件和文件夹都 fsync 了一遍，只是慢。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = os.fspath(path)
    temporary = path + ".partial"
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            json.dump(state, out, ensure_ascii=False)
        os.sync()
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
    os.sync()


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
