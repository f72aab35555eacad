-- Port of sql/h2/V5__episode_list_indexes.sql (same statements).
-- Indexes for the keyset-paged episode list (EpisodeListing) and the dashboard's per-minute
-- throughput (EpisodeThroughput). The list is newest first, ORDER BY started_at DESC, id DESC, and
-- a page after a cursor reads WHERE <filter> AND started_at <= ? AND (started_at < ? OR id < ?).
-- Each filter gets an index that leads with its column and continues with (started_at, id): the
-- database then walks the index backwards from the cursor and stops after one page, at any depth,
-- with no sort. Without them a filtered deep page sorts or filters every older row (measured at
-- 1,000,000 rows: io.cyclium.bench.EpisodeListBenchmark, figures in the README).
-- The unfiltered list and the time range use ix_cyclium_episodes_started (started_at, id) from V1.
-- Two V1 indexes are prefixes of the new ones and are replaced by them: (status, started_at) and
-- (actor_id, expectation_id). The cost: five more indexes to maintain on every episode insert.
DROP INDEX ix_cyclium_episodes_status;
DROP INDEX ix_cyclium_episodes_actor_exp;
CREATE INDEX ix_cyclium_episodes_status_list ON cyclium_episodes (status, started_at, id);
CREATE INDEX ix_cyclium_episodes_actor_exp_list ON cyclium_episodes (actor_id, expectation_id, started_at, id);
CREATE INDEX ix_cyclium_episodes_actor_list ON cyclium_episodes (actor_id, started_at, id);
CREATE INDEX ix_cyclium_episodes_exp_list ON cyclium_episodes (expectation_id, started_at, id);
CREATE INDEX ix_cyclium_episodes_stack_list ON cyclium_episodes (source_stack, started_at, id);
CREATE INDEX ix_cyclium_episodes_env_list ON cyclium_episodes (source_env, started_at, id);
-- failures per minute: failed and partially_failed rows by the time they finished
CREATE INDEX ix_cyclium_episodes_status_finished ON cyclium_episodes (status, finished_at);
