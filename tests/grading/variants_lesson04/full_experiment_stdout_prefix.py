"""满分：学生加的实验单元格给输出加前缀：把 sys.stdout 这个对象的 write 换成先加「[agent] 」再交给原来的 write 的函数。
定义单元格时换一次，之后每个单元格的 print 都经过它（在学生的 kernel 里也是这样），评分器看它的效果：不算留下的钩子。"""
# %% extra after imports
import sys

_plain_write = sys.stdout.write


def _prefixed_write(text):
    if text.strip():
        text = "[agent] " + text
    return _plain_write(text)


sys.stdout.write = _prefixed_write
print("输出都带前缀了")
