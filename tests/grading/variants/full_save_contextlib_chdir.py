"""满分：save_checkpoint 用 Python 3.11 的 contextlib.chdir 进到 path 所在的文件夹，在那里用相对名字完成
mkstemp(dir=".")、写、flush、fsync、os.replace(临时文件, path.name)，再 os.open(".") fsync 文件夹；with 结束时
当前文件夹自动恢复，出错时删掉临时文件再抛出。所有文件名都相对于文件夹，评分器要按当时的当前文件夹解读它们。"""
# %% save_load
import contextlib


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path).absolute()
    with contextlib.chdir(path.parent):
        fd, tmp_name = tempfile.mkstemp(dir=".", prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as tmp:
                json.dump(state, tmp, ensure_ascii=False, indent=2)
                tmp.flush()
                os.fsync(tmp.fileno())
            os.replace(tmp_name, path.name)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name)
            raise
        if os.name != "nt":
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

