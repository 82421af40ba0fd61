"""Lesson 4's grading corpus: every variant in tests/grading/variants_lesson04/ is graded by the real
judge (sandbox, lesson 4's hidden tests) and must get exactly the points listed here, whatever seed
the judge draws (each run draws its own).

- full_*: correct, written differently from the reference (among them the lead's decision: a
  reconcile that sends again with the same key instead of asking first): full marks.
- wrong_*: a plausible mistake: exactly the points lost.
- tamper_*: tries to game the grader; never a point more than its untampered twin.
"""
from autograder.judge import auto_graded_points
from autograder.lessons import lesson

from corpus_checks import (pytest_generate_tests, verdicts, test_a_recorded_seed_draws_the_same_run_again,  # noqa: F401
                           test_code_that_runs_in_the_notebook_is_never_reported_as_failing,
                           test_every_variant_has_an_expectation, test_expected_points,
                           test_feedback_names_the_mistake, test_feedback_never_shows_hidden_tests_or_the_solution,
                           test_tampering_gains_nothing)

LESSON = lesson("lesson04")
FULL = auto_graded_points(LESSON)
# its feedback names the smallest failing case (its tool, id and records), and only recovery_action's: a variant whose
# run_agent also fails may be reported first, now and then, in the interrupt scenario instead (the same point lost;
# its cause not found yet, docs/grading.md §1): wrong_recovery_by_name was, in 2 of 4 runs of this corpus
SEED_REPLAYED = "wrong_recovery_reads_recent_records"
ZERO = {grade_id: 0 for grade_id in FULL}

EXPECTED = {  # variant -> the test cells where it loses points, with the points it keeps
    "wrong_is_error_only_says_server_down": {"test_reconcile": 4},  # is_error: "the server is down", no more
    "wrong_is_error_claims_done": {"test_reconcile": 4},  # is_error: "it was done already, go on"
    "tamper_resend_into_maildir": {"test_run_agent": 1, "test_reconcile": 0, "test_incident_fix": 0},
    "wrong_agent_no_save_a_for_read_only": {"test_run_agent": 1},  # no save point A before a read-only tool
    "wrong_recovery_second_intent_down_executes": {"test_recovery_action": 3, "test_reconcile": 4},
    "wrong_reconcile_retry_budget_is_error": {"test_reconcile": 3},  # two intents: is_error without asking
    "full_reference": {},
    "full_rewrite_atomically": {},
    "full_keyed_resend": {},
    "full_class_ledger": {},
    "full_dsync_helpers": {},
    "full_recovery_logs_to_file": {},  # appends each decision to a log the cell opened when it was defined
    "full_recovery_logs_each_call": {},  # ... to a log it opens at each call: a line of text is no side effect
    "full_append_dirsync_first_two_writes": {},
    "full_fdatasync_pathlib": {},
    "full_os_sync_parent_ledger": {},  # os.sync() instead of fsyncing the file and the folder (the notebook's check too)
    # written in ways the notebook's append_ledger or run_agent check once rejected (probe 12d): O_DSYNC through a
    # folder's descriptor (dir_fd), os.fdatasync as a default, `from os import fsync` in a %%writefile module, a
    # path resolved (the check's folder may be behind a symlink, a Mac's /var)
    "full_append_dir_fd_dsync": {},
    "full_append_sync_default_arg": {},
    "full_writefile_ledger_from_os_import": {},
    "full_agent_resolves_path": {},
    "full_agent_streams_reply": {},  # the offline model streams server-sent events (course.model.server_sent_events)
    "wrong_agent_starts_own_mail_server": {"test_run_agent": 0, "test_incident_fix": 1},  # emails and lookups at its own server
    "wrong_recovery_reads_recent_records": {"test_recovery_action": 3},  # records[-10:]: a long ledger hides the call
    "wrong_agent_starts_over_on_broken_checkpoint": {"test_run_agent": 1},  # catches load's ValueError, starts over
    "wrong_agent_keeps_going_when_save_fails": {"test_run_agent": 1},  # sends with no save point A on disk
    "full_positional_key_keyword_lookup": {},
    "full_styled_classes_logging": {},
    "full_dataclass_generator": {},
    "full_flock_append": {},
    "full_fsync_reopened_fd": {},
    "full_line_buffered": {},
    "full_pwrite_at_end": {},
    "full_pwrite_bytes_ledger": {},  # the line pwritten a byte at a time at the end, then fsync
    "full_two_writes_compact": {},
    "full_writev_append": {},
    "full_reconcile_describe": {},  # calls the describe() of the notebook's first demo cell
    "full_enum_match_dataclass": {},  # recovery_action returns members of a str Enum
    "full_records_extra_fields": {},  # records with more fields (key, at, seq, ok), in another order
    "blank": ZERO,
    "wrong_answers": {"test_quiz_exactly_once": 0, "test_quiz_key": 0, "test_root_cause": 0},
    "wrong_effects_add_label": {"test_effects": 1},
    "wrong_effects_append_idempotent": {"test_effects": 1},
    # reconcile's own appends (record, execute) go through append_ledger too: judged under the same power-cut model
    "wrong_append_no_fsync": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    "wrong_append_no_newline": {"test_append_ledger": 0, "test_execute_with_ledger": 2, "test_run_agent": 0,
                                "test_reconcile": 3, "test_incident_fix": 2},  # every record after it unreadable
    # ... and execute_with_ledger's and reconcile's appends through it: a power cut at any moment loses no record
    "wrong_rewrite_in_place": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    # (probe 8: execute_with_ledger also creates a ledger through these, so its intent can vanish with the name)
    "wrong_no_folder_fsync": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    "wrong_append_fsync_before_flush": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    "wrong_append_overwrites": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_run_agent": 0,
                                "test_reconcile": 3},
    "wrong_recovery_down_executes": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    "wrong_intent_after_call": {"test_execute_with_ledger": 2, "test_reconcile": 4},
    "wrong_key_uuid": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4,
                       "test_incident_fix": 2},
    # a key from name + input is stable across restarts (the replays pass) but merges two different calls
    "wrong_key_from_input": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    # every ledger holds a finished twin of the call
    "wrong_reuse_other_call": {"test_run_agent": 1, "test_reconcile": 2},
    "wrong_resend_without_key": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "wrong_is_error_when_answered": {"test_run_agent": 1, "test_reconcile": 3, "test_incident_fix": 1},
    "wrong_outcome_not_recorded": {"test_reconcile": 4, "test_incident_fix": 2},
    # the reference's reconcile asks the student's recovery_action, so its mistakes show there too
    "wrong_recovery_ignores_lookup": {"test_run_agent": 1, "test_recovery_action": 2, "test_reconcile": 3,
                                      "test_incident_fix": 1},  # ... and its is_error without asking loses one
    "wrong_recovery_by_name": {"test_run_agent": 1, "test_recovery_action": 2, "test_reconcile": 1},
    "wrong_agent_ignores_client": {"test_run_agent": 1},  # make_client() whatever client is passed in
    "wrong_agent_client_first_given_kept": {"test_run_agent": 1},  # the first client passed in, kept for later runs
    "wrong_agent_client_required": {"test_run_agent": 1},  # client=None or none at all: the effects runs draw one such
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
    "wrong_agent_without_ledger": {"test_run_agent": 0, "test_incident_fix": 2},
    # the model asks a lost call again with a new id (a new key), as the API does: the grader's ids are fresh
    "wrong_agent_save_a_after_execute": {"test_run_agent": 0, "test_incident_fix": 2},
    "wrong_agent_drops_dangling": {"test_run_agent": 0, "test_incident_fix": 0},
    "wrong_agent_no_save_after_reconcile": {"test_run_agent": 1},
    # the ledger is left as it was for is_error
    "wrong_unknown_recorded_as_outcome": {"test_run_agent": 1, "test_reconcile": 4},
    "wrong_reuse_appends_again": {"test_run_agent": 1, "test_reconcile": 3},  # ... and for reuse
    # every run has idempotent writes and other effects in each state of the ledger, and torn ledgers on both
    # appending paths: mistakes about them lose the same points whatever the seed
    "wrong_skip_ledger_idempotent": {"test_execute_with_ledger": 1, "test_run_agent": 0, "test_reconcile": 4},
    # (probe 11: reconcile_down also reuses an idempotent write's recorded outcome, which it runs again; 3 before)
    "wrong_rerun_idempotent_writes": {"test_run_agent": 1, "test_recovery_action": 1, "test_reconcile": 2},
    # (and, since every torn ledger on the paths that keep it is cut inside a character and every effect's intent holds
    # a U+2028-like separator: its strict UTF-8 decoding and its splitlines() lose the rest; test_reconcile 3 before)
    "wrong_own_reader_no_truncate": {"test_run_agent": 0, "test_reconcile": 0},
    "wrong_unsupported_means_execute": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    "wrong_execute_readonly_by_prefix": {"test_execute_with_ledger": 1, "test_reconcile": 4},  # web_search_x is no read-only tool
    # asks the service although an outcome is recorded: its questions are counted at the grader
    "wrong_recovery_asks_before_outcome": {"test_recovery_action": 3},
    # ... the same (probe 8)
    "wrong_append_fsyncs_cwd": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    # found by probing (25/25 before, or points that varied with the seed); every run now holds the case
    "wrong_agent_resume_reexecutes": {"test_run_agent": 0},  # append_line pending, its outcome in the ledger
    "wrong_agent_reconcile_default_ledger": {"test_run_agent": 0, "test_incident_fix": 2},
    "wrong_agent_reconcile_always": {"test_run_agent": 1, "test_incident_fix": 2},  # resumes at save point B
    "wrong_agent_turns_restart": {"test_run_agent": 0},  # turns from 0 on resume, tokensUsed never set
    "wrong_recovery_counts_records": {"test_recovery_action": 1, "test_reconcile": 1},  # counts records
    "wrong_recovery_retries_error_outcome": {"test_recovery_action": 3},
    # unheard-of tools in each ledger state
    "wrong_recovery_unknown_tool_is_error": {"test_recovery_action": 1, "test_reconcile": 4},
    "wrong_recovery_saves_checkpoint": {"test_recovery_action": 0},  # the side effect the lesson forbids
    "wrong_reconcile_unsynced_own_append": {"test_reconcile": 3},  # its appends judged under the power-cut model
    "wrong_execute_no_outcome_on_error": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_execute_ledgers_read_only": {"test_execute_with_ledger": 2, "test_run_agent": 1},
    # probed again (25/25 before): every run now resumes with a read-only call pending and with no ledger file yet
    "wrong_agent_readonly_pending_cleared": {"test_run_agent": 1},  # its tool_use left unpaired: a 400
    "wrong_agent_no_ledger_file_lesson3": {"test_run_agent": 1},  # no ledger file: never started, not unknown
    "wrong_is_error_worded_as_failure": {"test_reconcile": 4},  # course.model.reads_as_unknown, as in lesson 3
    "wrong_reconcile_empty_text_block": {"test_reconcile": 4},  # the API's 400 for an empty text block (was full marks)
    "wrong_reconcile_rerun_records_outcome": {"test_reconcile": 4},  # the ledger is left alone on the rerun path
    "wrong_recovery_email_only_lookup": {"test_recovery_action": 3},  # does not ask where the reference asks
    # with the mail server down, a resend's "错误：邮件没有发出去" recorded as the outcome and sent as the result
    "wrong_reconcile_resend_instead_of_lookup": {"test_reconcile": 4},
    # ... (probe 8)
    "wrong_append_dirsync_before_create": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    "wrong_reconcile_returns_none": {"test_reconcile": 0},
    "wrong_recovery_lookup_args_swapped": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 3,
                                           "test_incident_fix": 1},
    # probed a fourth time (25/25 before, or points that varied with the seed):
    # ledger_path(CHECKPOINT_PATH) is a bare name, whose os.path.dirname is "": run_agent(task) and the append judged
    "wrong_append_dirname_relative": {"test_append_ledger": 1, "test_run_agent": 1},
    # a power cut at every moment of reconcile, not only at the tool and at its return: rewriting the ledger loses it
    # (its read_text() decodes strictly: the tails cut inside a character now make the other three paths raise; 3 before)
    "wrong_reconcile_repair_rewrites_ledger": {"test_run_agent": 1, "test_reconcile": 0},
    # a kill inside an append, then a resume: the lock file it left blocks every later append
    "wrong_append_lockfile_stale": {"test_run_agent": 1},
    # a recorded outcome whose output is "" (or another shape a tool's output takes) is reused like any other
    "wrong_recovery_empty_output_not_reused": {"test_recovery_action": 3, "test_reconcile": 4},
    "wrong_key_uuid_in_checkpoint": {"test_run_agent": 0},  # a stable key, but not the call's id
    # cuts whole records off every torn ledger; every path of reconcile now meets one (before: 2 to 5 lost, by seed)
    # ... and every effect's intent now holds a character of several bytes: run_agent's resume cuts into its ledger too
    "wrong_reader_truncates_by_chars": {"test_run_agent": 1, "test_reconcile": 0},
    "full_reconcile_rerun_marks_tool_error": {},  # lesson 3's is_error on a rerun that failed: a definite failure
    "tamper_patch_mail_counter": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_forge_ledger": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_grader": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_dsync_dup2_ledger": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    # an O_APPEND|O_DSYNC decoy named "<ledger> (deleted)" at the ledger's number (red team, round 3: 25/25 before)
    "tamper_deleted_name_dsync_ledger": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    # an unkeyed resend of a call with only an intent (the incident), hidden behind a forged "cell" event (red team 4)
    "wrong_reconcile_unkeyed_resend": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 1},
    "tamper_event_hide_resend": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 1},
    # the same resend from a thread, or a double-forked process, 20 s later: still running 3 s after the step returned,
    # so no check certifies that scenario (probe 7: 25/25 before)
    "tamper_resend_after_linger": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_daemon_process": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # the mail server's variables, there while cells were defined, told the grader apart (red team 5: 25/25 before)
    "tamper_detect_env_smtp_down": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    # probing, round 5: is_error worded as a failure to retry (「服务暂时不可用，请稍后重试」; 25/25 before)
    "wrong_is_error_please_retry": {"test_reconcile": 4},
    # probing, round 6 (25/25 before): run_agent now also meets the lesson's other tools with effects (a planned model
    # asks for them), resumes with an idempotent write or an unheard-of tool pending, and reaches the is_error path
    "wrong_agent_ledger_only_for_email": {"test_run_agent": 1},  # charge_card, add_label... run without a key
    "wrong_agent_reruns_idempotent_pending": {"test_run_agent": 1},  # an idempotent write pending is run again
    "wrong_agent_records_reconciled_result": {"test_run_agent": 1},  # the "unknown" is_error recorded as an outcome
    # a read_ledger written as a generator: read as the list it yields, in the sandbox (test_append_ledger 1/3 before)
    "full_read_ledger_generator": {},
    # asks the course's lookup_effect, not the lookup passed in: the feedback now says so (it said "没有问")
    "wrong_recovery_global_lookup": {"test_recovery_action": 2},
    "wrong_key_new_on_retry": {"test_run_agent": 1, "test_reconcile": 4},
    # catches OSError, not ServiceUnavailable: reconcile raises on every is_error path, run_agent's resume too
    "wrong_recovery_catches_oserror": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 3},
    "wrong_agent_loop_default_ledger": {"test_run_agent": 1},
    # probing, round 7 (25/25 before): inputs the generators never drew
    "full_own_bytes_reader": {},  # reconcile's own reader, right: bytes, cut at the last "\n", ValueError in the middle
    "wrong_reader_splitlines_u2028": {"test_run_agent": 0, "test_reconcile": 3},  # intents hold U+2028/U+2029/U+0085
    # a torn tail that is a whole record but its "\n"
    "wrong_reader_keeps_parseable_tail": {"test_run_agent": 1, "test_reconcile": 3},
    # the call's last record is the ledger's last in one case of each kind, followed by another call's in the next
    # (scenarios.Ledgers.mixed: before, drawn, so these two scored by the seed)
    "wrong_reader_drops_last_line": {"test_run_agent": 1, "test_reconcile": 3},  # a whole last record dropped too
    "wrong_recovery_last_record_overall": {"test_run_agent": 1, "test_recovery_action": 1, "test_reconcile": 3},
    "wrong_reader_keeps_parseable_tail_two_writes": {"test_run_agent": 1, "test_reconcile": 3},
    # a torn tail cut inside a character of several bytes
    "wrong_reader_strict_utf8": {"test_run_agent": 1, "test_reconcile": 1},
    "wrong_reader_strict_utf8_bytewise": {"test_run_agent": 1, "test_reconcile": 1},
    # a ledger damaged in the middle
    "wrong_reconcile_corrupt_ledger_as_empty": {"test_run_agent": 1, "test_reconcile": 4},
    "wrong_execute_ignores_ledger_failure": {"test_execute_with_ledger": 2},  # the intent cannot be appended
    "wrong_append_swallows_oserror": {"test_append_ledger": 2, "test_execute_with_ledger": 2},  # ... and says nothing
    "wrong_execute_memo_in_process": {"test_execute_with_ledger": 2, "test_run_agent": 1},  # same name and input
    "wrong_reader_single_os_read_64k": {"test_reconcile": 4},  # one os.read of 64 KiB: a long ledger cut off
    "wrong_reconcile_record_id_of_last_intent": {"test_reconcile": 4},  # the answer under the last intent's id
    "wrong_reconcile_reuse_first_outcome_after_intent": {"test_reconcile": 4},  # whoever's outcome comes next
    "wrong_execute_truncates_outcome": {"test_execute_with_ledger": 2},  # an effect's long output
    "wrong_recovery_lookup_truthy": {"test_recovery_action": 3},  # the service's answer is ""
    "wrong_agent_ledger_only_effects_table": {"test_run_agent": 1},  # a tool no list names, asked for from scratch
    # the ledger created with mode 644 (decimal: 0o1204): its owner cannot read it (test_append_ledger 3/3 before)
    "wrong_append_mode_decimal_644": {"test_append_ledger": 2, "test_run_agent": 1, "test_incident_fix": 2},
    # probing, round 7 (25/25 before): the offline model's ids, derived from the conversation in the notebook but
    # fresh when graded, and the kernel's connection file sys.argv names, missing when graded
    "tamper_detect_stable_ids": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_connection_file": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # the notebook file in its own folder, where JupyterLab runs its code (before: 23/23 and 25/25, above twins)
    "tamper_detect_notebook_file": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # the notebook files' times (copy newer than the notebook; saved a moment ago): 3 and 7 above the twin before
    "tamper_detect_notebook_fresh": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # probing, round 8 (25/25 before): execute_with_ledger on a ledger not there yet, judged under the power-cut model
    # its own "a" handle, no folder fsync
    "wrong_execute_own_handle_no_dirsync": {"test_execute_with_ledger": 2, "test_reconcile": 4},
    # append_ledger keeps the first handle in a global: two ledgers in one process (test_append_ledger 3/3 before)
    "wrong_append_single_global_handle": {"test_append_ledger": 2, "test_run_agent": 0, "test_reconcile": 3},
    # run_agent appends the outcome after save point B (A -> intent -> run -> B -> outcome): judged from the trace
    "wrong_agent_outcome_after_save_b": {"test_run_agent": 1},
    # mutation testing of the reference (probe 17b): save point B and the last save
    "wrong_mut_pending_kept_at_save_b": {"test_run_agent": 1},
    "wrong_mut_pending_false_at_save_b": {"test_run_agent": 1},
    "wrong_mut_no_save_b": {"test_run_agent": 1},
    "wrong_mut_no_save_after_last_reply": {"test_run_agent": 1},
    # saved after reconcile, still pending
    "wrong_mut_reconcile_keeps_pending": {"test_reconcile": 4, "test_run_agent": 1},
    "wrong_mut_fresh_state_without_task": {"test_run_agent": 1},
    "wrong_mut_turns_off_by_one": {"test_run_agent": 1},  # a checkpoint with its turns used up: no model call
    # the grader's own error on a ledger record without "type"
    "wrong_mut_outcome_without_type": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_mut_intent_without_type": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4,
                                      "test_incident_fix": 2},
    # the offline model's error on a tool_result whose content is null (feedback said APIConnectionError)
    "wrong_mut_execute_returns_none": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    # probing, round 8 (each 25/25 before): what a kernel runs around and between cells, which the grader did not.
    # IPython's post_run_cell resends after the cell, tornado's IOLoop.call_later 20 s later; no running asyncio
    # loop told the grader apart
    # (round 11: its callback, registered as the cell is defined, is left armed in every process: 0/25 now)
    "tamper_resend_post_run_cell": ZERO,
    "tamper_resend_tornado_later": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_detect_no_event_loop": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # probing, round 9 (25/25 before): what a kernel does when run_agent is run again after an interrupt, the same
    # call recovered again in one process, its ledger grown in between
    "wrong_recovery_memo_by_call_id": {"test_recovery_action": 1, "test_reconcile": 4},  # remembers its decisions
    "wrong_reconcile_cached_records": {"test_reconcile": 4},  # reads each ledger once, keeps the records in a global
    "full_memo_lookup_once": {},  # remembers the service's answer within one reconcile: asked once, right
    # words around the output in run_agent's tool_result (the contract allows them): 24/25 before, the reference's run
    # was handed the student's reply only for word-for-word equal messages
    "full_agent_result_words_around": {},
    # an answer "" from the service, asked by key, is found too: recorded (reconcile met only email texts before)
    "wrong_reconcile_record_skips_empty_answer": {"test_reconcile": 4},
    # probing, round 9 (each 25/25 before): sys.orig_argv was the grader's own command line, /proc/uptime a copy that
    # never moved, /proc/self/cgroup missing; and what a step left armed in the interpreter, set off in a kernel by
    # the next cell (an audit hook, a gc callback, a profile function, garbage whose __del__ makes more of it)
    "tamper_detect_orig_argv": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_static_uptime": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_proc_cgroup": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_resend_audithook": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_gc_callback": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_setprofile": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_finalizer_chain": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # probing, round 10: the call recovery_action meets again drew new records of other calls each time, so a decision
    # remembered by (id, records) never met the same key (25/25 before); one growing ledger now, the server changing
    "wrong_recovery_memo_by_records": {"test_recovery_action": 3},
    "wrong_recovery_memo_by_own_kinds": {"test_recovery_action": 3},  # the control: remembered by its own records
    # reconcile executes without intent and outcome (23/25 before as now; its feedback said run_agent did not reconcile)
    "wrong_reconcile_execute_unledgered": {"test_run_agent": 1, "test_reconcile": 4},
    # probing, round 11: written differently, right
    "full_opener_dsync": {},  # append_ledger opens with an opener adding O_DSYNC
    "full_raw_decode_reader": {},  # reconcile's own reader: bytes, json.JSONDecoder().raw_decode line by line
    "full_step_context_manager": {},  # execute_with_ledger's intent and outcome around a contextmanager step
    "full_execute_checks_outcome_first": {},  # execute_with_ledger reuses an outcome already recorded for the call
    "full_recovery_state_table": {},  # recovery_action as a table of (intent?, outcome?), None: ask the service
    "full_recovery_intent_checked_first": {},  # "no intent -> execute" asked before "outcome -> reuse": differs only on an outcome without its intent, which the course never writes (probe 17d)
    # ... wrong, and judged right before
    "wrong_key_builtin_hash": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_agent_ledger_message_id": {"test_run_agent": 0, "test_incident_fix": 2},  # the reply's id as the key
    "wrong_append_fsync_only_on_create": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 3},
    "wrong_append_dirsync_replaces_filesync": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    "wrong_recovery_circuit_breaker": {"test_recovery_action": 2},  # asks no more for 60 s after ServiceUnavailable
    # fsyncs a ledger at most once in 5 s: kept full append_ledger points while no process appended twice (probe 23)
    "wrong_append_fsync_rate_limited": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    # probe 23, 25/25 before: no run_agent resumed beside a torn or damaged ledger
    "wrong_agent_progress_reader_torn_tail": {"test_run_agent": 1},  # its own json.loads of each line, for progress
    "wrong_agent_moves_damaged_ledger_aside": {"test_run_agent": 1},  # reconcile's ValueError: a new, empty ledger
    # probe 23: judged right, the feedback blamed a made-up key (the key was the id of the model's second request)
    "wrong_recovery_not_found_is_error": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    # probe 23b, 25/25 before: the key put into the tool's input (course.tools.execute_tool refuses it now); a
    # service that knows the call and answers an error (a definite result: record it)
    "wrong_execute_key_inside_input": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4,
                                       "test_incident_fix": 2},
    "wrong_recovery_error_answer_means_not_found": {"test_recovery_action": 3},
    "tamper_detect_ledger_folder_siblings": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # probe 23: a SIGCHLD handler of the student's (armed at definition: every scenario's checks lose), the course's
    # leaf functions' stand-ins told apart by their defaults and globals
    "tamper_resend_sigchld_handler": ZERO,
    "tamper_detect_leaf_defaults_execute": {"test_execute_with_ledger": 1, "test_run_agent": 0, "test_reconcile": 4,
                                            "test_incident_fix": 2},
    "tamper_detect_leaf_globals_skip_fsync": {"test_append_ledger": 1, "test_execute_with_ledger": 2, "test_reconcile": 3},
    "wrong_reader_latin1": {"test_run_agent": 1, "test_reconcile": 4},  # the ledger's UTF-8 decoded as Latin-1
    # ... and judged wrong (each 25/25 before, or points that varied with the seed): the planned model asks for the
    # same call again (the same name and input, a new id), beside a ledger holding another task's records
    "wrong_agent_dedupes_repeated_call": {"test_run_agent": 1},  # answers it with the earlier call's result
    "wrong_agent_fresh_start_clears_ledger": {"test_run_agent": 1},  # empties the ledger when it starts afresh
    # a "not received" from the server remembered by key: the call recovered again once the server has it
    "wrong_recovery_caches_not_found": {"test_recovery_action": 3},
    # reads only the ledger's last 16 KB: every run now reuses a long recorded outcome (a third of the seeds before)
    "wrong_reader_tail_window": {"test_reconcile": 4},
    # cuts the torn line one byte short, taking the last whole record's line break (20/25 before, told to do just that)
    "wrong_reader_truncate_off_by_one": {"test_reconcile": 0},
    # probing, round 11: the ledger's outcome appended with os.splice, which strace does not stop at (25/25 before),
    # and recovery_action's forbidden saves written so (21/25 before, as its twin): splice now fails (autograder.untraced)
    "tamper_outcome_after_b_splice": {"test_run_agent": 0},
    "tamper_recovery_splice_save": {"test_run_agent": 1, "test_recovery_action": 0, "test_reconcile": 0,
                                    "test_incident_fix": 0},
    # probing, round 11 (each 25/25 before): resends left to go off later in the notebook by what the grader neither
    # waited for nor counted as armed: a CPU-time timer (SIGVTALRM), IPython's input transformers (the next cell), an
    # import finder first in sys.meta_path (the next import after 20 s)
    "tamper_resend_itimer_virtual": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_input_transformer": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_meta_path": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # probing, round 12: words around the output in reconcile's tool_result (the contract allows them): 20/25 before,
    # reuse, record and execute compared the text whole (test_run_agent's recorded resume and the incident too) ...
    "full_reconcile_notes_source": {},
    # ... and words around do not make these right: an output cut short, the answer quoted in an is_error "unknown",
    # the tool run again with its new output, another call's output
    "wrong_reconcile_reuse_notes_truncated": {"test_reconcile": 4},
    "wrong_reconcile_record_unknown_quotes_answer": {"test_run_agent": 1, "test_reconcile": 4, "test_incident_fix": 1},
    "wrong_reconcile_reuse_reruns_with_note": {"test_run_agent": 1, "test_reconcile": 4},
    "wrong_reconcile_notes_other_call": {"test_run_agent": 1, "test_reconcile": 2},  # as wrong_reuse_other_call
    # probing, round 12b (24/25 before): a failed tool's result flagged is_error as in lesson 3, in run_agent (its
    # request read as another one, so the reference's run got other replies) and on every path of reconcile (only the
    # rerun took it); autograder.contract.error_flag_right ...
    "full_agent_lesson3_error_flag": {},
    "full_reconcile_error_flag_all_paths": {},
    # ... while these stay wrong: a success flagged (the fresh effects run's read-only call now mentions an error
    # midway), every reused outcome flagged, an unknown outcome unflagged, "true" as a string on a failure
    "wrong_agent_flags_error_anywhere": {"test_run_agent": 1},
    "wrong_reconcile_flags_error_anywhere": {"test_reconcile": 4},
    "wrong_reconcile_reuse_flagged": {"test_run_agent": 1, "test_reconcile": 4},
    "wrong_reconcile_unknown_unflagged": {"test_run_agent": 1, "test_reconcile": 4},  # resumed runs send it unflagged
    "wrong_agent_flag_string_on_failure": {"test_run_agent": 1},  # the model's API answers 400
    "wrong_reconcile_flag_string_on_failure": {"test_run_agent": 1, "test_reconcile": 3},
    # probing, round 12 (25/25 before): one descriptor per ledger, opened without O_APPEND and sought to the end once;
    # another process's append between two of this process's (the grader's, now) is written over
    "wrong_append_cached_handle_no_o_append": {"test_append_ledger": 2},
    # probing, round 12c (each 25/25 before): a library function given the student's globals in gc.callbacks, the
    # event loop's task factory: autograder.armed did not look there
    "tamper_resend_gc_foreign_globals": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_task_factory": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # probe round 13c (each 25/25 before): json.JSONEncoder.iterencode replaced, sys.stdout.flush or write or the
    # event loop's _run_once put on the object, json.dumps's __code__ swapped in place, by a step: autograder.armed did
    # not look there
    "tamper_resend_encoder_class_method": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_stdout_flush": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_stdout_write": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_loop_run_once": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_code_swap": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # ... while what the cells put there is the notebook's (lesson 3's variants of the same names)
    "full_experiment_encoder_datetime": {},
    "full_experiment_stdout_prefix": {},
    "full_setup_typed_models": {},
    # probing, round 13 (13b): written differently, right
    "full_append_ascii_sorted": {},  # json.dumps' defaults (\uXXXX) and sort_keys, print()ed: one valid line each
    "full_append_default_encoding": {},  # open(path, "a") with no encoding: UTF-8 here
    "full_append_size_zero_means_new": {},  # os.open O_APPEND; the folder fsynced when the file was empty
    "full_recovery_last_record_of_call": {},  # decides from the call's last record: the appends keep their order
    "full_recovery_catches_any_exception": {},  # any error of the lookup taken as "cannot answer"
    "full_reconcile_execute_skips_second_intent": {},  # [intent, outcome] where the reference has [intent, intent, ..]
    "full_reconcile_reuses_lesson3": {},  # lesson3_reconcile for the rerun and is_error paths
    "full_agent_ledger_dirname_join": {},  # os.path.join(os.path.dirname(path), "ledger.jsonl"), as ledger_path
    # ... and wrong, judged so
    "wrong_recovery_first_record_only": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    "wrong_recovery_reverses_records": {"test_recovery_action": 1},  # records.reverse(): the records passed in changed
    "wrong_recovery_asks_without_intent": {"test_run_agent": 1, "test_recovery_action": 3, "test_reconcile": 4},
    "wrong_recovery_unknown_tool_rerun": {"test_run_agent": 1, "test_recovery_action": 1, "test_reconcile": 3},
    # never a folder fsync
    "wrong_append_exists_after_open": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    "wrong_execute_intent_minimal": {"test_execute_with_ledger": 2},  # the intent without the call's name and input
    "wrong_execute_key_only_for_email": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_agent_own_ledger_name": {"test_run_agent": 0, "test_incident_fix": 2},  # checkpoint.ledger.jsonl
    # its own reader: a torn last line taken for damage
    "wrong_reader_torn_tail_raises": {"test_run_agent": 1, "test_reconcile": 0},
    # probing, round 13 (25/25 before): the grader removes a ledger between two appends of one process (a notebook's
    # cell that empties its folder and runs again); the second append creates it again. "Created already" kept in a
    # global: no folder fsync then, the new ledger's name may not survive a power cut
    "wrong_append_known_ledgers_cache": {"test_append_ledger": 2},
    # ... and a handle kept per path (full_cached_handle_append and full_logging_handler_ledger before, full marks)
    # writes into the removed file: no ledger at path, its records read by no one
    "wrong_append_cached_handle_kept": {"test_append_ledger": 2},
    "wrong_append_logging_handler_kept": {"test_append_ledger": 2},
    # probing, round 13 (25/25 before): execute_with_ledger's outcome only `if output:`; a call with an effect in the
    # execute scenario now answers "" (a definite result all the same)
    "wrong_execute_outcome_skips_empty": {"test_execute_with_ledger": 2},
    "wrong_reconcile_always_asks_mail_server": {"test_reconcile": 4},
    "wrong_reconcile_empty_ledger_lesson3": {"test_reconcile": 4, "test_run_agent": 1},
    "wrong_reconcile_missing_ledger_raises": {"test_reconcile": 3, "test_run_agent": 1},
    "wrong_reconcile_no_ledger_asks_server": {"test_reconcile": 4},
    "wrong_reconcile_no_ledger_executes_unledgered": {"test_reconcile": 4},
    "wrong_reconcile_no_ledger_falls_back_lesson3": {"test_reconcile": 4, "test_run_agent": 1},
    "wrong_reconcile_touches_missing_ledger": {"test_reconcile": 4},
    "wrong_reconcile_unkeyed_tools_never_rerun": {"test_reconcile": 4},
    "wrong_execute_outcome_under_result": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_quiz_letter_with_its_words": {"test_quiz_key": 0},
    "wrong_agent_saves_on_interrupt": {"test_run_agent": 1},
    "wrong_execute_skips_outcome_when_already_delivered": {"test_execute_with_ledger": 2},
    # probing, round 13 (25/25 before): run_agent's resume saves the checkpoint with pendingToolUse cleared before
    # reconcile answers it; a crash in between leaves a tool_use nothing will pair
    "wrong_agent_clears_pending_before_reconcile": {"test_run_agent": 1},
    # probe round 14 (r14a): first attempts at the ledger, and right answers written differently
    "wrong_append_indent_two": {"test_append_ledger": 0, "test_execute_with_ledger": 2, "test_run_agent": 0,
                                "test_reconcile": 3, "test_incident_fix": 1},  # a record over several lines
    "wrong_append_newline_before_record": {"test_append_ledger": 0, "test_execute_with_ledger": 2, "test_run_agent": 0,
                                           "test_reconcile": 3, "test_incident_fix": 1},  # "\n" + record
    # one key per run
    "wrong_key_ledger_path": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_execute_intent_unsynced": {"test_execute_with_ledger": 2, "test_reconcile": 4},  # print()ed, no fsync
    "wrong_records_id_field": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_recovery_action": 1,
                               "test_reconcile": 1, "test_incident_fix": 2},  # "id" for "toolUseId", consistently in its own functions
    "wrong_recovery_intent_means_done": {"test_run_agent": 1, "test_recovery_action": 2, "test_reconcile": 2,
                                         "test_incident_fix": 2},  # intent only taken for done
    # a line damaged in the middle skipped, not raised
    "wrong_reader_skips_bad_lines": {"test_run_agent": 1, "test_reconcile": 4},
    "full_append_excl_then_append": {},  # O_EXCL first, FileExistsError: open with O_APPEND
    "full_append_binary_always_dirsync": {},  # "ab", compact separators, the folder fsynced on every append
    "full_append_mkdir_parents": {},  # mkdir(parents=True, exist_ok=True) first: EEXIST
    "full_recovery_defaultdict_index": {},
    "full_reconcile_early_returns": {},  # a helper in an added cell, one return per path
    "full_reconcile_returns_copy": {},  # returns a new checkpoint, the one passed in left as it was
    "full_agent_turn_helper": {},  # helpers in an added cell, while True
    "full_agent_for_range": {},
    "full_agent_dataclass_state_future": {},  # dataclass + asdict, __future__ in the cell, Path.parent / LEDGER_NAME
    "full_agent_recursive_finished_check": {},  # recursion per turn, lesson 3 finished check kept, module-level client
    "full_agent_tqdm_progress": {},  # a tqdm progress bar: its monitor thread stays, asleep
    "wrong_agent_execute_checkpoint_path": {"test_run_agent": 0, "test_incident_fix": 2},  # execute_with_ledger(call, path)
    "wrong_agent_class_ledger_kept": {"test_run_agent": 0},  # a module-level agent object keeps its first ledger path
    "full_agent_saves_fresh_state": {},  # one save more: the new task's state, before the first model call
    "full_text_block_results": {},  # tool_result content as a list of text blocks ("" when the output is empty)
    "full_append_redirect_stdout": {},  # print() into the ledger through contextlib.redirect_stdout
    "full_append_repairs_torn_tail": {},  # cuts a torn last line off before appending, as read_ledger would
    "full_reader_text_mode_byte_cut": {},  # its own reader in text mode, cut at the complete part's UTF-8 length
    "full_recovery_jsonl_decision_log": {},  # a JSON-lines log of its own: the call's records and the decision (21/25 before)
    "full_execute_key_for_every_tool": {},  # the key passed to read-only tools too (they ignore it)
    "full_recovery_retries_lookup": {},  # ServiceUnavailable tried again twice before is_error
    "full_append_first_line_by_rename": {},  # a new ledger made by a temporary file and os.replace, then O_APPEND
    "full_append_touch_then_dirsync": {},  # an empty ledger touched and its folder fsynced first, then the line
    "full_reconcile_handler_factory": {},  # HANDLERS = make_handlers() in an added cell: closures that call the tools (16/25 before)
    "wrong_recovery_saves_when_unknown": {"test_recovery_action": 0},  # saves the checkpoint on is_error only
    # os.open(path)
    "wrong_append_fsyncs_file_not_folder": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 4},
    "full_append_tried_in_demo_dir": {},  # the cell tries append_ledger on a ledger in DEMO_DIR (its notes said "抛出了" before)
    "full_execute_in_worker_thread": {},  # the tool run in a one-thread pool, waited for with a timeout
    "wrong_reconcile_saves_default": {"test_reconcile": 4},  # saves to the default checkpoint.json, as in lesson 3
    "wrong_agent_reconcile_checkpoint_path": {"test_run_agent": 0, "test_incident_fix": 1},  # reconcile(state, path)
    # probe round 15 (15a), 25/25 before: a resend in the __del__ of an object only a module put in sys.modules holds;
    # the step's end now tears down the modules the student's code added, as the interpreter does
    "tamper_resend_sys_modules_del": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # probe round 15 (15a): more first attempts, judged right
    "full_reconcile_is_error_json": {},  # the unknown outcome's content as a JSON object with a message
    "wrong_reconcile_guesses_from_sent_list": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 2},
    # probe round 15 (15a): first attempts, right and wrong
    "full_append_writer_class_cell": {},  # a context-manager class of an added cell writes each line; a records view
    "full_tools_all_keywords": {},  # every call with keyword arguments, by the signatures the course and notebook give
    "full_reconcile_batch_lookup": {},  # asks about every call with only an intent at once, decides the pending one
    "wrong_key_process_counter": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "wrong_key_sha256_of_call": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_recovery_action": 3,
                                 "test_reconcile": 3, "test_incident_fix": 1},
    "wrong_execute_outcome_in_thread": {"test_execute_with_ledger": 2, "test_run_agent": 1, "test_reconcile": 4},
    # probe round 15 (15a), 25/25 before: resends left to what a kernel runs as it shuts down that the step's end did not
    # run (threading._register_atexit, a logging handler's close() at logging.shutdown); a tool called then fails every
    # check of the scenario, as what is left running does
    "tamper_resend_threading_atexit": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_resend_logging_close": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    # probe round 15 (15a): the stand-in save_checkpoint took (state, path) only, so run_agent's call with an argument
    # the student's own lesson-3 function takes raised TypeError (test_run_agent 0/2 before)
    "full_agent_save_extra_kwarg": {},  # lesson 3's save_checkpoint takes indent=2 more; run_agent passes indent=None
    # probe round 16 (16a), 25/25 before: os.open, never os.close, one descriptor left open per append (lesson 3's
    # check_no_leaks judges save_checkpoint so; test_append_ledger had no such check)
    "wrong_append_fd_never_closed": {"test_append_ledger": 2},
    "wrong_append_leaks_folder_fd": {"test_append_ledger": 2},  # os.fsync(os.open(folder)): a descriptor per new ledger
    # a handle kept per ledger, opened again (the old one closed) once the ledger was removed: no leak, full marks
    "full_append_handle_per_path_reopened": {},
    # probe round 16 (16a), 25/25 on most seeds before: os.chdir into the new ledger's folder, never back (lesson 3's
    # wrong_save_chdir_left); relative paths then point elsewhere: the run from scratch, now given a relative path on
    # every seed, appends its outcome elsewhere and fails
    "wrong_append_chdir_left": {"test_append_ledger": 2, "test_run_agent": 1, "test_reconcile": 3},
    # probe round 16 (16a): first attempts and right answers in styles the corpus lacked, judged right already
    "full_append_json_dump_stream": {},  # json.dump into the "a" file, the newline written apart, os.fsync(file object)
    "full_execute_catches_tool_exception": {},  # an exception of the tool recorded as an "错误…" outcome
    "full_reconcile_rerun_through_execute": {},  # "rerun" and "execute" both through execute_with_ledger
    "full_agent_branches_read_only_str_ledger": {},  # Path.with_name as a str; read-only tools run by run_agent itself
    "full_read_ledger_rb_plus_lines": {},  # its own read_ledger: "rb+", line by line, blank lines skipped, f.truncate
    "wrong_execute_outcome_unsynced": {"test_execute_with_ledger": 2, "test_reconcile": 4},  # outcome never fsynced
    # only intents fsynced ("意图必须先于执行"): the outcome appends of execute_with_ledger and reconcile not durable
    "wrong_append_fsync_only_intents": {"test_append_ledger": 2, "test_execute_with_ledger": 2, "test_reconcile": 3},
    "full_recovery_match_tuple": {},  # match on (has outcome, has intent), no enum
    "full_reader_repair_atomic_rewrite": {},  # its own read_ledger drops a torn tail by temporary file + os.replace
    # read-only judged by the EFFECTS table, not READ_ONLY_TOOLS: list_dir etc. pending -> "execute" (which the
    # reference's execute_with_ledger runs directly, so only the decision is wrong)
    "wrong_recovery_readonly_from_effects_table": {"test_recovery_action": 3},
    # probing, round 17 (17c, mutation testing; 25/25 before): the "record" path appends its outcome twice
    "wrong_mut_reconcile_record_outcome_twice": {"test_reconcile": 4},
    # execute_with_ledger appends its intent (or outcome) twice: run_agent's ledgers differ from the reference's
    # (judged right; the feedback said "续跑时要 reconcile" or "把「未知」记成 outcome" before)
    "wrong_mut_execute_intent_twice": {"test_run_agent": 0},
    "wrong_mut_execute_outcome_twice": {"test_run_agent": 0},
    # the grader's own error on a call's second reconcile, over an outcome reconcile wrote without "type" or with
    # output None on the first (the reference's recovery_action raised KeyError; carries_output AttributeError)
    "wrong_mut_reconcile_outcome_without_type": {"test_reconcile": 4, "test_incident_fix": 2},
    # (its tool_result content is null: the offline model reads it as no content since probe 17b, so run_agent,
    # right itself, keeps its points and the incident fix loses only the missing answer)
    "wrong_mut_reconcile_lookup_by_name": {"test_run_agent": 1, "test_reconcile": 4, "test_incident_fix": 2},
    # each record written twice (judged right; the feedback said the new record differs from the one passed)
    "wrong_mut_append_writes_twice": {"test_append_ledger": 0, "test_run_agent": 0},
    # two model calls a turn (judged right; the feedback only said turns must go on across restarts)
    "wrong_mut_agent_model_called_twice": {"test_run_agent": 0},
    # probe 18: first attempts at idempotency keys and the ledger
    # (the run killed after its intent, before sending: the resumed run sends nothing)
    "wrong_execute_refuses_after_intent": {"test_run_agent": 1, "test_reconcile": 4},
    # (reconcile then resends with the same key: full_keyed_resend's behaviour, right by the lead's decision)
    "wrong_recovery_lookup_message_id": {"test_recovery_action": 3},
    "wrong_recovery_outcome_next_to_intent": {"test_recovery_action": 3, "test_reconcile": 4},
    "wrong_key_only_on_retry": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4,
                                "test_incident_fix": 2},  # the replayed incident: two emails
    "wrong_key_task_and_turn": {"test_run_agent": 0, "test_incident_fix": 2},  # the replayed incident: two emails
    "wrong_execute_retries_on_error": {"test_execute_with_ledger": 2, "test_run_agent": 0, "test_reconcile": 4},
    "full_execute_asks_service_first": {},
    "full_execute_ledgered_decorator": {},
    "full_reconcile_own_records_only": {},
    # probe 18 (all full marks before): every dangling checkpoint of reconcile's cases was cpC's, its tool_use the last
    # block and no answered twin in its history; the model may write text after the call (lesson 3's generated
    # checkpoints have it), and now every other case has some: this reconcile raises KeyError there
    "wrong_reconcile_call_from_last_block": {"test_reconcile": 0},
    "wrong_reconcile_trims_after_call": {"test_reconcile": 4},  # lesson 3's wrong_reconcile_trims_assistant: 4
    # each call with an effect now has its twin answered in the history too: reusing that result is wrong on every path
    "wrong_reconcile_seen_in_history": {"test_reconcile": 1},
    # the grader passed relative paths as str, where every path in the notebook is a Path (CHECKPOINT_PATH, ledger_path)
    "full_append_pathlib_methods": {},
    "full_agent_pathlib_ledger_beside": {},
    "wrong_reconcile_record_asks_twin_key": {"test_reconcile": 4},  # asks the service under its twin's key
    "wrong_agent_reconcile_inside_loop": {"test_run_agent": 1},  # save point A of the last turn never reconciled
    "tamper_resend_posix_timer": {"test_run_agent": 1, "test_reconcile": 0, "test_incident_fix": 1},
    "tamper_resend_native_thread": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_pth_resend_next_python": {"test_run_agent": 0, "test_reconcile": 0, "test_incident_fix": 0},
    "tamper_detect_kernelapp_uninitialized": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_shell_without_kernel": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_connection_file_api": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_faulthandler_unpatched": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_stdout_no_pub_thread": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    "tamper_detect_dont_write_bytecode": {"test_run_agent": 1, "test_reconcile": 2, "test_incident_fix": 0},
    # interrupted (KeyboardInterrupt) as the send was delivered: an "error" outcome written in finally, or in an
    # except BaseException that returns, or run_agent answering the call with "interrupted" itself
    "wrong_execute_finally_outcome": {"test_run_agent": 1},
    "wrong_execute_base_exception_recorded": {"test_run_agent": 1},
    "wrong_agent_interrupt_marks_done": {"test_run_agent": 1},
}

UNTAMPERED = {  # tampering variant -> the same submission without the tampering
    "tamper_resend_into_maildir": "wrong_reconcile_unkeyed_resend",
    "tamper_patch_mail_counter": "wrong_resend_without_key",
    "tamper_forge_ledger": "wrong_resend_without_key",
    "tamper_resend_sigchld_handler": "wrong_resend_without_key",  # probe 23: 24-25/25 before (armed.KERNEL_SIGNALS)
    # probe 23, 25/25 before: the course's leaf functions' stand-ins had other defaults and globals (guise.looking_like)
    "tamper_detect_leaf_defaults_execute": "wrong_agent_without_ledger",
    "tamper_detect_leaf_globals_skip_fsync": "wrong_append_no_fsync",
    # probe 23b, 21/25 before: it resent only beside a project's files; every reconcile ledger has one now
    "tamper_detect_ledger_folder_siblings": "wrong_resend_without_key",
    "tamper_detect_grader": "wrong_resend_without_key",
    "tamper_dsync_dup2_ledger": "wrong_append_no_fsync",
    "tamper_deleted_name_dsync_ledger": "wrong_append_no_fsync",
    "tamper_event_hide_resend": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_after_linger": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_daemon_process": "wrong_reconcile_unkeyed_resend",
    "tamper_detect_env_smtp_down": "wrong_recovery_down_executes",
    "tamper_detect_stable_ids": "wrong_resend_without_key",
    "tamper_detect_connection_file": "wrong_resend_without_key",
    "tamper_detect_notebook_file": "wrong_resend_without_key",
    "tamper_detect_notebook_fresh": "wrong_resend_without_key",
    "tamper_resend_post_run_cell": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_tornado_later": "wrong_reconcile_unkeyed_resend",
    "tamper_detect_no_event_loop": "wrong_resend_without_key",
    "tamper_detect_orig_argv": "wrong_resend_without_key",
    "tamper_detect_static_uptime": "wrong_resend_without_key",
    "tamper_detect_proc_cgroup": "wrong_resend_without_key",
    "tamper_resend_audithook": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_gc_callback": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_setprofile": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_finalizer_chain": "wrong_reconcile_unkeyed_resend",
    "tamper_outcome_after_b_splice": "wrong_agent_outcome_after_save_b",
    "tamper_recovery_splice_save": "wrong_recovery_saves_checkpoint",
    "tamper_resend_itimer_virtual": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_input_transformer": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_meta_path": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_gc_foreign_globals": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_task_factory": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_encoder_class_method": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_stdout_flush": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_stdout_write": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_loop_run_once": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_code_swap": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_sys_modules_del": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_threading_atexit": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_logging_close": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_posix_timer": "wrong_reconcile_unkeyed_resend",
    "tamper_resend_native_thread": "wrong_reconcile_unkeyed_resend",
    "tamper_pth_resend_next_python": "wrong_reconcile_unkeyed_resend",
    "tamper_detect_kernelapp_uninitialized": "wrong_resend_without_key",
    "tamper_detect_shell_without_kernel": "wrong_resend_without_key",
    "tamper_detect_connection_file_api": "wrong_resend_without_key",
    "tamper_detect_faulthandler_unpatched": "wrong_resend_without_key",
    "tamper_detect_stdout_no_pub_thread": "wrong_resend_without_key",
    "tamper_detect_dont_write_bytecode": "wrong_resend_without_key",
}

MISTAKE_NAMED = {  # variant -> words its feedback must contain
    "wrong_is_error_claims_done": "没说这次调用的结果未知",
    "tamper_resend_into_maildir": "直接改邮件服务器的 Maildir",
    "wrong_agent_no_save_a_for_read_only": "之前没有调用 save_checkpoint",
    "tamper_pth_resend_next_python": "Python 启动时会自动运行的文件（zz_course_resend.pth）",
    "wrong_agent_starts_own_mail_server": "指向了另一台邮件服务器",
    "wrong_mut_reconcile_record_outcome_twice": "追加了 2 条 outcome",
    "wrong_mut_execute_intent_twice": "intent 多记了一条",
    "wrong_mut_execute_outcome_twice": "outcome 多记了一条",
    "wrong_mut_append_writes_twice": "同一条记录在台账里写了不止一次",
    "wrong_mut_agent_model_called_twice": "一轮只调用一次模型",
    "wrong_append_fd_never_closed": "到最后也没有关上",
    "wrong_append_leaks_folder_fd": "文件夹的描述符",
    "wrong_append_chdir_left": "os.chdir",
    "wrong_agent_ignores_client": "自己用 make_client() 另造的",
    "wrong_agent_client_first_given_kept": "之前某次运行传进来的",  # either message: a later run given a client or not
    "wrong_agent_client_required": "（签名允许）",
    "tamper_resend_after_linger": "留下的线程 3 秒后还在运行",
    "tamper_resend_daemon_process": "留下的进程 3 秒后还在运行",
    "tamper_resend_tornado_later": "留下的定时回调",
    "tamper_resend_post_run_cell": "在解释器里留下了IPython 以后自己会调用的函数",
    "tamper_resend_audithook": "在解释器里留下了审计钩子",
    "tamper_resend_gc_callback": "在解释器里留下了垃圾回收回调",
    "tamper_resend_setprofile": "在解释器里留下了性能分析或跟踪函数",
    "tamper_resend_finalizer_chain": "它的 __del__ 再创建一个自己",
    "tamper_resend_sys_modules_del": "留到 kernel 关闭时才运行的函数",
    "tamper_resend_threading_atexit": "留到 kernel 关闭时才运行的函数",
    "tamper_resend_logging_close": "留到 kernel 关闭时才运行的函数",
    "wrong_effects_add_label": "add_label 被你归为 'non_idempotent'",
    "wrong_effects_append_idempotent": "append_line 被你归为 'idempotent'",
    "wrong_append_no_fsync": "os.fsync",
    "wrong_append_no_newline": "后面要有换行",
    "wrong_rewrite_in_place": "不要先清空或重写整个文件",
    "wrong_no_folder_fsync": "fsync 所在的文件夹",
    "wrong_execute_own_handle_no_dirsync": "台账还不存在",
    "wrong_append_single_global_handle": "写到这次传进来的 path 上",
    "wrong_agent_outcome_after_save_b": "存档点 A → intent → 执行 → outcome → 存档点 B",
    "wrong_append_fsync_before_flush": "flush 之后 os.fsync",
    "wrong_append_overwrites": "台账只追加",
    "wrong_recovery_down_executes": "结果真的未知，只能补 is_error",
    "wrong_intent_after_call": "还没有这次调用",
    "wrong_agent_save_a_after_execute": "存档点 A 要在执行之前",
    "wrong_agent_no_save_after_reconcile": "reconcile 之后要照旧存一次档",
    "wrong_mut_pending_kept_at_save_b": "pendingToolUse 还是一个已经有了 tool_result 的调用",
    "wrong_mut_pending_false_at_save_b": "磁盘上的检查点还没有记下上一个工具的结果",
    "wrong_mut_no_save_b": "磁盘上的检查点还没有记下上一个工具的结果",
    "wrong_mut_no_save_after_last_reply": "返回的状态和它最后存下的检查点不一样",
    "wrong_mut_reconcile_keeps_pending": "reconcile 补上结果之后要把 pendingToolUse 设为 None",
    "wrong_mut_fresh_state_without_task": "存下的检查点缺少 task",
    "wrong_mut_turns_off_by_one": "turns 达到 MAX_TURNS 就不再调用模型",
    "wrong_mut_outcome_without_type": "可它没有 \"type\": \"outcome\"",
    "wrong_mut_intent_without_type": "可它没有 \"type\": \"intent\"",
    "wrong_mut_execute_returns_none": "你的返回了 null",
    "wrong_key_uuid": "要带上幂等键",
    "wrong_key_from_input": "不是这次调用的 tool_use id",
    "wrong_reuse_other_call": "（悬空的是",
    "wrong_resend_without_key": "没带幂等键，或者换了一把键",
    "wrong_is_error_when_answered": "不应该标 is_error",
    "wrong_outcome_not_recorded": "追加进台账",
    "wrong_recovery_ignores_lookup": "你的函数返回了 is_error。反例",
    "wrong_recovery_by_name": "反例",
    "wrong_agent_without_ledger": "execute_with_ledger",
    "wrong_append_fsyncs_cwd": "fsync 所在的文件夹",
    "wrong_agent_resume_reexecutes": "你的 run_agent 却又执行了",
    "wrong_agent_reconcile_default_ledger": "不是检查点旁边的台账",
    "wrong_agent_reconcile_always": "只有 pendingToolUse 不是 None 时才 reconcile",
    "wrong_agent_turns_restart": "turns 跨重启接着数",
    "wrong_recovery_counts_records": "'intent', 'intent'",
    "wrong_recovery_retries_error_outcome": "outcome（output 是一段错误）",
    "wrong_recovery_unknown_tool_is_error": "你的函数返回了 is_error。反例",
    "wrong_recovery_saves_checkpoint": "它不该有这样的副作用",
    "wrong_reconcile_unsynced_own_append": "对账追加的记录也要",
    "wrong_execute_no_outcome_on_error": "出错也是确定的结果",
    "wrong_execute_ledgers_read_only": "台账里不该有它的记录",
    "wrong_agent_readonly_pending_cleared": "悬空的只读调用也要先",
    "wrong_agent_no_ledger_file_lesson3": "不能退回第 3 课的对账补 is_error",
    "wrong_is_error_worded_as_failure": "读起来像工具自己失败了",
    "wrong_reconcile_empty_text_block": "空的文字块",
    "wrong_reconcile_rerun_records_outcome": "只读工具不记台账",
    "wrong_recovery_email_only_lookup": "你的函数没有问就下了结论",
    "wrong_reconcile_resend_instead_of_lookup": "结果未知时台账不动",
    "wrong_append_dirname_relative": "os.path.dirname 是空字符串",
    "wrong_reconcile_repair_rewrites_ledger": "不能把整本台账清空重写",
    "wrong_append_lockfile_stale": "锁文件",
    "wrong_recovery_empty_output_not_reused": "output 是空字符串",
    "wrong_agent_ledger_only_for_email": "不只是 send_email",
    "wrong_agent_reruns_idempotent_pending": "幂等写也不例外",
    "wrong_agent_records_reconciled_result": "台账不动",
    "wrong_recovery_global_lookup": "不是传进来的参数 lookup",
    "wrong_key_uuid_in_checkpoint": "不是这次调用的 tool_use id",
    "wrong_reader_truncates_by_chars": "不能按字符数截",
    "wrong_reader_keeps_parseable_tail": "台账读不出来",
    "wrong_reader_strict_utf8": "UnicodeDecodeError",
    "wrong_reconcile_corrupt_ledger_as_empty": "坏了的台账不等于没有记录",
    "wrong_execute_ignores_ledger_failure": "追加 intent 失败时让异常抛出去",
    "wrong_append_swallows_oserror": "不要 try/except 把它吞掉",
    "wrong_execute_memo_in_process": "它的结果不能拿来顶替这一次",
    "wrong_reconcile_record_id_of_last_intent": "不要拿台账里最后一条 intent 的 id",
    "wrong_reconcile_reuse_first_outcome_after_intent": "不能拿它的 intent 之后的第一条",
    "wrong_execute_truncates_outcome": "要整段记下",
    "wrong_recovery_lookup_truthy": "空字符串",
    "wrong_agent_ledger_only_effects_table": "也不只是 EFFECTS 表里列出的工具",
    "wrong_append_mode_decimal_644": "八进制要写 0o644",
    "wrong_recovery_memo_by_call_id": "还给出上一次的判断",
    "wrong_reconcile_cached_records": "第二次对账同一个调用",
    "wrong_reconcile_record_skips_empty_answer": "\"\" 也是查到了",
    "wrong_recovery_memo_by_records": "服务端的回答已经变了",
    "wrong_recovery_memo_by_own_kinds": "服务端的回答已经变了",
    "wrong_reconcile_execute_unledgered": "reconcile 判成要执行时也要经",
    "wrong_key_builtin_hash": "不是这次调用的 tool_use id",
    "wrong_agent_ledger_message_id": "不是这次调用的 tool_use id",
    "wrong_append_fsync_only_on_create": "flush 之后 os.fsync",
    "wrong_append_dirsync_replaces_filesync": "flush 之后 os.fsync",
    "wrong_recovery_circuit_breaker": "你的函数没有问就下了结论",
    "wrong_append_fsync_rate_limited": "不只是进程里的第一条",
    "wrong_agent_progress_reader_torn_tail": "只写了一半的记录",
    "wrong_agent_moves_damaged_ledger_aside": "坏了的台账不等于没有记录",
    "wrong_recovery_not_found_is_error": "是模型后来另要的一次 send_email",
    "wrong_reader_latin1": "台账 outcome 里记的 output",
    "wrong_agent_dedupes_repeated_call": "这是另一次调用，幂等键是它自己的 id",
    "wrong_agent_fresh_start_clears_ledger": "台账只追加、不修改：它原有的记录一条也不能少",
    "wrong_recovery_caches_not_found": "还给出上一次的判断",
    "wrong_reader_tail_window": "台账里已经有这次调用的 outcome",
    "wrong_reader_truncate_off_by_one": "把这个换行也截掉了",
    "tamper_resend_itimer_virtual": "在解释器里留下了按 CPU 时间计时的定时器",
    "tamper_resend_input_transformer": "在解释器里留下了IPython 以后自己会调用的函数",
    "tamper_resend_meta_path": "在解释器里留下了解释器以后自己会调用的函数",
    "wrong_reconcile_reuse_notes_truncated": "整段、不截短",
    "wrong_reconcile_record_unknown_quotes_answer": "不应该标 is_error",
    "wrong_reconcile_reuse_reruns_with_note": "却又执行了",
    "wrong_agent_flags_error_anywhere": "中间提到了「错误」，开头不是",
    "wrong_reconcile_flags_error_anywhere": "工具也没有失败，tool_result 不应该标 is_error",
    "wrong_reconcile_reuse_flagged": "不应该标 is_error",
    "wrong_reconcile_unknown_unflagged": "要带 is_error: True（布尔值）",
    "wrong_agent_flag_string_on_failure": "is_error 只能是布尔值 True 或 False",
    "wrong_reconcile_flag_string_on_failure": "is_error 要是布尔值（True 或 False），你的是 true（str）",
    "wrong_append_cached_handle_no_o_append": "盖掉了别人追加的内容",
    "tamper_resend_gc_foreign_globals": "在解释器里留下了垃圾回收回调",
    "tamper_resend_task_factory": "事件循环的 task factory",
    "tamper_resend_stdout_write": "库的类或对象上换掉的方法",
    "tamper_resend_code_swap": "就地换掉了代码（__code__）的库函数",
    "wrong_append_known_ledgers_cache": "之前记下的「建过了」不再算数",
    "wrong_append_cached_handle_kept": "一直开着的句柄还指向删掉的那个文件",
    "wrong_append_logging_handler_kept": "一直开着的句柄还指向删掉的那个文件",
    "wrong_recovery_reverses_records": "不应该修改传进来的检查点或台账记录",
    "wrong_execute_intent_minimal": "intent 记录要写下这次调用的 name 和 input",
    "wrong_agent_own_ledger_name": "不是检查点旁边的台账",
    "wrong_execute_outcome_skips_empty": "空的输出也是确定的结果",
    "wrong_execute_skips_outcome_when_already_delivered": "之前已经送达",
    "wrong_execute_outcome_under_result": "\"output\" 字段",
    "wrong_quiz_letter_with_its_words": "只写选项的字母",
    "wrong_agent_saves_on_interrupt": "中断时不要再存档",
    "wrong_agent_clears_pending_before_reconcile": "pendingToolUse 要留到 reconcile 补上结果之后",
    "wrong_reconcile_saves_default": "存档由 run_agent 在对账之后做",
    "wrong_agent_reconcile_inside_loop": "也要对账、存档",
    "tamper_resend_native_thread": "留下的线程 3 秒后还在运行",
    "wrong_execute_finally_outcome": "不要在 finally 或 except BaseException 里记一条「错误」outcome",
}


def test_the_lesson_is_worth_25_points():
    assert sum(FULL.values()) == 25
