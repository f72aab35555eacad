-- Port of sql/postgresql/V24__concurrency_waiters.sql: per cluster-wide limit and node, the rank of
-- queued work that found the limit full and when it last tried (database clock).
CREATE TABLE cyclium_concurrency_waiters (
    scope           VARCHAR(255) NOT NULL,
    concurrency_key VARCHAR(255) NOT NULL,
    node_identity   VARCHAR(255) NOT NULL,
    queue_rank      BIGINT       NOT NULL,
    seen_at         TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (scope, concurrency_key, node_identity)
);
