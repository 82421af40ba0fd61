"""满分（少见的写法）：学生为了「方便测试」写了一个工厂函数 make_saver(fsync=os.fsync, replace=os.replace)，
把用到的系统调用作为参数传进去，save_checkpoint = make_saver() 用的是真的 os.fsync 和 os.replace。步骤和参考答案一样。"""
# %% save_load
def make_saver(fsync=os.fsync, replace=os.replace):
    def save_checkpoint(state, path=CHECKPOINT_PATH):
        path = Path(path)
        fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as tmp:
                json.dump(state, tmp, ensure_ascii=False, indent=2)
                tmp.flush()
                fsync(tmp.fileno())
            replace(tmp_path, path)
        except BaseException:
            Path(tmp_path).unlink(missing_ok=True)
            raise
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            fsync(folder)
        finally:
            os.close(folder)
    return save_checkpoint


save_checkpoint = make_saver()


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(os.fsdecode(path))
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
