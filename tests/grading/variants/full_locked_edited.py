"""满分：学生改了锁定的 imports 单元格（MAX_TURNS = 3 等）；评分时锁定单元格一律用课程原版。"""
# %% mutate edit_locked imports
