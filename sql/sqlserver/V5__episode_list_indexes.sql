-- Paper-reviewed, like V1. Port of sql/h2/V5__episode_list_indexes.sql; the widest key,
-- (actor_id or expectation_id, started_at, id), is 510 + 8 + 72 = 590 bytes: under the
-- 1700-byte nonclustered limit.
-- Indexes for the keyset-paged episode list (EpisodeListing) and the dashboard's per-minute
-- throughput (EpisodeThroughput). The list is newest first, ORDER BY started_at DESC, id DESC, and
-- a page after a cursor reads WHERE <filter> AND started_at <= ? AND (started_at < ? OR id < ?).
-- Each filter gets an index that leads with its column and continues with (started_at, id): the
-- database walks it backwards from the cursor and stops after one page, at any depth, with no
-- sort. Without them a filtered page sorts or filters every row that matches or is newer
-- (measured at 1,000,000 rows with io.cyclium.bench.EpisodeListBenchmark; figures in the README).
-- The unfiltered list and the time range use ix_cyclium_episodes_started (started_at, id) from V1.
-- actor + expectation together walk either single-column index and filter the other column;
-- there is deliberately no (actor_id, expectation_id, started_at, id) index: MariaDB reads such an
-- index as an equality lookup from the newest row of the pair down to the cursor (15,000 rows
-- for a deep page in the benchmark) instead of seeking to the cursor. For the same reason V1's
-- (actor_id, expectation_id) index goes; (status, started_at) goes because (status, started_at,
-- id) replaces it. The cost: four more indexes to maintain on every episode insert.
DROP INDEX ix_cyclium_episodes_status ON cyclium_episodes;
DROP INDEX ix_cyclium_episodes_actor_exp ON cyclium_episodes;
CREATE INDEX ix_cyclium_episodes_status_list ON cyclium_episodes (status, started_at, id);
CREATE INDEX ix_cyclium_episodes_actor_list ON cyclium_episodes (actor_id, started_at, id);
CREATE INDEX ix_cyclium_episodes_exp_list ON cyclium_episodes (expectation_id, started_at, id);
CREATE INDEX ix_cyclium_episodes_stack_list ON cyclium_episodes (source_stack, started_at, id);
CREATE INDEX ix_cyclium_episodes_env_list ON cyclium_episodes (source_env, started_at, id);
-- failures per minute: failed and partially_failed rows by the time they finished
CREATE INDEX ix_cyclium_episodes_status_finished ON cyclium_episodes (status, finished_at);
