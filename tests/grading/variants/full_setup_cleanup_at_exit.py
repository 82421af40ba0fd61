"""满分：学生加的单元格用 tempfile.mkdtemp 建一个草稿文件夹，用 weakref.finalize 在 kernel 关闭时删掉它；
atexit 登记的函数关掉自己打开的日志文件。都是收拾自己的东西，不碰检查点，也不是哪个答题函数写的。"""
# %% extra after imports
import atexit
import shutil
import weakref


class Scratch:
    """一个草稿文件夹；对象没了（或 kernel 关闭）就删掉。"""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="agent-scratch-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)


scratch = Scratch()
notes = open(os.path.join(scratch.path, "notes.txt"), "w", encoding="utf-8")
atexit.register(notes.close)
