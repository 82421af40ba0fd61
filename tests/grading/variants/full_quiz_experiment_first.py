"""满分：小测单元格里先照第 4 节的做法亲手试一下（用 notebook 开头造好的 client 把删掉最后一条消息的 cpC 发给模型，
用演示单元格里的 describe 打印回复），看完再写答案。在学生的 notebook 里这个单元格照常运行，答案也对。"""
# %% quiz_delete
trimmed = load_sample("cpC")["messages"][:-1]
reply = client.messages.create(messages=trimmed, **request_params())
print(describe(assistant_message(reply)))  # 模型又要发一次信
QUIZ_DELETE_ANSWER = "B"
