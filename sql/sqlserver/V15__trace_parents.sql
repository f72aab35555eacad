-- (SQL Server port of sql/h2/V15__trace_parents.sql.)
-- OpenTelemetry traces across nodes (otel.sdk.disabled=false). trace_parent is the W3C traceparent
-- (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, 55 characters) that a run of the row is
-- started under: on an episode, the span of the event, trigger or workflow instance that stored it,
-- so every run of it, on any node, resumed or recovered, lands in that one trace; on a workflow
-- instance, the instance's span, the parent of its steps' episodes; on a subject's debounced
-- trigger, the span of the window's last event, the parent of the episode it fires on any node.
-- Written with the row's INSERT (no extra statement) and only read by the node that runs or fires
-- it; NULL when tracing was off.
ALTER TABLE cyclium_episodes ADD trace_parent NVARCHAR(55);
ALTER TABLE cyclium_workflow_instances ADD trace_parent NVARCHAR(55);
ALTER TABLE cyclium_debounced_triggers ADD trace_parent NVARCHAR(55);
