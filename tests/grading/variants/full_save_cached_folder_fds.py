"""满分：每个文件夹的描述符只打开一次、存在模块级的 dict 里一直开着（以文件夹的路径为键），以后每次保存都对它 fsync：
打开的描述符和用过的文件夹一样多，不随保存的次数增长（一个任务只用一个文件夹，跑多少轮都只开着一个）。"""
# %% save_load
_FOLDER_FDS = {}  # 文件夹的绝对路径 -> 一直开着的描述符


def _fsync_folder(folder):
    if folder not in _FOLDER_FDS:
        _FOLDER_FDS[folder] = os.open(folder, os.O_RDONLY)
    os.fsync(_FOLDER_FDS[folder])


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
        _fsync_folder(os.path.abspath(path.parent))


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
