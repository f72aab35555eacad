-- Port of sql/postgresql/V23__partial_list_indexes.sql, in part: retention's purge spells its
-- filter literally ("archived_at IS NOT NULL AND archived_at < ?"), which lets SQL Server match a
-- filtered index, so (archived_at, id) keeps the archived rows only and a finish no longer adds an
-- entry to it. The stack and env list indexes stay whole here: their reads compare with a bound
-- value, and SQL Server may cache a plan for such a statement that cannot use a filtered index.
DROP INDEX ix_cyclium_episodes_archived ON cyclium_episodes;
CREATE INDEX ix_cyclium_episodes_archived ON cyclium_episodes (archived_at, id) WHERE archived_at IS NOT NULL;
