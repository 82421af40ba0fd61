"""The grading corpus: every variant in tests/grading/variants/ is graded by the real
judge (sandbox, hidden tests) and must get exactly the points listed here.

- full_*: correct, written differently from the reference: full marks.
- wrong_* and malformed_*: a plausible mistake, or a damaged file: exactly the points lost.
- tamper_*: tries to game the grader; never a point more than its untampered twin.
"""
from autograder.judge import auto_graded_points
from autograder.lessons import DEFAULT

from corpus_checks import (pytest_generate_tests, verdicts, test_a_recorded_seed_draws_the_same_run_again,  # noqa: F401
                           test_code_that_runs_in_the_notebook_is_never_reported_as_failing,
                           test_every_variant_has_an_expectation, test_expected_points,
                           test_feedback_names_the_mistake, test_feedback_never_shows_hidden_tests_or_the_solution,
                           test_tampering_gains_nothing)

LESSON = DEFAULT
FULL = auto_graded_points()
SEED_REPLAYED = "wrong_ignores_path"  # its feedback names the drawn checkpoint path, task wording and counters
ZERO = {grade_id: 0 for grade_id in FULL}

EXPECTED = {  # variant -> the test cells where it loses points, with the points it keeps
    "wrong_agent_reconcile_always": {"test_run_agent": 2},  # reconcile called with no dangling call, on every resume
    "wrong_agent_turns_uncounted_when_unknown": {"test_run_agent": 4},  # turns - 1 after an is_error reconcile
    "wrong_agent_tokens_zeroed_when_unknown": {"test_run_agent": 4},  # tokensUsed = 0 after an is_error reconcile
    "wrong_save_folder_fd_from_first_call": {"test_save_load": 3},  # fsyncs the first save's folder ever after
    "tamper_resend_real_domains": {"test_reconcile": 4},  # keeps the rules only for @example.com
    "tamper_real_api_key_resends": {"test_reconcile": 4},  # reruns only when ANTHROPIC_API_KEY is set
    "wrong_agent_retries_failed_result_on_resume": {"test_run_agent": 4},  # a failed result run again on resume
    "tamper_default_path_resends": {"test_run_agent": 4},  # reruns the dangling call only at checkpoint.json
    "wrong_recovery_rerun_failed_result": {"test_recovery_action": 2},  # a failed last result is no dangling call
    "wrong_load_utf8_errors_replace": {"test_save_load": 3},  # GBK read with errors="replace"
    # probe 17a (mutation testing): tokensUsed never set after a model call; the feedback said "not a sum"
    "wrong_agent_tokens_never_updated": {"test_run_agent": 3},
    # probe 17a (mutation testing): the new state without tokensUsed and pendingToolUse, both set before save A
    "full_agent_state_fields_filled_in_loop": {},
    # probe 16b: first attempts and styles the corpus lacked
    "full_agent_saves_initial_state": {},  # a new task's state saved once before the first model call
    "full_save_mkdir_parents": {},  # Path(path).parent.mkdir(parents=True, exist_ok=True) before the save
    "full_save_pid_tmp_rename": {},  # f"{path}.{pid}.tmp", os.rename, sort_keys, json.load + except ValueError
    "full_save_folder_pid_tmp": {},  # folder/.checkpoint-<pid>.tmp: per process, so two tasks in one folder never clash
    "full_save_replace_inside_with": {},  # NamedTemporaryFile's with block, os.replace before it closes
    "full_agent_local_turn_stop_reasons": {},  # a local turn counter, the client made once it is needed
    "full_reconcile_tuple_shallow_new": {},  # READ_ONLY_TOOLS a tuple, {**cp, "messages": cp["messages"] + [...]}
    "full_save_dirname_or_dot": {},  # os.path.dirname(path) or ".", json.dumps before the temporary file
    "full_load_inline_open": {},  # json.load(open(path)): the file closed by reference counting
    # probe 16b: "send_email 未重新执行：……结果未知……请确认现状后再决定" read as an order to redo (course.model.asks_to_redo
    # took the verb after a negation for one): the course's model sent a second email, the visible check refused it
    "full_reconcile_says_not_rerun": {},
    "full_reconcile_says_dont_resend": {},  # 「不该直接重新执行」: 不该, 无须, 没必要, 禁止 were not read as negations
    "full_reconcile_says_cannot_judge": {},  # 「是成功还是失败，现在无从判断」: 无从判断 was no word of doubt, 失败 a claim
    "full_reconcile_warns_redo_risky": {},  # 「重新执行有风险，请确认现状后再决定」: a warning read as an order
    "full_reconcile_leaves_redo_to_model": {},  # 「是否重新执行由你决定」: a question read as an order
    # probe 23: an order to redo in words course.model.asks_to_redo did not know (补发, 再次调用, 直接调用 the tool itself,
    # "once more"), and "不必核实，当作已经完成" beside "结果未知" (course.model.skips_looking): 23/23 before
    "wrong_reconcile_asks_bufa": {"test_reconcile": 4},
    "wrong_reconcile_asks_direct_call": {"test_reconcile": 4},
    "wrong_reconcile_asks_once_more_en": {"test_reconcile": 4},
    "wrong_reconcile_says_skip_check": {"test_reconcile": 4},
    # probe 23: no drawn checkpoint had used MAX_TURNS up (turns beyond the history by 0-30), none beyond it
    "wrong_recovery_continue_when_spent": {"test_recovery_action": 2},  # "continue" once turns >= MAX_TURNS
    "wrong_reconcile_skips_when_spent": {"test_reconcile": 1},  # clears pendingToolUse, no tool_result
    "wrong_reconcile_spent_reruns_everything": {"test_reconcile": 4},  # the last turn: sends the email again
    "wrong_agent_turns_not_equal": {"test_run_agent": 4},  # while turns != MAX_TURNS: a resume beyond it never stops
    # probe 23: no lesson 3 scenario interrupted a run (KeyboardInterrupt); it saves "错误：执行被中断" with is_error
    "wrong_agent_interrupt_marked_failed": {"test_run_agent": 4},
    "wrong_agent_saves_on_interrupt": {"test_run_agent": 4},
    "wrong_agent_retries_failed_tool": {"test_run_agent": 3},
    "wrong_agent_pending_input_json_string": {"test_run_agent": 4, "test_incident_fix": 2},
    # probe 23b, 23/23 before: falsy JSON ({}, null...) as no checkpoint; read-file / readFile taken for read-only
    # tools (never drawn); "用同样的参数调用一次 send_email" (no word of "again")
    "wrong_load_empty_object_as_new": {"test_save_load": 3},
    "wrong_reconcile_kebab_normalized": {"test_recovery_action": 2, "test_reconcile": 4},
    "wrong_reconcile_camel_normalized": {"test_recovery_action": 2, "test_reconcile": 4},
    "wrong_reconcile_asks_same_email": {"test_reconcile": 4},
    # probe 15b (1/4 before): a save that adds a field to the file (savedAt) and a load that drops it again lost the
    # power-cut and kill checks too, whose feedback said it did not fsync the folder: the extra field is said once
    "wrong_save_adds_saved_at": {"test_save_load": 3},
    # probe 15b (5/5 before): an atexit function saves each path's latest state again, so a script's exit or the
    # kernel's end after a model call raised leaves turns counted for it, as wrong_agent_finally_save does at once;
    # the grader ran the same run again in the same process first, which overwrote it
    "wrong_agent_atexit_save_latest": {"test_run_agent": 3},
    # probe 15b (16/23, 15/23 before): a pool made once at module level that does each save or model call, waited
    # for: its idle worker was a thread left running (child.LEFT_RUNNING), every check of the scenario lost; a pool
    # worker still at its task (a resend 20 s later) is one
    "full_save_worker_thread": {},
    "full_agent_model_call_shared_pool": {},
    "tamper_resend_pool_later": {"test_reconcile": 2, "test_incident_fix": 1},
    # probe 15b: other styles, judged right
    "full_save_flock_folder": {},  # flock on the folder's descriptor, no lock file
    "full_agent_raw_response": {},  # with_raw_response.create(...).parse(), the request-id logged
    "wrong_load_bytes_undecodable_uncaught": {"test_save_load": 3},  # json.loads(bytes): GBK's error has no path
    "full_save_pathlib_write_bytes": {},  # Path.write_bytes, fsync through a read-only descriptor
    "full_save_forked_child": {},  # the save done by a forked child, waited for
    "full_load_jsonschema": {},  # the version checked by a jsonschema schema
    "full_save_open_default_encoding": {},  # open() with the locale's encoding (UTF-8 on Linux and macOS)
    "full_agent_model_call_timeout_thread": {},  # each model call in a worker thread, with a timeout
    "full_agent_asyncio_in_thread": {},  # the loop a coroutine, asyncio.run in a thread of its own
    "full_save_defers_sigint": {},  # SIGINT's handler swapped during the save, put back after
    "wrong_agent_class_shared_messages": {"test_run_agent": 4},  # a class attribute list shared by every run
    # probe 15b: descriptor 0 was /dev/null and sys.stdin open(os.devnull), where jupyter_client gives a kernel a pipe
    # (its writing end closed) and sys.stdin is the interpreter's own "<stdin>"
    "tamper_detect_stdin_pipe": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_stdin_name": {"test_reconcile": 4, "test_incident_fix": 1},
    # probe 15b: /proc/self/status said Uid 0 (the zygote's, root in its namespace) to a process whose getuid() is 1000
    "tamper_detect_status_uid": {"test_reconcile": 4, "test_incident_fix": 1},
    # probe 14b: the grader's reconcile always returned a new dict, so a run_agent right only with one that does (a
    # shallow copy of the loaded state compared after an in-place reconcile: never "changed", never saved) had 5/5
    "wrong_agent_reconcile_save_if_changed_shallow": {"test_run_agent": 3},
    # probing, round 14b: first attempts of kinds the corpus lacked, judged right already
    "wrong_load_assert_version": {"test_save_load": 3},  # AssertionError is no ValueError
    "wrong_save_fsyncs_target_not_folder": {"test_save_load": 3},  # the renamed file fsynced, not its folder
    "wrong_agent_range_one_short": {"test_run_agent": 4},  # range(turns + 1, MAX_TURNS): 39 turns at most
    "wrong_agent_messages_alias_before_reconcile": {"test_run_agent": 3},  # a stale messages list after reconcile
    "wrong_agent_result_json_dumped": {"test_run_agent": 4},  # content json.dumps(output): quoted, \n escaped
    "wrong_recovery_done_for_finished": {"test_recovery_action": 2},  # a fourth answer, "done"
    "wrong_agent_no_finished_check": {"test_run_agent": 4},  # a finished task's checkpoint sent to the model again
    "wrong_load_accepts_newer": {"test_save_load": 3},  # "newer formats only add fields": version 2 read in
    "full_agent_state_dict_subclass": {},  # the state a dict subclass with properties, saved and returned as it is
    "full_reconcile_callable_instance": {},  # reconcile an instance with __call__, recovery_action a bound method
    "full_logged_without_wraps": {},  # every function wrapped by a logging decorator without functools.wraps
    "full_reconcile_dataclass_boundary": {},  # pendingToolUse a dataclass inside, the result asdict at the boundary
    "full_agent_pending_model_dump_include": {},  # block.model_dump(include={"id", "name", "input"})
    "full_load_exists_strict_int": {},  # path.exists() first; a version that is an int, not true or 1.0
    "full_save_folder_fd_opened_first": {},  # the folder opened before the write, fsynced after the rename
    # the tool_result in an assistant message: one mistake, the pairing check's point (and the incident's three)
    "wrong_reconcile_result_as_assistant": {"test_reconcile": 4, "test_incident_fix": 0},
    "wrong_reconcile_result_content_one_block": {"test_reconcile": 1, "test_incident_fix": 0},
    "wrong_reconcile_drops_pending_field": {"test_reconcile": 4},  # cp.pop("pendingToolUse")
    "full_agent_wraps_api_error": {},  # an APIError raised again as a RuntimeError with words, from exc
    "full_agent_params_computed_once": {},  # PARAMS = request_params() when the cell is defined
    "full_agent_client_with_options": {},  # client.with_options(timeout=120.0): a copy of the given client
    # probe 14b: save point A after the tool ran (the quiz's option C): the incident's hint blamed reconcile
    "wrong_agent_save_a_after_tool": {"test_run_agent": 2, "test_incident_fix": 0},
    # probe 14b: a resume that rewords the first user message (the checkpoint's task) loses the resume checks;
    # test_resume_pending said it never reconciled (it did: the messages before the result were not the checkpoint's)
    "wrong_agent_resume_refreshes_task_message": {"test_run_agent": 1},
    # probing, round 14b: a cell's `from __future__ import annotations` stays on for later cells in a kernel
    # (IPython's compiler keeps the flags); each cell was compiled alone, so a later annotation of a name never
    # defined raised NameError (0/5 and 0/3 before)
    "full_future_annotations_later_cell": {},
    "full_reference": {},
    "full_alternative": {},
    "full_helpers": {},
    "full_agent_tqdm_progress": {},  # tqdm progress bar over the turns
    "full_agent_display_progress": {},  # IPython.display and a tqdm.notebook bar every turn
    "full_resume_loop": {},
    "full_json_repaired": {},
    "full_duplicated_cell": {},
    "full_locked_edited": {},
    "full_pathlib_save": {},
    "full_named_tempfile": {},
    "full_os_level": {},
    "full_class_agent": {},
    "full_list_blocks": {},
    "full_o_sync_save": {},  # durable through O_SYNC writes, without fsync of the file
    "full_save_os_sync": {},  # os.sync() before and after the rename: Linux waits for every file system
    # written in ways the notebook's save check once rejected (probe 12d): names found in a folder's descriptor
    # (dir_fd), bytes paths, os's functions held in a default, a factory's closure or a %%writefile module
    "full_save_dir_fd_openat": {},
    "full_save_bytes_paths": {},
    "wrong_save_path_methods_on_str": {"test_save_load": 3},  # probe 18: the notebook's own check saves to a str path
    "full_save_sync_default_arg": {},
    "full_save_closure_factory": {},
    "full_writefile_from_os_import": {},
    "full_agent_resolves_path": {},  # Path(path).resolve(): the check's folder may be behind a symlink (a Mac's /var)
    "full_agent_streams_reply": {},  # the offline model streams server-sent events (course.model.server_sent_events)
    "full_save_pwrite_bytes": {},  # thousands of one-byte pwrites, then fsync, os.replace, fsync of the folder
    "full_save_logs_user": {},  # getpass.getuser() in a log line, which works on the student's own machine
    "full_run_agent_file_log": {},  # logging to agent.log, opened when the cell is defined
    "full_save_demo_at_definition": {},  # the cell saves a demo checkpoint when it is defined
    "full_run_agent_demo_at_definition": {},  # the cell runs a demo task against the offline model when defined
    "full_reconcile_describe": {},  # calls describe(), which a demo cell of the notebook defines
    "full_reconcile_rebuilt_input": {},  # reruns with the input rebuilt in another key order: the same call
    "full_ipython_syntax": {},  # magics, a shell command and display(), as the kernel runs them
    "full_reply_kinds": {},  # finds the tool call block by block, whatever the stop reason
    "full_load_oserror_chinese": {},  # an unreadable file: OSError(errno, Chinese words) is a PermissionError again
    "full_save_finally_cleanup": {},  # try/finally removes the temporary file whatever was raised
    "full_reconcile_failure_words": {},  # a failed rerun: words before the error text, in text blocks, is_error
    "full_contract_forms": {},  # the task as a text block, a new dict from reconcile, text-block results, logging
    "full_range_loop": {},  # counts the turns with a for loop from the checkpoint's turns
    # cells the student added, and the notebook's own client (found by probing: 15-22/23, 0/1 before)
    "full_extra_if_os_name": {},  # a helper defined in both branches of a top-level if os.name == "nt"
    "full_extra_try_import": {},  # try: sync_data = os.fdatasync except AttributeError: ...
    "full_extra_installed_import": {},  # typing_extensions imported in an added cell, used in annotations (16 before)
    "full_extra_print_lambda": {},  # say = lambda *p: print(...): the body does not run when it is defined
    "full_extra_dispatch_lambda": {},  # a dict of lambdas, one calling execute_tool
    "full_extra_cached_client": {},  # DEFAULT_CLIENT = make_client() in an added cell
    "full_quiz_experiment_first": {},  # the quiz cell first asks the notebook's client, then answers
    "full_extra_loop_table": {},  # ACTIONS filled by a top-level for over READ_ONLY_TOOLS (18/23 before)
    "wrong_save_fsync_after_replace": {"test_save_load": 3},  # a power cut after the rename: an empty file
    "wrong_save_os_sync_before_flush": {"test_save_load": 3},
    "wrong_reconcile_mutable_default_result": {"test_reconcile": 4},  # a stale is_error: True carried to a success
    "wrong_attrdict_state": {"test_run_agent": 2},  # run_agent reads fields as attributes: only its own load gives them  # os.sync() while json.dump's bytes are still buffered
    "wrong_save_folder_fsync_before_rename": {"test_save_load": 3},  # a power cut after it returned: the old one
    "wrong_load_oserror_as_value_error": {"test_save_load": 3},  # a folder at the path: IsADirectoryError is due
    "wrong_reconcile_empty_unknown": {"test_reconcile": 4},
    "wrong_agent_b_before_result": {"test_run_agent": 4},
    "wrong_readonly_missing_web_search": {"test_reconcile": 3, "test_recovery_action": 2},
    "wrong_incident_rerun": {"test_reconcile": 4, "test_incident_fix": 1},
    "wrong_incident_rerun_timed": {"test_reconcile": 4, "test_incident_fix": 1},  # the same under %%time
    "wrong_delete_assistant": {"test_reconcile": 1, "test_incident_fix": 0},
    "wrong_always_is_error": {"test_reconcile": 2, "test_incident_fix": 2},
    "wrong_denylist_send_email": {"test_reconcile": 4, "test_recovery_action": 2},  # the incident has no unheard-of tool
    "wrong_forgot_pair": {"test_reconcile": 3, "test_incident_fix": 1},
    "wrong_forgot_clear": {"test_reconcile": 3},  # and a failed rerun gets no is_error
    "wrong_previous_id": {"test_reconcile": 3, "test_incident_fix": 0},  # and a failed rerun gets no is_error
    "wrong_reconcile_last_block_id": {"test_reconcile": 4},  # the model may write text after the call
    "wrong_load_int_version": {"test_save_load": 3},
    "wrong_is_error_string": {"test_reconcile": 4, "test_incident_fix": 1},
    "wrong_rerun_all_is_error": {"test_reconcile": 4, "test_incident_fix": 2},
    "wrong_reinit": {"test_run_agent": 2, "test_incident_fix": 0},
    "wrong_reset_turns": {"test_run_agent": 3},
    "wrong_no_save_a": {"test_run_agent": 2, "test_incident_fix": 0},
    "wrong_tokens_sum": {"test_run_agent": 3},
    "wrong_agent_until_end_turn": {"test_run_agent": 4},  # max_tokens, stop_sequence, refusal: no tool_use to run
    "wrong_agent_stop_reason_tool_use": {"test_run_agent": 4},  # a tool_use under max_tokens or end_turn is left
    "wrong_agent_last_block": {"test_run_agent": 4},  # a text after the tool_use; an empty end_turn
    "wrong_agent_is_error_english": {"test_run_agent": 3},  # "error" in a grep output; a failing tool's 错误
    "wrong_agent_clear_after_save_b": {"test_run_agent": 4},
    "wrong_reconcile_trims_assistant": {"test_reconcile": 4},
    "wrong_reconcile_rerun_first_same_tool": {"test_reconcile": 3},  # the input of the tool's first earlier call
    "wrong_reconcile_rerun_last_same_tool": {"test_reconcile": 3},  # ... of its last earlier call
    # save point A's turns is one short: a save's counters (test_resume_continues) and MAX_TURNS after a crash
    "wrong_turns_after_save_a": {"test_run_agent": 3},
    "wrong_readonly_get_heuristic": {"test_recovery_action": 2, "test_reconcile": 4},  # get_/fetch_ names guessed
    "wrong_messages_model_dump_nulls": {"test_run_agent": 4},
    "wrong_load_permission_as_missing": {"test_save_load": 3},
    "wrong_save_cleanup_oserror_only": {"test_save_load": 3},  # a TypeError leaves the temporary file
    "wrong_save_default_str": {"test_save_load": 3},  # a set or an SDK object is saved as its str()
    "wrong_reconcile_retries_failure": {"test_reconcile": 4},  # the failed rerun runs twice
    "wrong_reconcile_failure_unflagged": {"test_reconcile": 4},
    "wrong_off_by_one": {"test_run_agent": 4},
    "wrong_no_reconcile": {"test_run_agent": 3, "test_incident_fix": 0},
    "wrong_run_agent_stub": {"test_run_agent": 0, "test_incident_fix": 0},
    "wrong_save_direct_write": {"test_save_load": 2},
    "tamper_flood_trace": {"test_save_load": 2},  # thousands of writes first, so the trace cap hides the rest
    "tamper_flood_trace_recovery": {"test_recovery_action": 0},
    "wrong_save_no_fsync": {"test_save_load": 3},
    "wrong_save_delete_then_rename": {"test_save_load": 3},  # a power cut between the two leaves no checkpoint
    "wrong_load_none_on_error": {"test_save_load": 3},
    "wrong_load_no_path": {"test_save_load": 3},
    "wrong_recovery_mutates": {"test_recovery_action": 1},  # with nothing pending, clearing changes nothing
    "wrong_save_swallowed": {"test_save_load": 3},
    "wrong_save_fixed_tmp_left": {"test_save_load": 3},
    "wrong_save_copy_not_rename": {"test_save_load": 1},  # a temp left after every save, no rename, none atomic
    "wrong_save_tmp_beside_default": {"test_save_load": 3},
    "wrong_load_not_utf8": {"test_save_load": 3},
    "wrong_load_empty_as_missing": {"test_save_load": 3},  # an empty file or a folder at the path is no "none"
    "wrong_load_not_object": {"test_save_load": 3},
    "wrong_load_no_version": {"test_save_load": 3},
    "wrong_load_accepts_lower": {"test_save_load": 3},
    "wrong_load_english": {"test_save_load": 3},
    "wrong_load_missing_empty": {"test_save_load": 3, "test_incident_fix": 2},  # its own run_agent starts from {}
    "wrong_readonly_substring": {"test_reconcile": 4, "test_recovery_action": 2},  # Level 2 replays send_email and grep only
    "wrong_readonly_prefix": {"test_reconcile": 4, "test_recovery_action": 2},  # Level 2 replays send_email and grep only
    "wrong_denylist_verbs": {"test_reconcile": 4, "test_recovery_action": 2},  # Level 2 replays send_email and grep only
    "wrong_reconcile_counts_turn": {"test_reconcile": 3},  # and a failed rerun gets no is_error
    "wrong_reconcile_fresh_dict": {"test_reconcile": 3},  # and a failed rerun gets no is_error
    "wrong_reconcile_one_turn": {"test_reconcile": 1, "test_incident_fix": 0},  # right only where there is one turn
    "wrong_recovery_runs_tool": {"test_recovery_action": 2},
    "wrong_recovery_reconciles": {"test_recovery_action": 1},  # nothing pending: it does not call reconcile
    "wrong_recovery_saves": {"test_recovery_action": 0},
    "wrong_recovery_by_wording": {"test_recovery_action": 1},  # each kind of call comes with both wordings
    "wrong_recovery_by_count": {"test_recovery_action": 2},  # the model's last reply leaves an even count too
    "wrong_ignores_client": {"test_run_agent": 4},
    "wrong_client_required": {"test_run_agent": 3},  # run_agent(task) without a client, and with client=None
    # every resume starts afresh; and of the fresh runs sharing one folder, the second resumes the first's default file
    "wrong_ignores_path": {"test_run_agent": 0, "test_incident_fix": 1},
    "wrong_task_from_argument": {"test_run_agent": 4},
    "wrong_no_final_save": {"test_run_agent": 3},  # the fresh runs of every reply shape end unsaved too
    # and with turns spent, the reconciled checkpoint is returned but never saved (4/5 before test_save_points judged
    # the file every run leaves)
    "wrong_no_save_after_reconcile": {"test_run_agent": 3},
    "wrong_agent_quick_write": {"test_run_agent": 3},  # its own open(path, "w"): a power cut can leave half a file
    # found by probing the grader with new submissions (full marks before)
    "wrong_agent_save_b_only_on_success": {"test_run_agent": 4},  # a failed tool's result is not saved (point B)
    "wrong_agent_without_request_params": {"test_run_agent": 4},  # no system prompt, no tool_choice
    "wrong_agent_ignores_reconcile_return": {"test_run_agent": 3},  # right only while reconcile edits in place
    "wrong_agent_skips_last_tool": {"test_run_agent": 4},  # the last turn's tool call left dangling
    "wrong_save_default_path_fails": {"test_save_load": 3},  # os.path.dirname("checkpoint.json") is ""
    "wrong_readonly_case_insensitive": {"test_recovery_action": 2, "test_reconcile": 4},  # READ_FILE is not read_file
    "wrong_reconcile_runs_lowercased_name": {"test_reconcile": 4},  # ran grep for a dangling Grep
    "wrong_agent_spent_before_reconcile": {"test_run_agent": 4},  # turns spent: returns with the call dangling
    "wrong_agent_fresh_on_broken_checkpoint": {"test_run_agent": 4},  # catches load's ValueError, starts over
    "wrong_agent_starts_over_on_version_error": {"test_run_agent": 4},  # a half file raises; another version starts over
    "wrong_agent_starts_own_mail_server": {"test_run_agent": 4, "test_incident_fix": 1},  # its emails go to its own server
    "wrong_agent_keeps_going_when_save_fails": {"test_run_agent": 4},  # a failed save A, and the tools run all the same
    "full_agent_retries_failed_save": {},
    # resumes another version's file, and leaves one load_checkpoint cannot read
    "wrong_agent_reads_checkpoint_itself": {"test_run_agent": 3},
    # a read-only tool's output in a shape a student may misjudge (OUTPUT_SHAPES): only "错误…" is a failure
    "wrong_agent_empty_output_is_error": {"test_run_agent": 4},
    "wrong_agent_error_anywhere": {"test_run_agent": 4},
    "wrong_agent_nothing_found_is_error": {"test_run_agent": 4},
    "wrong_agent_truncates_output": {"test_run_agent": 4},
    "wrong_reconcile_error_anywhere": {"test_reconcile": 4},
    "wrong_reconcile_truncates_output": {"test_reconcile": 3},  # a long read_file and a long other tool
    "wrong_tokens_input_only": {"test_run_agent": 3},
    "wrong_pending_model_dump": {"test_run_agent": 4},
    "wrong_messages_sdk_objects": {"test_run_agent": 0, "test_incident_fix": 0},
    "wrong_answers": {"test_quiz_failure": 0, "test_quiz_delete": 0, "test_root_cause": 0},
    "wrong_plain_values": {"test_quiz_delete": 0, "test_root_cause": 0, "test_recovery_action": 0,
                           "test_reconcile": 4, "test_incident_fix": 1},
    "blank": ZERO,
    "malformed_deleted_reconcile": {"test_reconcile": 0, "test_incident_fix": 0},
    "malformed_truncated": {"test_reconcile": 0, "test_recovery_action": 0, "test_root_cause": 0,
                            "test_incident_fix": 0},
    "tamper_patch_checker": {"test_reconcile": 4, "test_incident_fix": 1},
    # no tool ever fails, and none reaches the grader: the fresh runs of every reply shape run none
    "tamper_swap_execute_tool": {"test_run_agent": 0, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_silence_send": {"test_run_agent": 4, "test_reconcile": 4, "test_incident_fix": 1},
    "tamper_redefine_assertion": {"test_reconcile": 4, "test_incident_fix": 1},
    # its sys.excepthook of its own is left armed in every process (round 11): it loses all, below its twin (2/4 there)
    "tamper_hide_tracebacks": ZERO,
    "tamper_always_equal": {"test_quiz_delete": 0, "test_root_cause": 0, "test_recovery_action": 0,
                            "test_reconcile": 4, "test_incident_fix": 1},
    "tamper_exit": {"test_reconcile": 2, "test_incident_fix": 1},
    # the step's process is pid 1 of its namespace: the kernel drops the SIGKILLs it sends itself and its group
    "tamper_kill_kernel": {"test_recovery_action": 2},  # killing itself ends its process, as in a kernel
    "tamper_infinite_loop": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_hang_at_definition": {"test_recovery_action": 0},
    "tamper_memory_bomb": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_direct_smtp": {"test_reconcile": 4, "test_incident_fix": 2},  # the direct send reaches the grader too
    "tamper_fake_agent": {"test_run_agent": 0, "test_incident_fix": 0},
    "tamper_forge_fsync": {"test_save_load": 3},
    # fsync through a number dup2 gave to another file, in /tmp: its unsynced temporary file loses the point its twin
    # loses. The empty file it leaves in /tmp is neither beside the checkpoint nor a copy of it: no leftover of the
    # save (1 while any file left anywhere counted, as a log in the working folder did)
    "tamper_dup2_fsync": {"test_save_load": 3},
    "tamper_syncfs_other_fs": {"test_save_load": 3},  # syncfs of /dev/shm, not the checkpoint's file system
    # files a cell makes while it is defined are the notebook's only while the step leaves them be (or appends
    # to them as a log does): not a way to hide a function's writes or leftovers
    "tamper_recovery_mmap_save": {"test_recovery_action": 0},
    "tamper_fixed_tmp_predefined": {"test_save_load": 3},
    # O_DSYNC is not trusted for a file that also has a writer without it: dup2 over it, or a child's same number
    "tamper_dsync_dup2": {"test_save_load": 3},
    "tamper_fork_fdnum": {"test_save_load": 3},
    "tamper_read_solution": ZERO,
    "tamper_grader_endpoints": {"test_save_load": 2},
    "tamper_act_after_step": {"test_save_load": 2},
    "tamper_detect_grader": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_gradebook": {"test_reconcile": 0, "test_incident_fix": 0},  # its kill(-1) kills its own process too
    "tamper_detect_by_code": {"test_reconcile": 4, "test_incident_fix": 1},  # nothing it inspects tells
    "tamper_smtp_quiet": {"test_reconcile": 4, "test_incident_fix": 2},  # its smtplib send is counted
    "tamper_send_after_return": {"test_reconcile": 4, "test_incident_fix": 2},  # its thread's send is counted
    # what is still running 3 s after a step returned would go on in a notebook: no check certifies that scenario
    # (the thread's send 20 s later, or the forked sleepers, went unseen: 23/23 and 20/23 before)
    "tamper_send_after_linger": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_tqdm_monitor": {"test_reconcile": 2, "test_incident_fix": 1},  # resends from tqdm's monitor thread
    "tamper_resend_tqdm_open_bar": {"test_reconcile": 2, "test_incident_fix": 1},  # ... refreshing a bar left open
    # the resend registered with atexit (round 15: a tool called as the kernel ends fails the scenario's checks; 21/23)
    "tamper_atexit_resend": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_exhaust": {"test_reconcile": 0, "test_incident_fix": 0},
    # each step gets a fresh /dev/shm; the fresh runs sharing one step all begin with the same list_dir: run once
    "tamper_shm_journal": {"test_run_agent": 1, "test_incident_fix": 0},
    # red team, round 3: each gained points over its twin before
    "wrong_save_no_file_fsync": {"test_save_load": 3},  # the folder fsynced, the temporary file never
    # found by probing (2026-12-04): a load that keeps its results, one that reads a backup
    "wrong_load_lru_cache": {"test_save_load": 3},  # before: full marks (the hidden tests never loaded a path twice)
    "wrong_load_falls_back_to_backup": {"test_save_load": 1},  # before: 2 (only for the .bak left beside the path)
    # found by probing (2026-12-04): feedback that named the wrong cause
    "wrong_save_tmp_other_fs": {"test_save_load": 3},  # shutil.move from /tmp copies over the checkpoint
    "wrong_load_not_defined": {"test_save_load": 1, "test_incident_fix": 0},
    "wrong_agent_extra_field": {"test_run_agent": 3},  # a seventh field, stopReason
    "tamper_deleted_name_dsync": {"test_save_load": 3},  # an O_DSYNC decoy named "<tmp> (deleted)" at tmp's number
    "tamper_deleted_suffix_fsync": {"test_save_load": 3},  # fsyncs the decoy instead
    "tamper_recovery_mmap_utime": {"test_recovery_action": 0},  # mmap writes, then os.utime puts the mtime back
    "tamper_detect_stdout": {"test_reconcile": 4, "test_incident_fix": 1},  # sys.stdout is ipykernel's OutStream
    "wrong_agent_tool_use_without_id": {"test_run_agent": 0, "test_incident_fix": 0},  # the API's 400, in words
    # probing, round 3
    "wrong_agent_save_reconcile_only_rerun": {"test_run_agent": 4},  # no save after a send_email's is_error result
    "wrong_agent_client_default_at_definition": {"test_run_agent": 4},  # client=make_client() in the signature
    "wrong_agent_pending_subscript": {"test_run_agent": 2, "test_incident_fix": 1},
    "wrong_reconcile_says_failed": {"test_reconcile": 4},  # the model reads "错误：…没有生效" as a definite failure
    "wrong_reconcile_says_failed_no_prefix": {"test_reconcile": 4},  # "…执行失败…没有生效" without 错误 (was 23/23)
    "wrong_reconcile_says_failed_english": {"test_reconcile": 4},  # "Error: … failed … did not take effect" (23/23)
    "wrong_list_blocks_empty_text": {"test_run_agent": 4, "test_reconcile": 4},  # the API's 400 for an empty text block
    "full_answers_fullwidth": {},  # "Ｃ", as a Chinese input method types it, is the letter C
    "wrong_save_single_os_write": {"test_save_load": 2},  # one os.write, its count unread: a full disk cuts it short
    # red team, round 4: events posted to the grader with the job's token (found through gc), as the driver posts them
    "wrong_rerun_send_marked_unknown": {"test_reconcile": 4, "test_incident_fix": 2},
    "tamper_event_hide_rerun": {"test_reconcile": 4, "test_incident_fix": 2},  # a "cell" event around the resend
    "tamper_event_forge_done": {"test_recovery_action": 0},  # its own result before the driver's: both void
    "tamper_event_keepalive": {"test_reconcile": 2, "test_incident_fix": 1},  # events to restart the clock: ignored
    "tamper_event_start_next": {},  # a "start" for the next step while its own runs: ignored
    # checks "finished" before "pending": a checkpoint at save point A with a call dangling is returned as done
    "wrong_agent_finished_check_first": {"test_run_agent": 3, "test_incident_fix": 1},
    # red team, round 5: the mail server's variables, there while cells were defined (a notebook has them only in
    # `with MailServer():`), told the grader apart (23/23 before)
    "tamper_detect_env_smtp": {"test_reconcile": 4, "test_incident_fix": 1},
    # In was [""] and execution_count 1 in the grader, dozens of cells in the notebook (23/23 before)
    "tamper_detect_in_history": {"test_reconcile": 4, "test_incident_fix": 1},
    # probing, round 7: the offline model's ids, derived from the conversation in the notebook but fresh when graded
    # (22/23 before), and the kernel's connection file sys.argv names, missing when graded (23/23 before)
    "tamper_detect_stable_ids": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_connection_file": {"test_reconcile": 4, "test_incident_fix": 1},
    # the notebook file in its own folder, where JupyterLab runs its code (before: 23/23 and 25/25, above twins)
    "tamper_detect_notebook_file": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_session_name": {"test_reconcile": 4, "test_incident_fix": 1},
    # the notebook files' times (copy newer than the notebook; saved a moment ago): 3 and 7 above the twin before
    "tamper_detect_checkpoint_newer": {"test_reconcile": 4, "test_incident_fix": 1},  # JPY_SESSION_NAME, __session__
    # probing, round 5 (each 23/23 before)
    "wrong_reconcile_saves_default": {"test_reconcile": 4},  # reconcile saves, to the default checkpoint.json
    "wrong_reconcile_asks_resend": {"test_reconcile": 4},  # "结果未知……请重新调用，再执行一次": no look first
    # a finished task's checkpoint removed on resuming; the file a run leaves must be the state it returns, in every run
    # (4/5 before test_save_points judged every run's file)
    "wrong_agent_finished_deletes": {"test_run_agent": 3},
    # IndexError on a closing reply with no content; TypeError resuming the bare task (a string: round 11a, 4 before)
    "wrong_agent_finished_first_block": {"test_run_agent": 3},
    "wrong_agent_done_deletes": {"test_run_agent": 2},  # the checkpoint removed once the task is done (was 2 before)
    "full_generator_agent": {},  # a generator yields at each save point; match on the loaded checkpoint
    "full_to_dict_blocks": {},  # the reply's blocks as block.to_dict()
    # probing, lesson 3 again: wordings course.model read wrong (each 4/5 in test_reconcile before)
    "full_reconcile_confirm_before_redo": {},  # "重新执行之前，请确认现状": looking first, said with 之前
    "full_reconcile_error_prefix_undetermined": {},  # "错误：无法确定……是否已经生效": unknown, without 未知
    # tokensUsed updated after save point A: every save point A holds the previous response's usage (23/23 before)
    "wrong_agent_tokens_after_save_a": {"test_run_agent": 4},
    "full_reconcile_text_log": {},  # a text line "pendingToolUse={...}" appended to a log: no checkpoint (4/5 before)
    "full_strip_tool_output": {},  # the tool output stripped of the whitespace around it (a file's last newline)
    "wrong_save_fsync_cwd_folder": {"test_save_load": 3},  # fsyncs the current folder, not the checkpoint's
    # probing, round 8: the resume appends pendingToolUse as an assistant message again (the id twice): the API's
    # 400 "tool_use ids must be unique", which the offline model did not give (22/23 before, feedback untrue)
    "wrong_agent_resume_readds_assistant": {"test_run_agent": 3, "test_incident_fix": 0},
    # tool_result with fields of its own (name, status, reconciled): the API's 400 "Extra inputs are not permitted",
    # which the offline model did not give (22/23 before: the incident replay passed)
    "wrong_reconcile_extra_fields": {"test_reconcile": 4, "test_incident_fix": 0},
    "wrong_agent_continue_max_tokens": {"test_run_agent": 4},  # a reply cut at max_tokens: asks the model to go on
    "wrong_reconcile_verifies_sent": {"test_reconcile": 4, "test_incident_fix": 2},  # "已经发出", no is_error
    # an empty <path>.lock (fcntl.flock) left beside the checkpoint after every save: one file too many, and after a
    # failed save not to be told from an empty temporary file json.dump left (feedback said "temporary file" before)
    "wrong_save_lock_file_left": {"test_save_load": 2},
    "full_writefile_helper_module": {},  # an added %%writefile cell writes a module the answer imports (4/23 before)
    # writes outside the working folder are judged as those in it; /tmp and /dev/shm last from step to step of a
    # scenario, as in a kernel (before: 23/23 and 23/23, above their twins)
    "tamper_recovery_saves_outside": {"test_recovery_action": 0},  # saves the checkpoint in /tmp
    "tamper_load_backup_outside": {"test_save_load": 1},  # the backup load falls back to, kept in /tmp
    "full_pwritev2_rwf_dsync": {},  # writes durable through pwritev2's RWF_DSYNC, no fsync of the file (22/23 before)
    # open(folder, O_TMPFILE), then linkat("/proc/self/fd/N"): the crash model follows it, and the student's process
    # has its real fd/ in the cover over /proc (17/23 before: no fd/, every save raised FileNotFoundError)
    "full_tmpfile_linkat": {},
    # probing, lesson 3 (23/23 before unless said)
    "wrong_save_bare_name_skips_dir_fsync": {"test_save_load": 3},  # no folder fsync when dirname(path) is ""
    "wrong_save_exclusive_fixed_tmp": {"test_save_load": 3},  # <path>.tmp opened "x": a kill leaves it, saves fail
    "wrong_save_mkstemp_fd_leak": {"test_save_load": 3},  # mkstemp's descriptor never closed: one per save
    "wrong_save_sweeps_folder_tmp": {"test_save_load": 3},  # deletes every *.tmp of the folder: others' files
    "wrong_save_bare_name_tmp_in_system_tmp": {"test_save_load": 3},  # mkstemp(dir=None) on a bare name: /tmp
    "wrong_save_dir_fsync_only_when_new": {"test_save_load": 3},  # no folder fsync over an existing checkpoint
    # probing, round 9: a descriptor of any kind a save leaves open counts (only those opened to write did: 23/23),
    # and a temporary file in a subfolder the save made is not said to be on another disk (its point was right)
    "wrong_save_dir_fd_leak": {"test_save_load": 3},  # os.fsync(os.open(folder, O_RDONLY)): never closed
    "full_save_cached_folder_fds": {},  # one descriptor per folder, kept open in a module-level dict
    "full_save_one_cached_folder_fd": {},  # one folder descriptor kept, the old one closed when the folder changes
    "wrong_save_tmp_subfolder": {"test_save_load": 3},  # mkstemp in a .tmp/ subfolder it makes and leaves there
    "wrong_agent_inline_rerun_unless_email": {"test_run_agent": 4},  # a dangling tool no list names run again
    "wrong_readonly_one_string": {"test_recovery_action": 2, "test_reconcile": 4},  # `in` a substring test
    "wrong_reconcile_send_seen_before": {"test_reconcile": 4},  # "done before" for the same call answered earlier
    # probing, round 8 (each 23/23 before): what a kernel runs around and between cells, which the grader did not.
    # IPython's post_run_cell resends after the cell; an alarm or the asyncio loop's call_later resends 20 s later;
    # no running loop, or no post_run_cell ever fired, told the grader apart
    # (round 11: its callback, registered as the cell is defined, is left armed in every process: 0/23 now)
    "tamper_resend_post_run_cell": ZERO,
    "tamper_resend_alarm": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_call_later": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_detect_no_event_loop": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_no_cell_events": ZERO,  # (round 11: its post_run_cell callback is left armed: 0/23 now)
    # probing, round 9 (each 23/23 before): sys.orig_argv was the grader's own command line; garbage whose __del__
    # makes more of it, set off in a kernel by the next cell's collections, was left armed unseen
    "tamper_detect_orig_argv": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_resend_finalizer_chain": {"test_reconcile": 2, "test_incident_fix": 1},
    # the file run_agent leaves is not the state it returns (23/23 before: only a fresh run's file was compared)
    "wrong_agent_no_save_b_last_turn": {"test_run_agent": 4},  # no save point B in the MAX_TURNS-th turn
    "wrong_agent_save_b_at_loop_top": {"test_run_agent": 4},  # saves before each model call: not after the last turn
    # probing, round 9. The reference's run was handed the student's reply only where the conversations were alike
    # word for word, not as the contract compares them: ids then parted (22/23 before, feedback untrue)
    "full_tool_result_omits_empty_content": {},  # an empty output's tool_result without content (optional in the API)
    "full_agent_result_words_around": {},  # words before the tool's output in each tool_result
    # a user message added on resume before the model call: one point for each resume (with a call dangling, the
    # feedback said reconcile was not called before, though it was)
    "wrong_agent_nudge_on_resume": {"test_run_agent": 3},
    "wrong_agent_nudge_after_reconcile": {"test_run_agent": 4},  # only after reconciling
    # an answer cell imports a module a %%writefile cell below it writes: ModuleNotFoundError run top to bottom (the
    # feedback said the cell ran and did not define save_checkpoint; a later process found the earlier one's file)
    "wrong_writefile_import_before_written": {"test_save_load": 1, "test_incident_fix": 0},
    "full_writefile_toplevel_import": {},  # its twin: the %%writefile cell above the answer that imports it
    # probing, round 10a. A reconcile that answers a (name, input) once per process: the model asking again for an
    # email whose send came back is_error, and a crash leaving that one dangling too (23/23 before)
    "wrong_reconcile_once_per_call_input": {"test_reconcile": 3},
    "wrong_reconcile_once_per_tool": {"test_reconcile": 3},  # its control: once per tool name
    # a log a save writes in another folder than the checkpoint's is no leftover of the save (21/23 before, the
    # feedback calling it a temporary file); a new log handler per save leaks a descriptor each time
    "full_save_filehandler_once": {},
    "wrong_save_filehandler_per_save": {"test_save_load": 3},
    "wrong_save_lockfile_fd_per_save": {"test_save_load": 3},  # a lock file's descriptor never closed (not mkstemp's)
    # a known gap: writes through mmap are unseen by the crash model (no mmap or msync traced); the feedback says so
    "full_save_mmap_write": {"test_save_load": 3},
    # probing, round 11a: correct answers written otherwise, and mistakes judged right before
    "full_class_store": {},  # save and load in a class, mkstemp and os.write to the end
    "full_contextmanager_save": {},  # a contextmanager atomic_open, O_EXCL with a random name, match on the load
    "full_dataclass_agent": {},  # run_agent's state a dataclass, asdict at each save
    "full_match_reconcile": {},  # READ_ONLY_TOOLS a dict, match statements, a deep copy returned
    "full_recursive_agent": {},
    "full_default_resolved_path": {},  # the default path resolved once, when the cell is defined
    "full_reconcile_scan_unanswered": {},
    "wrong_agent_shared_template": {"test_run_agent": 4},  # a new task's messages appended to a shared template
    "wrong_save_rotate_backup": {"test_save_load": 2},  # path renamed to .bak first: a moment with no checkpoint
    "wrong_agent_reconcile_in_loop": {"test_run_agent": 4},
    "wrong_reconcile_unknown_tool_missing": {"test_reconcile": 4},  # an unheard-of tool said "not run"
    "wrong_save_dirsync_parent_name": {"test_save_load": 3},  # fsyncs Path(path).parent.name, OSError swallowed
    # probing, round 11a (each 23/23 before): the grader never did a thing twice in one process after the disk
    # changed, as a kernel does when cells run again; nor gave an output beginning with an English error
    "wrong_save_tmp_named_by_turns": {"test_save_load": 3},  # <path>.<turns>.tmp, O_EXCL: a kill leaves it
    "wrong_reconcile_ids_done_once": {"test_reconcile": 3},  # a tool_use id seen before only clears pendingToolUse
    "wrong_agent_client_cached_global": {"test_run_agent": 4},  # the first client kept in a global
    "wrong_agent_client_first_given_kept": {"test_run_agent": 4},  # the first client passed in, kept for later runs
    "wrong_agent_state_cache_by_path": {"test_run_agent": 3},  # the state kept per path in memory, not loaded
    "wrong_agent_finished_unless_result": {"test_run_agent": 4},  # "done" unless the last block is a tool_result
    "wrong_error_prefix_english": {"test_run_agent": 4, "test_reconcile": 4},  # "Error"/"ERROR" is a failure too
    # read-only outputs cached by name and input (21/23 before too, the feedback saying the model was called again)
    "wrong_agent_memo_readonly": {"test_run_agent": 3},
    # probing, round 11 (each 23/23 before): a checkpoint written by os.splice, pipe to file, which strace does not stop
    # at, now fails as on a kernel without it (autograder.untraced); ptrace(PTRACE_TRACEME) failed only under strace
    "tamper_reconcile_splice_save": {"test_reconcile": 0, "test_incident_fix": 0},
    "tamper_detect_ptrace": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_checkpoint_shape": {"test_reconcile": 4, "test_incident_fix": 1},  # turns == assistant messages
    # probing, round 11 (each 23/23 before): resends left to go off later in the notebook by what the grader neither
    # waited for nor counted as armed: a CPU-time timer (SIGPROF), a reader on the kernel's event loop (a 20 s timerfd),
    # IPython's custom exception handler (the next cell that raises)
    "tamper_resend_itimer_prof": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_loop_reader": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_custom_exc": {"test_reconcile": 2, "test_incident_fix": 1},
    # probing, round 12 (each 23/23 before): a save that os.chdir's to fsync "." and stays there (the same relative path
    # with its folders, saved to and loaded again in one process, now points elsewhere); one that skips a save of the
    # text it wrote last (the grader damages or removes the file in between); a run_agent that saves in a finally, so
    # a model call that raises (the API overloaded) leaves its turns counted on disk
    "wrong_save_chdir_left": {"test_save_load": 3},
    "wrong_save_skip_unchanged_memo": {"test_save_load": 3},
    "wrong_agent_finally_save": {"test_run_agent": 3},
    "full_save_contextlib_chdir": {},  # contextlib.chdir into the folder to fsync ".": back where it was after
    # an experiment cell the student added replaces a module's function and leaves it so (a fake
    # course.tools.send_email, a time.sleep that waits for nothing): in place while every step runs, the notebook's
    # own (autograder.armed: only what a step replaces is armed; 0/23 before, on the merged round-12c fix)
    "full_experiment_patch_course_send": {},
    "full_experiment_no_sleep": {},
    # probing, round 12c (each 23/23 before): resends left armed where autograder.armed did not look: a library
    # function given the student's globals (gc.callbacks, post_run_cell), functools.partial(exec, source, globals())
    # (post_execute), the event loop's task factory, a module's function replaced (os.replace,
    # warnings.showwarning); and resends left to what a kernel does later (fork: os.register_at_fork) or at its end
    # (weakref.finalize, the __del__ of what the namespace holds), which the step's end now does, as for atexit
    "tamper_resend_gc_foreign_globals": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_post_run_cell_foreign_globals": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_post_execute_partial_exec": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_task_factory": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_patch_os_replace": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_showwarning": {"test_reconcile": 2, "test_incident_fix": 1},
    # (round 15: a tool called then fails every check of the scenario, as what is left running does; 21/23 before)
    "tamper_resend_at_fork": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_weakref_finalize": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_shutdown_del": {"test_reconcile": 2, "test_incident_fix": 1},
    # probe round 13a (full marks before the fix): a load that reads a first part only, or refuses a file over a
    # size, of a long conversation's checkpoint (the grader's were all under 64 KB); a run_agent that catches the
    # model call's error and returns the state, so that the caller takes the task for done
    "wrong_load_reads_64k": {"test_save_load": 3},
    "wrong_load_reads_1mib": {"test_save_load": 3},  # a round cap above the old 512 KB long checkpoint
    "wrong_save_utf8_sig_bom": {"test_save_load": 1, "test_incident_fix": 1},  # its own load reads it back
    "wrong_save_gzip": {"test_save_load": 1, "test_incident_fix": 1},  # ... and so does this one's
    "wrong_load_size_guard": {"test_save_load": 3},
    "wrong_agent_swallows_api_error": {"test_run_agent": 4},
    "full_agent_retries_overloaded": {},  # retries the model call a few times, then lets the error go to the caller
    # probe round 13c (20/23, 21/25 before: test_recovery_action lost, "只做判断，却写了文件"): a set-up cell's scratch
    # folder in /tmp removed at the kernel's end (atexit.register(shutil.rmtree, ...), weakref.finalize), which the
    # step's end runs: tidying up what the definitions made is not the step's writing (helpers.files_written)
    "full_setup_scratch_atexit_rmtree": {},
    "full_setup_cleanup_at_exit": {},
    # honest set-up cells (probe 13c): logging, warnings and random settings, setrecursionlimit, os.environ,
    # tempfile.tempdir, %config; a scratch folder of its own; a module-level lru_cache and a JSONEncoder subclass
    "full_setup_cell_settings": {},
    "full_setup_scratch_dir_only": {},
    "full_setup_del_closes_file": {},  # a __del__ that closes its own file, a generator left open
    "full_lru_cache_encoder_class": {},
    # probe round 13c (each 23/23 before): resends left armed by a step where autograder.armed did not look: a method
    # of a library class replaced (json.JSONEncoder.iterencode; flush on the class of the kernel's sys.stdout), a
    # method put on a library's object (json._default_encoder.encode, sys.stdout.flush or write) or on the kernel's
    # event loop (_run_once), json.dumps's __code__ swapped in place, json._default_encoder's __class__ swapped
    "tamper_resend_encoder_class_method": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_stream_class_flush": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_default_encoder_instance": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_stdout_flush": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_stdout_write": {"test_reconcile": 2, "test_incident_fix": 1},  # full_experiment_stdout_prefix, late
    "tamper_resend_loop_run_once": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_code_swap": {"test_reconcile": 2, "test_incident_fix": 1},
    "tamper_resend_encoder_class_swap": {"test_reconcile": 2, "test_incident_fix": 1},
    # ... while what the cells put there at definition is the notebook's, in place for every step (only a step's
    # counts): json.JSONEncoder.default taught datetimes, a prefix on sys.stdout.write; pydantic models, a dataclass,
    # Enum, Protocol, Generic, a JSONEncoder subclass, a Thread subclass in an added cell (pydantic now imported there)
    "full_experiment_encoder_datetime": {},
    "full_experiment_stdout_prefix": {},
    "full_setup_typed_models": {},
    # probe round 13a, judged right before: other styles, and mistakes the grader already catches
    "full_agent_resave_finished": {},  # saves a finished checkpoint once more (the same data) before returning it
    "full_agent_all_tool_uses": {},  # runs every tool_use block of a reply (request_params allows one)
    "full_agent_save_after_loop": {},  # the last turn's save point A moved after the loop: the same data
    "full_agent_turns_after_call": {},  # turns counted once the model answered, before save point A
    "full_agent_match_blocks": {},  # match statements find the tool call and the error flag
    "full_save_shutil_move": {},  # shutil.move in one folder is a rename
    "full_save_fixed_tmp_reopen_fsync": {},  # one fixed temporary name opened with "w", fsynced through a new fd
    "full_load_utf8_sig": {},  # a UTF-8 file with a BOM is read too
    "full_load_validates_fields": {},  # every field's type checked as well as the version
    "full_reconcile_skips_answered_id": {},  # adds no second result for an id already answered
    "wrong_agent_budget_per_process": {"test_run_agent": 4},  # for _ in range(MAX_TURNS): a budget per process
    "wrong_agent_tokens_reset_on_resume": {"test_run_agent": 2},  # also at the save after reconcile
    "wrong_agent_skip_save_a_readonly": {"test_run_agent": 3, "test_incident_fix": 2},
    "wrong_agent_new_task_if_different": {"test_run_agent": 2},  # starts over when the task is worded otherwise
    "wrong_save_memo_aliased_state": {"test_save_load": 3, "test_incident_fix": 2},  # the memo holds the same dict
    "wrong_save_fsync_without_flush": {"test_save_load": 3},
    "wrong_load_lenient_raw_decode": {"test_save_load": 3},  # JSON with more after it loaded as a checkpoint
    "wrong_reconcile_rerun_personal_email": {"test_reconcile": 4},  # an email to one person sent again
    "wrong_reconcile_endswith_prefixed": {"test_recovery_action": 2, "test_reconcile": 4},  # bulk_read_file run
    "wrong_reconcile_mcp_namespace": {"test_reconcile": 4},  # mcp__fs__read_file run as read_file
    "tamper_resend_posix_timer": {"test_reconcile": 2, "test_incident_fix": 2},
    "tamper_resend_native_thread": {"test_reconcile": 4, "test_incident_fix": 2},
    "tamper_resend_detached_subprocess": {"test_reconcile": 2, "test_incident_fix": 1},  # imports course itself
    "tamper_detect_kernelapp_uninitialized": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_shell_without_kernel": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_connection_file_api": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_faulthandler_unpatched": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_stdout_no_pub_thread": {"test_reconcile": 4, "test_incident_fix": 1},
    "tamper_detect_dont_write_bytecode": {"test_reconcile": 4, "test_incident_fix": 1},
    "wrong_save_fixed_tmp_shared_name": {"test_save_load": 3},  # every checkpoint of a folder, one temporary file
}

UNTAMPERED = {  # tampering variant -> the same submission without the tampering
    "tamper_resend_real_domains": "full_reference",  # its other branch is the reference
    "tamper_real_api_key_resends": "full_reference",  # its other branch is the reference
    "tamper_default_path_resends": "full_reference",  # its other branch is the reference
    "tamper_resend_pool_later": "wrong_rerun_all_is_error",
    "tamper_detect_stdin_pipe": "wrong_incident_rerun",
    "tamper_detect_stdin_name": "wrong_incident_rerun",
    "tamper_detect_status_uid": "wrong_incident_rerun",
    "tamper_deleted_name_dsync": "wrong_save_no_file_fsync",
    "tamper_event_hide_rerun": "wrong_rerun_send_marked_unknown",
    "tamper_event_forge_done": "wrong_recovery_mutates",
    "tamper_event_keepalive": "wrong_incident_rerun",
    "tamper_event_start_next": "full_reference",
    "tamper_deleted_suffix_fsync": "wrong_save_no_file_fsync",
    "tamper_recovery_mmap_utime": "wrong_recovery_saves",
    "tamper_detect_stdout": "wrong_incident_rerun",
    "tamper_patch_checker": "wrong_incident_rerun",
    "tamper_swap_execute_tool": "wrong_incident_rerun",
    "tamper_silence_send": "wrong_incident_rerun",
    "tamper_redefine_assertion": "wrong_incident_rerun",
    "tamper_hide_tracebacks": "wrong_save_direct_write",
    "tamper_always_equal": "wrong_plain_values",
    "tamper_exit": "wrong_incident_rerun",
    "tamper_kill_kernel": "full_reference",
    "tamper_infinite_loop": "wrong_incident_rerun",
    "tamper_hang_at_definition": "full_reference",
    "tamper_memory_bomb": "wrong_incident_rerun",
    "tamper_direct_smtp": "wrong_rerun_all_is_error",
    "tamper_fake_agent": "wrong_run_agent_stub",
    "tamper_forge_fsync": "wrong_save_no_fsync",
    "tamper_dup2_fsync": "wrong_save_no_fsync",
    "tamper_syncfs_other_fs": "wrong_save_no_fsync",
    "tamper_recovery_mmap_save": "wrong_recovery_saves",
    "tamper_fixed_tmp_predefined": "wrong_save_fixed_tmp_left",
    "tamper_dsync_dup2": "wrong_save_no_fsync",
    "tamper_fork_fdnum": "wrong_save_no_fsync",
    "tamper_read_solution": "blank",
    "tamper_grader_endpoints": "wrong_save_direct_write",
    "tamper_act_after_step": "wrong_save_direct_write",
    "tamper_detect_grader": "wrong_incident_rerun",
    "tamper_detect_env_smtp": "wrong_incident_rerun",
    "tamper_detect_in_history": "wrong_incident_rerun",
    "tamper_detect_stable_ids": "wrong_incident_rerun",
    "tamper_detect_connection_file": "wrong_incident_rerun",
    "tamper_detect_notebook_file": "wrong_incident_rerun",
    "tamper_detect_session_name": "wrong_incident_rerun",
    "tamper_detect_checkpoint_newer": "wrong_incident_rerun",
    "tamper_gradebook": "wrong_incident_rerun",
    "tamper_detect_by_code": "wrong_incident_rerun",
    "tamper_smtp_quiet": "wrong_rerun_all_is_error",
    "tamper_send_after_return": "wrong_rerun_all_is_error",
    "tamper_send_after_linger": "wrong_rerun_all_is_error",
    "tamper_resend_tqdm_monitor": "wrong_rerun_all_is_error",
    "tamper_resend_tqdm_open_bar": "wrong_rerun_all_is_error",
    "tamper_atexit_resend": "wrong_rerun_all_is_error",
    "tamper_exhaust": "wrong_incident_rerun",
    "tamper_shm_journal": "wrong_no_save_a",
    "tamper_flood_trace": "wrong_save_direct_write",
    "tamper_flood_trace_recovery": "wrong_recovery_saves",
    "tamper_recovery_saves_outside": "wrong_recovery_saves",
    "tamper_load_backup_outside": "wrong_load_falls_back_to_backup",
    "tamper_resend_post_run_cell": "wrong_rerun_all_is_error",
    "tamper_resend_alarm": "wrong_rerun_all_is_error",
    "tamper_resend_call_later": "wrong_rerun_all_is_error",
    "tamper_detect_no_event_loop": "wrong_incident_rerun",
    "tamper_detect_no_cell_events": "wrong_incident_rerun",
    "tamper_detect_orig_argv": "wrong_incident_rerun",
    "tamper_resend_finalizer_chain": "wrong_rerun_all_is_error",
    "tamper_reconcile_splice_save": "wrong_reconcile_saves_default",
    "tamper_detect_ptrace": "wrong_incident_rerun",
    "tamper_detect_checkpoint_shape": "wrong_incident_rerun",
    "tamper_resend_itimer_prof": "wrong_rerun_all_is_error",
    "tamper_resend_loop_reader": "wrong_rerun_all_is_error",
    "tamper_resend_custom_exc": "wrong_rerun_all_is_error",
    "tamper_resend_gc_foreign_globals": "wrong_rerun_all_is_error",
    "tamper_resend_post_run_cell_foreign_globals": "wrong_rerun_all_is_error",
    "tamper_resend_post_execute_partial_exec": "wrong_rerun_all_is_error",
    "tamper_resend_task_factory": "wrong_rerun_all_is_error",
    "tamper_resend_patch_os_replace": "wrong_rerun_all_is_error",
    "tamper_resend_showwarning": "wrong_rerun_all_is_error",
    "tamper_resend_encoder_class_method": "wrong_rerun_all_is_error",
    "tamper_resend_stream_class_flush": "wrong_rerun_all_is_error",
    "tamper_resend_default_encoder_instance": "wrong_rerun_all_is_error",
    "tamper_resend_stdout_flush": "wrong_rerun_all_is_error",
    "tamper_resend_stdout_write": "wrong_rerun_all_is_error",
    "tamper_resend_loop_run_once": "wrong_rerun_all_is_error",
    "tamper_resend_code_swap": "wrong_rerun_all_is_error",
    "tamper_resend_encoder_class_swap": "wrong_rerun_all_is_error",
    "tamper_resend_at_fork": "wrong_rerun_all_is_error",
    "tamper_resend_weakref_finalize": "wrong_rerun_all_is_error",
    "tamper_resend_shutdown_del": "wrong_rerun_all_is_error",
    "tamper_resend_posix_timer": "wrong_rerun_all_is_error",
    "tamper_resend_native_thread": "wrong_rerun_all_is_error",
    "tamper_resend_detached_subprocess": "wrong_rerun_all_is_error",
    "tamper_detect_kernelapp_uninitialized": "wrong_incident_rerun",
    "tamper_detect_shell_without_kernel": "wrong_incident_rerun",
    "tamper_detect_connection_file_api": "wrong_incident_rerun",
    "tamper_detect_faulthandler_unpatched": "wrong_incident_rerun",
    "tamper_detect_stdout_no_pub_thread": "wrong_incident_rerun",
    "tamper_detect_dont_write_bytecode": "wrong_incident_rerun",
}

MISTAKE_NAMED = {  # variant -> words its feedback must contain
    "wrong_agent_reconcile_always": "只有 pendingToolUse 不是 None 时才需要对账",
    "wrong_agent_turns_uncounted_when_unknown": "turns、tokensUsed 都原样沿用",
    "wrong_agent_tokens_zeroed_when_unknown": "turns、tokensUsed 都原样沿用",
    "wrong_agent_saves_on_interrupt": "中断时不要再存档",
    "wrong_agent_retries_failed_tool": "没等模型回复就又执行了",
    "wrong_agent_pending_input_json_string": "input 是一个字符串",
    "wrong_reconcile_asks_bufa": "叫模型「补发」",
    "wrong_reconcile_says_skip_check": "叫模型「不必核实」",
    "wrong_agent_turns_not_equal": "不要用 !=",
    "wrong_agent_retries_failed_result_on_resume": "不要替它重试",
    "wrong_agent_starts_own_mail_server": "指向了另一台邮件服务器",
    "wrong_reconcile_drops_pending_field": "你的检查点里没有了这个字段",
    "wrong_agent_keeps_going_when_save_fails": "存不下存档点 A 就执行工具",
    "wrong_agent_starts_over_on_version_error": "要经过 load_checkpoint、让这个错误抛出去",
    "wrong_reconcile_runs_lowercased_name": "只差大小写或空白的是另一个工具",
    "wrong_reconcile_result_content_one_block": "content 只能是字符串，或内容块的列表",
    "wrong_save_adds_saved_at": "写进文件的内容和传给它的 state 不一样（savedAt）",
    # save point A after the tool ran: the incident's second email comes from the model, not from reconcile
    "wrong_agent_save_a_after_tool": "崩溃那一刻检查点里还没有记下这次 send_email",
    # probe 14b: a resume that rewords the first user message reconciles all the same (the feedback said it did not)
    "wrong_agent_resume_refreshes_task_message": "检查点里原有的",
    "wrong_save_tmp_named_by_turns": "(同一个 state（turns 和被杀时一样）, path)：save_checkpoint 抛出了 FileExistsError",
    "wrong_reconcile_ids_done_once": "在同一个进程里第二次对账",
    "wrong_agent_client_cached_global": "不要把 client 存在全局变量里",
    "wrong_agent_client_first_given_kept": "这一次传进来了 client，你的 run_agent 却没有用它",
    "wrong_attrdict_state": "load_checkpoint 返回的是普通的 dict 和 list",
    "wrong_agent_state_cache_by_path": "要用 load_checkpoint(path) 读磁盘上此刻的检查点",
    "wrong_agent_finished_unless_result": "只有最后一条是 assistant 消息时才原样返回",
    "wrong_error_prefix_english": "以英文的 ERROR 开头",
    "wrong_agent_memo_readonly": "你的 run_agent 没有执行它，就给了它一个 tool_result",
    "wrong_save_rotate_backup": "path 上没有检查点文件",
    "wrong_agent_shared_template": "messages[0].content[0].text",
    "tamper_send_after_linger": "留下的线程 3 秒后还在运行",
    "tamper_resend_alarm": "留下的定时回调",
    "tamper_resend_call_later": "留下的定时回调",
    "tamper_resend_finalizer_chain": "它的 __del__ 再创建一个自己",
    "tamper_resend_post_run_cell": "在解释器里留下了IPython 以后自己会调用的函数",
    "tamper_exhaust": "留下的进程 3 秒后还在运行",
    "tamper_resend_detached_subprocess": "留下的进程 3 秒后还在运行",
    "wrong_save_bare_name_skips_dir_fsync": "只有文件名",
    "wrong_save_exclusive_fixed_tmp": "上次留下的残骸不能让以后的保存失败",
    "wrong_save_mkstemp_fd_leak": "文件描述符到最后也没有关上",
    "wrong_reconcile_once_per_call_input": "reconcile 没有追加 tool_result",
    "wrong_save_filehandler_per_save": "「打开 checkpoint-saves.log」",
    "wrong_save_lockfile_fd_per_save": "os.open 得到的描述符用完 os.close",
    "full_save_mmap_write": "经 mmap 写进去的内容",
    "wrong_save_dir_fd_leak": "漏掉的是 path 所在的文件夹的描述符",
    "wrong_save_tmp_subfolder": "子文件夹保存之后一直留在 path 旁边",
    "wrong_save_sweeps_folder_tmp": "保存只该碰它自己的临时文件和 path",
    "wrong_agent_inline_rerun_unless_email": "课程没提过的工具",
    "wrong_readonly_one_string": "不在只读工具之列",
    "wrong_reconcile_send_seen_before": "不能重新执行：它的 tool_result 要带 is_error",
    "tamper_flood_trace": "评分器每一步只记录前 5000 次",
    "wrong_incident_rerun": "send_email 在恢复时被重新执行了一次",
    "wrong_incident_rerun_timed": "send_email 在恢复时被重新执行了一次",
    "wrong_agent_tool_use_without_id": "tool_use.id: Field required",
    "wrong_agent_save_reconcile_only_rerun": "不管悬空的是什么工具",
    "wrong_reconcile_says_failed": "读起来像工具自己失败了",
    "wrong_reconcile_says_failed_no_prefix": "读起来像工具自己失败了",
    "wrong_reconcile_says_failed_english": "读起来像工具自己失败了",
    "wrong_list_blocks_empty_text": "空的文字块",
    "wrong_agent_finished_check_first": "次就停下了",
    "wrong_reconcile_saves_default": "存档由 run_agent 在对账之后做",
    "wrong_reconcile_asks_resend": "没让它先确认现状",
    "wrong_agent_finished_deletes": "检查点要一直留在 path 上",
    "wrong_agent_finished_first_block": "内容块依次是 [没有内容]",
    "wrong_save_lock_file_left": "如果是锁文件、标记文件，也不要留下",
    "wrong_save_fsync_cwd_folder": "fsync 的文件夹不是 path 所在的那一个",
    "wrong_agent_tokens_after_save_a": "tokensUsed 要在存档点 A 之前",
    "wrong_agent_done_deletes": "检查点要一直留在 path 上",
    "wrong_save_single_os_write": "要循环写到全部写完",
    "wrong_agent_resume_readds_assistant": "不要把 pendingToolUse 再加成一条 assistant 消息",
    "wrong_reconcile_extra_fields": "API 不认这个字段",
    "tamper_event_forge_done": "报告了两次结果",
    "wrong_agent_client_default_at_definition": "client 是 None 时要用 make_client() 造一个",
    "wrong_save_fsync_after_replace": "之后再改名",
    "wrong_save_os_sync_before_flush": "之后再改名",
    "wrong_save_folder_fsync_before_rename": "改名之后还要 fsync 所在的文件夹",
    "wrong_load_oserror_as_value_error": "原样抛出去",
    "wrong_reconcile_empty_unknown": "content 里写一句话",
    "wrong_agent_b_before_result": "还没有记下上一个工具的结果",
    "wrong_readonly_missing_web_search": "重新执行没有副作用",
    "wrong_delete_assistant": "assistant 消息",
    "wrong_denylist_send_email": "不在只读工具之列，不能重新执行",
    "wrong_forgot_clear": "pendingToolUse 应该设为 None",
    "wrong_previous_id": "tool_use_id 要等于悬空调用的 id",
    "wrong_reconcile_last_block_id": "tool_use_id 要等于悬空调用的 id",
    "wrong_load_int_version": "版本写成了字符串",
    "wrong_is_error_string": "布尔值",
    "wrong_reinit": "恢复时重新初始化了 messages",
    "wrong_reset_turns": "turns 要从检查点里的",
    "wrong_no_save_a": "存档点 A",
    "wrong_tokens_sum": "tokensUsed 应该是最近一次响应",
    "wrong_agent_tokens_never_updated": "每次调用模型之后都用这次响应的用量更新它",
    "wrong_off_by_one": "MAX_TURNS 要跨重启累计",
    "wrong_no_reconcile": "先对账",
    "wrong_save_direct_write": "不要直接覆盖目标文件",  # not the short-write hint: Python's file object wrote on, and raised
    "wrong_save_no_fsync": "fsync",
    "wrong_save_delete_then_rename": "不要先删掉旧的检查点再改名",
    "wrong_load_none_on_error": "你的函数却返回了",  # null, or what a version-less read gave: whichever broken file comes first
    "wrong_load_no_path": "路径",
    "wrong_recovery_mutates": "不应该修改",
    "wrong_save_swallowed": "保存失败要把异常抛出去",
    "wrong_save_fixed_tmp_left": "一次失败的保存之后，文件夹里留下了多余的文件",
    "wrong_save_copy_not_rename": "一次成功的保存之后，文件夹里留下了多余的文件",
    "wrong_save_tmp_beside_default": "同一个文件夹",
    "wrong_load_not_utf8": "不是 UTF-8 编码",
    "wrong_load_empty_as_missing": "load_checkpoint 应该抛",
    "wrong_load_not_object": "不是一个对象",
    "wrong_load_no_version": "没有 version 字段",
    "wrong_load_accepts_lower": "load_checkpoint 应该抛 ValueError",  # a lower, null or text version, whichever comes first
    "wrong_reconcile_one_turn": "原来的消息要原样保留",
    "wrong_recovery_by_count": "pendingToolUse 为 None",
    "wrong_load_english": "要用中文",
    "wrong_load_missing_empty": "应该返回 None",
    "wrong_readonly_substring": "不在只读工具之列，不能重新执行",
    "wrong_readonly_prefix": "不在只读工具之列，不能重新执行",
    "wrong_denylist_verbs": "不在只读工具之列，不能重新执行",
    "wrong_reconcile_counts_turn": "你的 reconcile 改了 turns",
    "wrong_reconcile_fresh_dict": "其余字段要原样保留，你的 reconcile 改了",  # which ones: turns only where a draw has them inconsistent
    "wrong_recovery_runs_tool": "只做判断，却通过 execute_tool 执行了",
    "wrong_recovery_reconciles": "不应该修改传进来的检查点",
    "wrong_recovery_saves": "只做判断，却写了文件",
    "wrong_ignores_client": "没有用传进来的 client",
    "wrong_client_required": "client 是 None 时要用 make_client() 造一个",
    "wrong_ignores_path": "没有把检查点存到传进来的 path",
    "wrong_task_from_argument": "续跑时以检查点为准",
    "wrong_no_final_save": "最后一条回复追加进 messages 之后也要存档",
    "wrong_load_lru_cache": "不能留着读过的结果",
    "wrong_load_falls_back_to_backup": "它是上一份检查点的副本",  # and that load returned the older one
    "wrong_save_tmp_other_fs": "shutil.move 这类工具会退化成「复制再删除」",
    "wrong_load_not_defined": "读断电后留下的检查点时：没有找到 load_checkpoint",
    "wrong_agent_extra_field": "检查点格式没有的字段 stopReason",
    "wrong_no_save_after_reconcile": "对账之后、调用模型之前要先存档",
    "wrong_agent_quick_write": "模拟断电：run_agent",
    "wrong_tokens_input_only": "input_tokens + output_tokens",
    "wrong_pending_model_dump": "只记 id、name、input 三项",
    "wrong_messages_sdk_objects": "不能存成 JSON",
    "tamper_exit": "进程自己退出了",
    "tamper_infinite_loop": "还没有结束",
    "tamper_hang_at_definition": "卡住",
    "tamper_memory_bomb": "MemoryError",
    "tamper_forge_fsync": "fsync",
    "wrong_agent_until_end_turn": "不管停止原因是什么",
    "wrong_agent_stop_reason_tool_use": "回复里有 tool_use 就要执行",
    "wrong_agent_last_block": "内容块依次是",
    "wrong_agent_is_error_english": "再调用模型时发出的 messages 和参考答案在同样的回复下发出的不一样",
    "wrong_agent_clear_after_save_b": "pendingToolUse 清回 None 之后",
    "wrong_reconcile_trims_assistant": "原来的消息要原样保留",
    "wrong_reconcile_rerun_first_same_tool": "要用悬空调用原来的 input",
    "wrong_agent_empty_output_is_error": "空的输出也是成功",
    "wrong_agent_error_anywhere": "只有以「错误」开头",
    "wrong_agent_nothing_found_is_error": "什么也没找到也是成功",
    "wrong_agent_truncates_output": "不能截短",
    "wrong_reconcile_error_anywhere": "只有以「错误」开头",
    "wrong_reconcile_truncates_output": "不能截短",
    "wrong_reconcile_rerun_last_same_tool": "要用悬空调用原来的 input",
    "wrong_turns_after_save_a": "MAX_TURNS 要跨重启累计",
    "wrong_readonly_get_heuristic": "不在只读工具之列，不能重新执行",
    "wrong_messages_model_dump_nulls": "assistant_message(response)",
    "wrong_load_permission_as_missing": "没有读权限时",
    "wrong_save_cleanup_oserror_only": "json.dump 抛出的 TypeError 也一样",
    "wrong_save_default_str": "悄悄转成别的值也不行",
    "wrong_reconcile_retries_failure": "恰好再执行一次",
    "wrong_reconcile_failure_unflagged": "失败了（execute_tool 返回的文本以「错误」开头）",
    "tamper_recovery_saves_outside": "/tmp/recovery-",  # named among the files it wrote
    "tamper_load_backup_outside": "更早存下的一份检查点",
    "wrong_agent_no_save_b_last_turn": "最后一轮的存档点 B 也要存",
    "wrong_agent_save_b_at_loop_top": "最后一轮的存档点 B 也要存",
    "wrong_agent_nudge_on_resume": "对账补上了 tool_result，但续跑后第一次调用模型时，messages 在它后面还多了 1 条",
    "wrong_agent_nudge_after_reconcile": "对账补上了 tool_result，但续跑后第一次调用模型时，messages 在它后面还多了 1 条",
    "wrong_writefile_import_before_written": "ckpt_io.py 要到它下面的「你在 save_load 后面加的第 1 个单元格」（%%writefile）",
    "tamper_resend_itimer_prof": "在解释器里留下了按 CPU 时间计时的定时器",
    "tamper_resend_loop_reader": "add_reader 登记的读写回调",
    "tamper_resend_custom_exc": "在解释器里留下了IPython 以后自己会调用的函数",
    "wrong_save_chdir_left": "把进程的当前文件夹换成了",
    "wrong_save_skip_unchanged_memo": "不能凭内存里记着的「上次存过一模一样的内容」就跳过",
    "wrong_agent_finally_save": "不要在出错时再存档",
    "tamper_resend_gc_foreign_globals": "在解释器里留下了垃圾回收回调",
    "tamper_resend_post_run_cell_foreign_globals": "在解释器里留下了IPython 以后自己会调用的函数",
    "tamper_resend_post_execute_partial_exec": "在解释器里留下了IPython 以后自己会调用的函数",
    "tamper_resend_task_factory": "事件循环的 task factory",
    "tamper_resend_patch_os_replace": "换掉的模块里的函数",
    "tamper_resend_showwarning": "换掉的模块里的函数",
    "tamper_resend_encoder_class_method": "库的类或对象上换掉的方法",
    "tamper_resend_stdout_write": "库的类或对象上换掉的方法",
    "tamper_resend_code_swap": "就地换掉了代码（__code__）的库函数",
    "wrong_load_reads_64k": "合法的检查点多大都要整个读出来",
    "wrong_load_reads_1mib": "合法的检查点多大都要整个读出来",
    "wrong_save_utf8_sig_bom": "不带 BOM、不压缩",
    "wrong_save_gzip": "不带 BOM、不压缩",
    "wrong_agent_swallows_api_error": "你的 run_agent 没有把异常抛出去",
    "wrong_load_lenient_raw_decode": "一个完整的检查点后面还有别的内容",
    "wrong_save_fixed_tmp_shared_name": "两次保存却都把同一个临时文件",
}


def test_damaged_files_are_explained(verdicts):
    notes = {name: "\n".join(verdicts[name]["notes"]) for name in verdicts}
    assert "json5" not in notes["full_json_repaired"] and "已自动修复" in notes["full_json_repaired"]
    assert "出现了 2 次，按最后一个评分" in notes["full_duplicated_cell"]
    assert "锁定的单元格 imports 被改动过" in notes["full_locked_edited"]
    assert "没有找到答题单元格 reconcile" in notes["malformed_deleted_reconcile"]
    assert "只找回了出错之前完整的" in notes["malformed_truncated"]
    assert "卡住或让进程退出" in notes["tamper_hang_at_definition"]
