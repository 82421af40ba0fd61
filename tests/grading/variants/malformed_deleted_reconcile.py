"""残缺：reconcile 单元格被删掉了（READ_ONLY_TOOLS 也跟着没了）；其余部分照常得分。"""
# %% mutate delete reconcile
