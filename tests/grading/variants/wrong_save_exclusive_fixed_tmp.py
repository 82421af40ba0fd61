"""错：临时文件用固定的名字 <path>.tmp，并用 open(..., "x")（O_EXCL）新建，「免得覆盖别人正在写的临时文件」；出错时会删掉它。
可进程若在写临时文件和改名之间被杀掉（OOM Killer、SIGKILL、断电——本课讲的正是这种崩溃），<path>.tmp 就留在原处，
重启之后每一次 save_checkpoint 都抛 FileExistsError：存档点 A 一存就崩，任务再也续跑不下去。
课文用 mkstemp 取一个不会撞名的临时文件，崩溃留下的残骸不会挡住下一次保存。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    tmp_path = path.with_name(path.name + ".tmp")
    try:
        with open(tmp_path, "x", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except FileExistsError:
        raise
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
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
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
