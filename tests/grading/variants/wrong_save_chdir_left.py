"""错：save_checkpoint 为了 fsync 文件夹，os.chdir 到 path 所在的文件夹再 os.open(".")，却从不切回原来的当前文件夹。
第一次存到带文件夹的相对路径（如 runs/checkpoint.json）之后，进程的当前文件夹就变了：之后的相对路径（同一个
runs/checkpoint.json、默认的 checkpoint.json）都解析到别处，下一次保存要么抛 FileNotFoundError，要么存进了
另一个文件夹，重启后在原处找不到检查点、任务从头再来。课文：path 存取都用传进来的那个。"""
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
        os.chdir(path.parent)  # 进到文件夹里，"." 就是它
        folder = os.open(".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本，文件可能已损坏：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state

