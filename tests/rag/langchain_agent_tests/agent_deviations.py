"""langchain 1.4.7's middleware tests that cannot pass against rag.agents, each with its
reason (``file::test`` under unit_tests/; a parametrised test's base name covers all its
cases). conftest.py runs them as strict xfails: reported with the reason, and an error if
one starts passing. DEVIATIONS.md groups them."""

PII = "agents/middleware/implementations/test_pii.py"
TODO = "agents/middleware/implementations/test_todo.py"
RETRY = "agents/middleware/implementations/test_tool_retry.py"
HITL = "agents/middleware/implementations/test_human_in_the_loop.py"

STREAM_TRANSFORMERS = ("PIIMiddleware redacts the state (input, output, tool results), not the stream: LangGraph "
                       "1.2's streaming protocol (stream transformers, ProtocolEvent, stream_events projections) "
                       "is not part of rag.graph, so there is no _PIIStreamTransformer and no `transformers` "
                       "attribute; tokens streamed by the model before after_model runs are not redacted")
OWN_PROMPT = ("TodoListMiddleware's default system prompt is our own wording (\"## Planning with `write_todos`...\"); "
              "LangChain's text is not copied, so a prompt starting with \"## `write_todos`\" is not produced")

TOOL_ERRORS_AS_MESSAGES = ("create_agent turns a tool error that escapes the middleware into an error ToolMessage "
                           "(the default ToolErrorMessagesMiddleware, handle_tool_errors=True); LangChain's agent "
                           "lets it end the run. create_agent(handle_tool_errors=False) raises as LangChain does")
INTERRUPTED_STEP = ("when one tool call of a reply pauses (interrupt()), the tool step runs again on resume with all "
                    "its calls; LangGraph keeps the finished sibling's result in the paused checkpoint (see ToolNode)")
NO_PARENT_COMMAND = ("ParentCommand (a subgraph sending a Command to its parent graph) is not part of rag.graph; "
                     "the placeholder raises NotImplementedError, which the retry treats as a tool failure")

PER_CALL = ("HumanInTheLoopMiddleware(interrupt_mode='per_call') (one pause per call, answers checked against a "
            "pydantic decision schema) is refused; the batched mode, LangChain's default, is supported")
PATCHED_INTERRUPT = ("the test patches 'langchain.agents.middleware.human_in_the_loop.interrupt' by name; the import "
                     "renames do not reach a string, so our middleware calls rag.graph's interrupt() outside a graph, "
                     "which refuses (the same decisions are tested through real pauses in "
                     "test_agents_middleware_builtin_parity.py)")
EDIT_OTHER_TOOL = ("an edit that switches to another tool leaves request.tool None (the tool node runs the call by its "
                   "name and answers an unknown name with an error ToolMessage); LangChain resolves the tool object "
                   "from the runtime's tools and raises ValueError for an unknown one")
ROUTING_INTERNALS = ("tests langchain's private routing function _make_tools_to_model_edge with LangGraph's ToolNode; "
                     "ours is rag.agents.middleware._build.after_tools_route over our tool node")

_STREAM_TESTS = [
    'test_block_fails_all_projections_cleanly',
    'test_block_raises_on_tool_output_pii',
    'test_block_strategy_emits_no_pii_and_run_raises',
    'test_block_strategy_installs_buffering_stream_transformer',
    'test_block_strategy_raises_on_first_pii_detection',
    'test_finalize_block_raises_on_tool_call_args_under_block',
    'test_legacy_payload_block_raises_when_tool_call_has_pii',
    'test_legacy_payload_redacts_tool_call_args',
    'test_legacy_payload_redacts_tool_message_content',
    'test_main_event_log_carries_redacted_deltas',
    'test_no_transformer_when_neither_output_nor_tool_results_apply',
    'test_reasoning_delta_block_strategy_raises',
    'test_redact_value_block_strategy_raises',
    'test_redact_value_walks_ai_message_tool_calls',
    'test_redact_value_walks_both_content_and_tool_calls',
    'test_redact_value_walks_invalid_tool_calls',
    'test_redact_value_walks_structured_message_content',
    'test_streamed_messages_projection_is_redacted',
    'test_subgraph_redaction_via_create_agent_in_tool',
    'test_tool_call_args_block_strategy_raises',
    'test_tool_call_args_redacted_end_to_end',
    'test_tool_call_delta_block_strategy_raises',
    'test_tool_output_delta_block_strategy_raises',
    'test_tool_output_redacted_end_to_end',
    'test_transformer_installed_for_tool_results_only',
    'test_transformer_registered_before_messages_transformer_on_agent',
]

DEVIATIONS: dict[str, str] = {
    **{f"{PII}::{name}": STREAM_TRANSFORMERS for name in _STREAM_TESTS},
    **{f"{RETRY}::{name}": TOOL_ERRORS_AS_MESSAGES for name in [
        "test_tool_retry_failing_tool_raises", "test_tool_retry_non_retryable_exception_reraises",
        "test_tool_retry_custom_exception_filter", "test_tool_retry_deprecated_raise_behavior"]},
    f"{RETRY}::test_tool_retry_parallel_interrupt_with_successful_sibling": INTERRUPTED_STEP,
    f"{RETRY}::test_tool_retry_reraises_graph_bubble_up": NO_PARENT_COMMAND,
    **{f"{HITL}::{name}": PER_CALL for name in [
        'test_decision_schema_rejects_a_bad_answer_with_one_error_at_the_problem[answer2-loc2-missing]',
        'test_per_call_description_factory_gets_the_graph_runtime',
        'test_per_call_edit_leaves_validation_and_injected_args_to_the_tool',
        'test_per_call_interrupt_shows_the_call_and_the_answers_it_accepts',
        'test_per_call_needs_a_tool_call_id',
        'test_per_call_pauses_once_per_gated_call_and_applies_answers_by_id',
        'test_per_call_rejects_a_bad_answer_without_saving_it',
        'test_per_call_resume_with_each_decision',
        'test_per_call_retried_tool_is_not_reviewed_again_when_hitl_wraps_retry',
        'test_per_call_same_tool_twice_routes_each_answer_to_its_own_call',
        'test_per_call_works_with_ainvoke',
    ]},
    **{f"{HITL}::{name}": PATCHED_INTERRUPT for name in [
        'test_human_in_the_loop_middleware_boolean_configs',
        'test_human_in_the_loop_middleware_default_rejection_message',
        'test_human_in_the_loop_middleware_description_as_callable',
        'test_human_in_the_loop_middleware_disallowed_action',
        'test_human_in_the_loop_middleware_edit_with_modified_args',
        'test_human_in_the_loop_middleware_interrupt_request_structure',
        'test_human_in_the_loop_middleware_mixed_auto_approved_and_interrupt',
        'test_human_in_the_loop_middleware_mixed_with_respond',
        'test_human_in_the_loop_middleware_multiple_tools_edit_responses',
        'test_human_in_the_loop_middleware_multiple_tools_mixed_responses',
        'test_human_in_the_loop_middleware_preserves_order_with_edits',
        'test_human_in_the_loop_middleware_preserves_order_with_rejections',
        'test_human_in_the_loop_middleware_preserves_tool_call_order',
        'test_human_in_the_loop_middleware_respond_disallowed',
        'test_human_in_the_loop_middleware_sequence_mismatch',
        'test_human_in_the_loop_middleware_single_tool_accept',
        'test_human_in_the_loop_middleware_single_tool_edit',
        'test_human_in_the_loop_middleware_single_tool_rejection_reason',
        'test_human_in_the_loop_middleware_single_tool_respond',
        'test_human_in_the_loop_middleware_true_allows_respond',
        'test_human_in_the_loop_middleware_unknown_response_type',
        'test_when_predicate_batch_fires_interrupt_when_true',
        'test_when_predicate_receives_correct_args',
    ]},
    f"{HITL}::test_human_in_the_loop_middleware_edit_to_unknown_tool_raises": EDIT_OTHER_TOOL,
    f"{HITL}::test_recorded_edit_survives_a_later_tightening_of_allowed_decisions": EDIT_OTHER_TOOL,
    f"{HITL}::test_return_direct_routing_keeps_calls_with_unnamed_results": ROUTING_INTERNALS,
    **{f"{TODO}::{name}": OWN_PROMPT for name in ['test_todo_middleware_on_model_call']},
}
