"""满分（少见的写法）：先打开 path 所在的文件夹拿到描述符，临时文件用 os.open(名字, ..., dir_fd=文件夹) 建在它里面，
写完 fsync，再 os.replace(临时名, 目标名, src_dir_fd=文件夹, dst_dir_fd=文件夹)，最后对同一个描述符 fsync 文件夹
（openat/renameat 的写法：整个过程钉在同一个文件夹上，中途有人改了路径上的哪一级也不会存错地方）。"""
# %% save_load
import secrets


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        tmp_name = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=folder)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp_name, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp_name, dir_fd=folder)
            except FileNotFoundError:
                pass
            raise
        os.fsync(folder)
    finally:
        os.close(folder)


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
