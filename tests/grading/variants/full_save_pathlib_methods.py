"""满分（少见的写法）：学生把路径当成 Path 用（notebook 里的 CHECKPOINT_PATH 就是 Path），不先 Path(path)：
path.parent、path.with_name、path.exists()、path.read_text()。步骤和参考答案一样：写临时文件、flush、fsync、
os.replace、fsync 文件夹；出错时删掉临时文件再抛出去。评分器曾把相对路径当 str 传进来，在 notebook 里能跑的代码
在评分时抛 AttributeError（第 18 轮探查）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            json.dump(state, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_checkpoint(path=CHECKPOINT_PATH):
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"检查点 {path} 读不出来：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
