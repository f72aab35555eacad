-- Issue 35, kept in step with the other databases' versions: PostgreSQL makes three indexes of
-- cyclium_episodes partial (sql/postgresql/V23__partial_list_indexes.sql), SQL Server one. This
-- database has no partial indexes, so its indexes stay as they are and this version changes nothing.
SELECT 1;
