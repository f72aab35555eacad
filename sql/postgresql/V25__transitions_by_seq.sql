-- Issue 34: a step's advance reads its instance, the steps and the instance's last transition
-- number (MAX(seq)) in one statement. Through (instance_id, created_at) that MAX read every
-- transition row of the instance, and its estimated cost followed the statistics of the moment:
-- with statistics taken while the table was small, the plan made for any instance looked dearer
-- than one made for a new instance's id, so PostgreSQL planned the statement anew on every call
-- (about 0.3 ms, on the group commit's one writer). Through (instance_id, seq) the MAX is the
-- last entry of one index range, one tuple whatever the estimate: the statement's prepared plan
-- is as cheap as any, and it is reused. The journal's listing (by created_at, then seq) sorts the
-- few rows of one instance; the foreign key's deletes find them by the leading column. The new
-- index comes first: MariaDB refuses to drop the only index that serves a foreign key.
CREATE INDEX ix_cyclium_wf_transitions_seq ON cyclium_workflow_transitions (instance_id, seq);
DROP INDEX ix_cyclium_wf_transitions_instance;
