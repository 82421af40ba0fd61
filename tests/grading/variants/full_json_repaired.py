"""满分：笔记本文件末尾多了一个逗号（手工改过 JSON），评分器用 json5 修好后照常评分。"""
# %% mutate trailing_comma
