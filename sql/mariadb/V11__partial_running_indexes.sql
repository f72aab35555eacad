-- Issue 13, kept in step with the other databases' versions: PostgreSQL and SQL Server make three
-- indexes of cyclium_episodes partial (sql/postgresql/V11__partial_running_indexes.sql). This
-- database has no partial indexes, so its indexes stay as they are and this version changes nothing.
SELECT 1;
