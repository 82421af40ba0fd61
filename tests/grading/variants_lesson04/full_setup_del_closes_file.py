"""满分：学生加的单元格定义一个记事件的类，__del__ 里关掉它打开的文件（kernel 关闭、对象被回收时）；
还留下一个只取了第一项的生成器。__del__ 不造新对象，生成器也不会在以后的单元格里自己运行。"""
# %% extra after imports
class EventLog:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")

    def write(self, text):
        self.file.write(text + "\n")
        self.file.flush()

    def __del__(self):
        try:
            self.file.close()
        except Exception:
            pass


def numbered(lines):
    for number, line in enumerate(lines, 1):
        yield f"{number}: {line}"


events = EventLog("agent-events.log")
banner = numbered(["开始", "续跑"])
events.write(next(banner))
