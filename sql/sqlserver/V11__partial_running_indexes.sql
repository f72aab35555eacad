-- Port of sql/postgresql/V11__partial_running_indexes.sql: filtered indexes for the rows the
-- recovery sweep, the drain and a workflow instance's reads name literally (status = 'running',
-- workflow_instance_id IS NOT NULL), so a finished or plain episode costs fewer index entries.
-- The queries spell the filter as a literal, which is what lets SQL Server match a filtered index.
DROP INDEX ix_cyclium_episodes_env_status ON cyclium_episodes;
CREATE INDEX ix_cyclium_episodes_env_status ON cyclium_episodes (source_env, status) WHERE status = 'running';
DROP INDEX ix_cyclium_episodes_run_node ON cyclium_episodes;
CREATE INDEX ix_cyclium_episodes_run_node ON cyclium_episodes (run_node, status) WHERE status = 'running';
DROP INDEX ix_cyclium_episodes_workflow ON cyclium_episodes;
CREATE INDEX ix_cyclium_episodes_workflow ON cyclium_episodes (workflow_instance_id) WHERE workflow_instance_id IS NOT NULL;
