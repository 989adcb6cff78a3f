"""langchain 1.4.7's middleware tests that cannot pass against rag.agents, each with its
reason (``file::test`` under unit_tests/; a parametrised test's base name covers all its
cases). conftest.py runs them as strict xfails: reported with the reason, and an error if
one starts passing. DEVIATIONS.md groups them."""

PII = "agents/middleware/implementations/test_pii.py"
TODO = "agents/middleware/implementations/test_todo.py"
RETRY = "agents/middleware/implementations/test_tool_retry.py"

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
    **{f"{TODO}::{name}": OWN_PROMPT for name in ['test_todo_middleware_on_model_call']},
}
