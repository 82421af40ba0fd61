"""满分：保存和加载写在一个类 CheckpointStore 里（方法 write / read），save_checkpoint、load_checkpoint 是包着它的两个函数；
临时文件由 tempfile.mkstemp 给出，os.write 写完为止，fsync 之后 os.replace，再用 O_DIRECTORY 打开文件夹 fsync；
读的时候一个 except ValueError 同时接住 UnicodeDecodeError 和 JSONDecodeError（二者都是 ValueError 的子类）。"""
# %% save_load
class CheckpointStore:
    def __init__(self, path):
        self.path = Path(path)
        self.folder = self.path.parent

    def write(self, state):
        data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
        fd, tmp_name = tempfile.mkstemp(dir=self.folder, prefix="." + self.path.name + "-", suffix=".tmp")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(tmp_name)
            raise
        os.close(fd)
        try:
            os.replace(tmp_name, self.path)
        except BaseException:
            os.unlink(tmp_name)
            raise
        if os.name != "nt":
            self._sync_folder()

    def _sync_folder(self):
        fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self):
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            state = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise ValueError(f"检查点 {self.path} 读不出来（不是 UTF-8 的 JSON 文本）：{exc}") from exc
        if not isinstance(state, dict):
            raise ValueError(f"检查点 {self.path} 不是一个 JSON 对象")
        if state.get("version") != CHECKPOINT_VERSION:
            raise ValueError(f"检查点 {self.path} 的版本是 {state.get('version')!r}，"
                             f"这段代码只认版本 {CHECKPOINT_VERSION}")
        return state


def save_checkpoint(state, path=CHECKPOINT_PATH):
    CheckpointStore(path).write(state)


def load_checkpoint(path=CHECKPOINT_PATH):
    return CheckpointStore(path).read()
