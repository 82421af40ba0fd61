"""满分：学生加的单元格用 tempfile.mkdtemp 建一个草稿文件夹（定义单元格时建一次，以后不再碰）。"""
# %% extra after imports
SCRATCH = tempfile.mkdtemp(prefix="agent-scratch-")
