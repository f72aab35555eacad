-- Issue 35 (what a limit costs when none binds, and the write path under it): an episode is
-- inserted and finished by a non-HOT UPDATE (status is indexed), so each write adds an entry to
-- every index whose predicate the row meets: 12 at the insert and 10 at the finish since V11. From
-- 20 firing threads the finish cost 76 us a call in one round and 667 us in the next, on CPU, with
-- no lock waits: each entry is a leaf page to find, dirty and log, and a leaf full of old versions
-- to clean up first. Three indexes hold rows their reads can never ask for:
-- - (archived_at, id): retention's purge reads "archived_at IS NOT NULL AND archived_at < ?", so it
--   needs the archived rows only; an episode enters it once, when it is archived;
-- - (source_stack, started_at, id) and (source_env, started_at, id): the episode list filtered by a
--   stack or an env, "source_stack = ?", which implies NOT NULL; a node with no stack or env stores
--   NULL, and the list's "no stack" filter (IS NULL) reads the unfiltered (started_at, id) index.
-- A plain episode on a node without stack and env then costs 9 entries at the insert and 7 at the
-- finish. Same names and columns as on the other databases; PartialIndexPlanTest reads the plans.
DROP INDEX ix_cyclium_episodes_archived;
CREATE INDEX ix_cyclium_episodes_archived ON cyclium_episodes (archived_at, id) WHERE archived_at IS NOT NULL;
DROP INDEX ix_cyclium_episodes_stack_list;
CREATE INDEX ix_cyclium_episodes_stack_list ON cyclium_episodes (source_stack, started_at, id) WHERE source_stack IS NOT NULL;
DROP INDEX ix_cyclium_episodes_env_list;
CREATE INDEX ix_cyclium_episodes_env_list ON cyclium_episodes (source_env, started_at, id) WHERE source_env IS NOT NULL;
