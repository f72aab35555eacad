-- Port of sql/postgresql/V24__concurrency_waiters.sql: per cluster-wide limit and node, the rank of
-- queued work that found the limit full and when it last tried (database clock).
CREATE TABLE cyclium_concurrency_waiters (
    scope           NVARCHAR(255) NOT NULL,
    concurrency_key NVARCHAR(255) NOT NULL,
    node_identity   NVARCHAR(255) NOT NULL,
    queue_rank      BIGINT       NOT NULL,
    seen_at         DATETIME2(6) NOT NULL,
    PRIMARY KEY NONCLUSTERED (scope, concurrency_key, node_identity)
);
