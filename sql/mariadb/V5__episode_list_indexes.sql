-- Port of sql/h2/V5__episode_list_indexes.sql: the same indexes. InnoDB appends the primary key
-- (id) to every secondary index anyway; naming it keeps the index the same as on the other
-- vendors. Widest key (utf8mb4, 4 bytes a character): (actor_id or expectation_id, started_at,
-- id) = 1020 + 8 + 144 = 1172 bytes, under the 3072-byte limit.
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
ALTER TABLE cyclium_episodes
    DROP KEY ix_cyclium_episodes_status,
    DROP KEY ix_cyclium_episodes_actor_exp,
    ADD KEY ix_cyclium_episodes_status_list (status, started_at, id),
    ADD KEY ix_cyclium_episodes_actor_list (actor_id, started_at, id),
    ADD KEY ix_cyclium_episodes_exp_list (expectation_id, started_at, id),
    ADD KEY ix_cyclium_episodes_stack_list (source_stack, started_at, id),
    ADD KEY ix_cyclium_episodes_env_list (source_env, started_at, id),
    -- failures per minute: failed and partially_failed rows by the time they finished
    ADD KEY ix_cyclium_episodes_status_finished (status, finished_at);
