"""残缺：文件在小测检查格之后被截断（JSON 不完整）；找回前面完整的单元格照常评分。"""
# %% mutate truncate_after test_quiz_delete
