-- Persisted retries of plain episodes (an @Expectation with a retry policy). A failed episode with
-- attempts left gets retry_due_at: the time its next attempt is due, in a column so a restart, a
-- drain or a dead node never drops it. Every full node's timer claims due rows with a state-checked
-- UPDATE and starts the next attempt as a new episode whose dedupe key is deterministic
-- (retry:<first episode>:<attempt>), so two nodes never both start it. The failed row keeps its own
-- dedupe key (terminal rows hold it until archived). retried_by is the episode that retried this one
-- (the attempt number and first episode of a chain are read from the retry key).
ALTER TABLE cyclium_episodes ADD COLUMN retry_due_at TIMESTAMP(6);
ALTER TABLE cyclium_episodes ADD COLUMN retried_by VARCHAR(36);
-- partial: the write path of every other episode pays nothing for it
CREATE INDEX ix_cyclium_episodes_retry_due ON cyclium_episodes (retry_due_at) WHERE retry_due_at IS NOT NULL;
