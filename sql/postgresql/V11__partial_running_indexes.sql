-- Issue 13: every index of cyclium_episodes gets an entry for each inserted row and again for each
-- terminal UPDATE (status is indexed, so no finish is a HOT update). Three of them serve only
-- queries that name their rows literally, so they keep only those rows:
-- - (source_env, status): the recovery sweep, "status = 'running' AND source_env = ?" (IS NULL
--   for no env), on every full node every second or so;
-- - (run_node, status): the drain and the heartbeat's cancel relay, "run_node = ? AND status =
--   'running'";
-- - (workflow_instance_id): a workflow instance's step episodes, "workflow_instance_id = ?", which
--   implies NOT NULL; a plain episode has none.
-- A finished episode then leaves the first two, and a plain one never enters the third: two to
-- three fewer index entries per episode. Same names and columns as on the other databases (which
-- have no partial indexes: their V11 changes nothing). Plans: docs/bench/episode-indexes.md and
-- PartialIndexPlanTest.
DROP INDEX ix_cyclium_episodes_env_status;
CREATE INDEX ix_cyclium_episodes_env_status ON cyclium_episodes (source_env, status) WHERE status = 'running';
DROP INDEX ix_cyclium_episodes_run_node;
CREATE INDEX ix_cyclium_episodes_run_node ON cyclium_episodes (run_node, status) WHERE status = 'running';
DROP INDEX ix_cyclium_episodes_workflow;
CREATE INDEX ix_cyclium_episodes_workflow ON cyclium_episodes (workflow_instance_id) WHERE workflow_instance_id IS NOT NULL;
