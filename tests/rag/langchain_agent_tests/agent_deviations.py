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

# Reasons of the second import (core middleware, summarization, tool selection, model retry and
# fallback, tool errors, structured output).
FOREIGN_MODEL = ("the test's model is built on langchain_core's own classes (GenericFakeChatModel(profile=...), a "
                 "subclass of langchain_core's BaseChatModel whose _generate returns a ChatResult of "
                 "langchain_core ChatGenerations); create_agent(middleware=...) and the middleware call our "
                 "BaseChatModel, whose _generate returns an AIMessage, has no profile field, and whose messages "
                 "langchain_core's pydantic ChatGeneration refuses")
PYDANTIC_FAKES = ("the test subclasses a fake model as a pydantic model (fields such as error_message, fail_count "
                  "or a Field(default_factory=list) declared on the class); our fake models are plain classes on "
                  "rag's BaseChatModel, so __init__ does not take those fields")
PRIVATE = ("tests a private helper of LangChain's implementation (SummarizationMiddleware._create_summary, "
           "_should_summarize, _find_safe_cutoff(_point), _trim_messages_for_summary, _get_profile_limits, "
           "_trigger_clauses...; factory._chain_model_call_handlers); ours has its own internals")
STRATEGY_INTERNALS = ("ToolStrategy.schema_specs, ProviderStrategy.schema_spec and ProviderStrategy.to_model_kwargs() "
                      "are LangChain's internal form of the schema; ours keep the schema and build the answer tool "
                      "or the OpenAI-compatible response_format in rag.models.structured")
PROVIDER_CACHE = ("ModelFallbackMiddleware passes the request to the fallback model unchanged: it does not strip or "
                  "keep provider-specific prompt-cache settings (Anthropic cache_control markers in tool `extras`, "
                  "OpenAI/Azure prompt_cache_key, Fireworks settings) when it switches provider; our tools have no "
                  "`extras`")
GRAPH_INTERRUPT_ARGS = ("the test raises `GraphInterrupt` without arguments; rag.graph's GraphInterrupt requires its "
                        "interrupts (rag.graph is not changed by this work), so the middleware sees the TypeError "
                        "instead and retries or falls back")
JSON_SCHEMA_TITLE = ("a JSON-schema response_format needs a 'title' and type 'object' (the title names the answer "
                     "tool, so the name is stable); LangChain names an untitled schema response_format_<4 random "
                     "characters> and also takes a union (oneOf) of schemas")
SUMMARY_FALLBACK = ("a failing summary model or summarizer keeps the history (a warning is logged) instead of "
                    "raising: the documented fallback of issue 40")
OWN_WORDING = ("SummarizationMiddleware refuses the same bad arguments (fraction without a profile, bad trigger or "
               "keep) with our own wording, which names the value and the fix; the test matches LangChain's text")
MERMAID = ("compares get_graph().draw_mermaid() with the sdist's syrupy snapshot, which predates LangGraph 1.2.22's "
           "'__tools = ...' line under a tool node (langchain 1.4.7 on LangGraph 1.2.22 draws it too, as ours does); "
           "and create_agent's tools -> model edge is a plain edge here, a conditional one in LangChain's")
FIXTURE = ("uses the sdist's sync_checkpointer fixture (its conftest runs LangGraph's savers over Postgres, SQLite "
           "and memory), which is not imported")
REQUEST_COPY = ("the test appends to request.messages inside wrap_model_call and expects the message in the "
                "agent's state; ours hands the middleware a copy of the state's list (use a hook's state update "
                "to change the history), so the append reaches the model only")
INJECTED_STATE = ("rag.tools offers no InjectedState annotation; the test's import falls back to LangChain's, which "
                  "our tool node does not fill, so the call misses its `state` argument")
UNDECLARED_JUMP = ("a hook returning jump_to must declare it (@hook_config(can_jump_to=[...])); ours refuses an "
                   "undeclared jump with InvalidUpdateError (issue 40: a hook that jumps where it may not is a "
                   "clear error); LangChain's graph has no edge for it, so the jump is silently ignored")
FROZEN_REQUEST = ("setting an attribute of ModelRequest directly works without LangChain's DeprecationWarning "
                  "(request.override(...) is the documented way in both)")
TOOLS_TUPLE = "a middleware's tools default to an empty tuple (immutable, shared); LangChain's is a list, so == [] fails"
SUMMARY_FORMAT = ("the test builds the expected prompt with langchain_core's get_buffer_string, which does not take "
                  "our message classes; our summary prompt lists messages as <type>text</type>")
MODEL_NAMES = ("SummarizationMiddleware(\"provider:model\") is refused (models are objects, see Behaviour); the "
               "test patches init_chat_model")
TOKEN_SCALING = ("LangChain scales the approximate token count by the model's provider (Anthropic) and keeps an "
                 "unscaled count for the cutoff; ours counts with token_counter as given (the test's model is a "
                 "MagicMock whose profile is a mock)")
STREAM_PROJECTIONS = ("LangGraph 1.2's streaming protocol (stream projections, a messages projection excluding "
                      "internal calls) is not part of rag.graph")
NO_ANTHROPIC = "the test builds ChatAnthropic (langchain-anthropic), which is not in the test extra"
TRACE_POLICY = "ToolErrorMiddleware has no trace_policy (LangChain's tracing internals that omit a hook's inputs)"

# --- core middleware, summarization, tool selection, model retry / fallback, tool errors and
# structured output (imported later; groups in DEVIATIONS.md, "The second import")

_MORE: dict[str, list[str]] = {
    'FIXTURE': [
        'agents/middleware/core/test_framework.py::test_create_agent_invoke',
        'agents/middleware/core/test_framework.py::test_create_agent_jump',
    ],
    'FOREIGN_MODEL': [
        'agents/middleware/core/test_wrap_model_call.py::test_max_attempts_limit',
        'agents/middleware/core/test_wrap_model_call.py::test_no_retry_propagates_error',
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_middleware_exhausted_with_agent',
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_middleware_with_agent',
        'agents/middleware/implementations/test_summarization.py::test_fraction_in_and_trigger',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_full_workflow_async',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_profile_inference_triggers_summary',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_token_retention_preserves_ai_tool_pairs',
        'agents/test_response_format.py::test_allows_gemini_v3_with_tools',
        'agents/test_response_format.py::test_blocks_gemini_latest_aliases[gemini-flash-latest]',
        'agents/test_response_format.py::test_blocks_gemini_latest_aliases[gemini-flash-lite-latest]',
        'agents/test_response_format.py::test_blocks_gemini_v2_with_tools',
    ],
    'FROZEN_REQUEST': [
        'agents/middleware/implementations/test_model_fallback.py::test_model_request_is_frozen',
    ],
    'GRAPH_INTERRUPT_ARGS': [
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_async_reraises_graph_bubble_up[fallback]',
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_async_reraises_graph_bubble_up[primary]',
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_reraises_graph_bubble_up[fallback]',
        'agents/middleware/implementations/test_model_fallback.py::test_model_fallback_reraises_graph_bubble_up[primary]',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_async_reraises_graph_bubble_up',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_reraises_graph_bubble_up',
    ],
    'INJECTED_STATE': [
        'agents/middleware/core/test_framework.py::test_injected_state_in_middleware_agent',
    ],
    'JSON_SCHEMA_TITLE': [
        'agents/test_response_format.py::test_autostrategy_with_anonymous_json_schema',
        'agents/test_response_format.py::test_union_of_json_schemas',
    ],
    'MERMAID': [
        'agents/middleware/core/test_framework.py::test_agent_graph_with_jump_to_end_as_after_agent',
        'agents/middleware/core/test_framework.py::test_simple_agent_graph',
    ],
    'MODEL_NAMES': [
        'agents/middleware/implementations/test_summarization.py::test_string_summarizer_is_resolved_with_init_chat_model',
    ],
    'NO_ANTHROPIC': [
        'agents/middleware/implementations/test_summarization.py::test_usage_metadata_trigger',
    ],
    'OWN_WORDING': [
        'agents/middleware/implementations/test_summarization.py::test_empty_and_condition',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_initialization',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_missing_profile',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_validation_edge_cases[keep-param_value7-Unsupported context size type]',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_validation_edge_cases[trigger-param_value6-Unsupported context size type]',
        'agents/middleware/implementations/test_summarization.py::test_trigger_validation_errors',
    ],
    'PRIVATE': [
        'agents/middleware/core/test_composition.py::test_error_to_success_conversion',
        'agents/middleware/core/test_composition.py::test_two_handlers_with_commands',
        'agents/middleware/implementations/test_summarization.py::test_acreate_summary_raises_on_failure',
        'agents/middleware/implementations/test_summarization.py::test_acreate_summary_recovers_from_context_overflow',
        'agents/middleware/implementations/test_summarization.py::test_async_summarizer_on_sync_path_raises',
        'agents/middleware/implementations/test_summarization.py::test_chat_model_summarizer_async',
        'agents/middleware/implementations/test_summarization.py::test_chat_model_summarizer_does_not_retry_non_retryable_errors',
        'agents/middleware/implementations/test_summarization.py::test_chat_model_summarizer_keeps_profile_of_model',
        'agents/middleware/implementations/test_summarization.py::test_chat_model_summarizer_overflow_budget_uses_summarizer_profile',
        'agents/middleware/implementations/test_summarization.py::test_chat_model_summarizer_uses_summary_prompt',
        'agents/middleware/implementations/test_summarization.py::test_compound_trigger_has_no_legacy_tuple_projection',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_does_not_retry_non_retryable_errors',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_passes_lc_source_metadata[async]',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_passes_lc_source_metadata[sync]',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_preserves_image_urls[async]',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_preserves_image_urls[sync]',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_raises_on_failure',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_raises_on_persistent_context_overflow',
        'agents/middleware/implementations/test_summarization.py::test_create_summary_recovers_from_context_overflow',
        'agents/middleware/implementations/test_summarization.py::test_empty_list_trigger_never_summarizes',
        'agents/middleware/implementations/test_summarization.py::test_reported_tokens_satisfy_tokens_within_and_clause',
        'agents/middleware/implementations/test_summarization.py::test_reported_tokens_trigger_for_aliased_provider[amazon_bedrock-bedrock_converse]',
        'agents/middleware/implementations/test_summarization.py::test_reported_tokens_trigger_for_aliased_provider[anthropic-mantle-anthropic]',
        'agents/middleware/implementations/test_summarization.py::test_reported_tokens_trigger_for_aliased_provider[openai-mantle-openai]',
        'agents/middleware/implementations/test_summarization.py::test_reported_tokens_trigger_for_fraction',
        'agents/middleware/implementations/test_summarization.py::test_summarization_cutoff_moves_backward_to_include_ai_message',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_async_error_handling',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_binary_search_edge_cases',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_cutoff_at_boundary',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_cutoff_at_start_of_tool_sequence',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_find_safe_cutoff_point',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_find_safe_cutoff_point_orphan_tool',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_find_safe_cutoff_preserves_ai_tool_pair',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_fraction_trigger_with_no_profile',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_helper_methods',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_many_parallel_tool_calls_safety',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_profile_edge_cases',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_retries_transient_failure_in_call',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_summary_creation',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_trim_limit_none_keeps_all_messages',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_trim_messages_error_fallback',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_zero_and_negative_target_tokens',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_accepts_runnable_and_gets_summarization_metadata',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_empty_history_skips_summarizer',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_non_str_return_raises_type_error',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_non_str_return_raises_type_error_async',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_receives_trimmed_messages',
        'agents/middleware/implementations/test_summarization.py::test_sync_summarizer_on_async_path',
        'agents/middleware/implementations/test_summarization.py::test_three_metric_and_clause',
        'agents/middleware/implementations/test_summarization.py::test_tokens_and_fraction_and_clause',
        'agents/middleware/implementations/test_summarization.py::test_trigger_clauses_are_canonical_representation',
        'agents/middleware/implementations/test_summarization.py::test_trigger_conditions_legacy_tuple_view_remove_in_2_0',
    ],
    'PROVIDER_CACHE': [
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_async',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_async[_FakeAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_async[_FakeBedrockAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_async[_FakeVertexAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_sync[_FakeAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_sync[_FakeBedrockAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_compatible_sync[_FakeVertexAnthropicModel]',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_preserves_cache_markers_for_anthropic_sync',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_removes_fireworks_cache_settings_async',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_removes_fireworks_cache_settings_sync',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_reverse_order_preserves_anthropic_markers_async',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_reverse_order_preserves_anthropic_markers_sync',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_sanitizer_error_is_not_masked_async',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_sanitizer_error_is_not_masked_sync',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_sanitizes_cache_markers_async',
        'agents/middleware/implementations/test_model_fallback.py::test_fallback_sanitizes_cache_markers_sync',
        'agents/middleware/implementations/test_model_fallback.py::test_openai_fallback_preserves_cache_key[azure-preserves-other-headers-False]',
        'agents/middleware/implementations/test_model_fallback.py::test_openai_fallback_preserves_cache_key[azure-preserves-other-headers-True]',
        'agents/middleware/implementations/test_model_fallback.py::test_openai_fallback_preserves_cache_key[openai-affinity-only-False]',
        'agents/middleware/implementations/test_model_fallback.py::test_openai_fallback_preserves_cache_key[openai-affinity-only-True]',
        'agents/middleware/implementations/test_model_fallback.py::test_sanitize_collapses_emptied_extras_to_none',
        'agents/middleware/implementations/test_model_fallback.py::test_sanitize_returns_same_request_when_no_markers',
    ],
    'PYDANTIC_FAKES': [
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_async_backoff_timing',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_async_failing_model',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_async_non_retryable_exception_reraises',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_async_succeeds_after_retries',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_backoff_timing',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_constant_backoff',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_custom_failure_formatter',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_failing_model_raises',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_failing_model_returns_message',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_non_retryable_exception_reraises',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_reraises_non_retryable_model_error',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_retries_retryable_errors[ModelRateLimitError]',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_retries_retryable_errors[ValueError]',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_succeeds_after_retries',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_zero_retries',
        'agents/middleware/implementations/test_tool_selection.py::test_awrap_model_call_marks_internal_call',
        'agents/middleware/implementations/test_tool_selection.py::test_wrap_model_call_marks_internal_call',
        'agents/test_response_format.py::test_middleware_model_swap_provider_to_tool_strategy',
        'agents/test_response_format.py::test_wrap_model_call_narrows_response_format_tools',
    ],
    'REQUEST_COPY': [
        'agents/middleware/core/test_framework.py::test_create_agent_async_invoke',
        'agents/middleware/core/test_framework.py::test_on_model_call',
        'agents/middleware/implementations/test_structured_output_retry.py::test_structured_output_retry_preserves_messages',
    ],
    'STRATEGY_INTERNALS': [
        'agents/test_responses.py::test_basic_creation',
        'agents/test_responses.py::test_multiple_schemas',
        'agents/test_responses.py::test_schema_with_tool_message_content',
        'agents/test_responses.py::test_single_schema',
        'agents/test_responses.py::test_strict',
        'agents/test_responses.py::test_to_model_kwargs',
        'agents/test_responses.py::test_to_model_kwargs_strict',
    ],
    'STREAM_PROJECTIONS': [
        'agents/middleware/implementations/test_summarization.py::test_summarization_call_excluded_from_messages_projection',
    ],
    'SUMMARY_FALLBACK': [
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_abefore_model_raises_on_summary_failure',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_before_model_raises_on_summary_failure',
        'agents/middleware/implementations/test_summarization.py::test_summarization_middleware_e2e_failure_raises_without_corrupting_history',
        'agents/middleware/implementations/test_summarization.py::test_summarizer_errors_propagate',
    ],
    'SUMMARY_FORMAT': [
        'agents/middleware/implementations/test_summarization.py::test_create_summary_uses_get_buffer_string_format',
    ],
    'TOKEN_SCALING': [
        'agents/middleware/implementations/test_summarization.py::test_summarization_adjust_token_counts',
        'agents/middleware/implementations/test_summarization.py::test_summarization_before_model_uses_unscaled_tokens_for_cutoff',
    ],
    'TOOLS_TUPLE': [
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_initialization_custom',
        'agents/middleware/implementations/test_model_retry.py::test_model_retry_initialization_defaults',
    ],
    'TOOL_ERRORS_AS_MESSAGES': [
        'agents/middleware/implementations/test_tool_error.py::test_tool_error_none_propagates',
    ],
    'TRACE_POLICY': [
        'agents/middleware/implementations/test_tool_error.py::test_trace_inputs_are_omitted',
    ],
    'UNDECLARED_JUMP': [
        'agents/middleware/core/test_framework.py::test_jump_to_is_ephemeral',
    ],
}
DEVIATIONS.update({key: globals()[group] for group, keys in _MORE.items() for key in keys})
