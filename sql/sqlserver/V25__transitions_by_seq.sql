-- Port of sql/postgresql/V25__transitions_by_seq.sql: an instance's transitions indexed by their
-- number, so its last number is one index entry.
CREATE INDEX ix_cyclium_wf_transitions_seq ON cyclium_workflow_transitions (instance_id, seq);
DROP INDEX ix_cyclium_wf_transitions_instance ON cyclium_workflow_transitions;
