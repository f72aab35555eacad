-- Issue 35 (priorities and starvation bounded, across nodes): a node whose queued work found a
-- cluster-wide limit full says so here, one row per limit and node: the rank of its best waiting
-- entry (priority, aged, then age: higher goes first) and when it last tried, on the database
-- clock. A node about to admit queued work under that limit lets a better-ranked waiter of another
-- node go first (it leaves the freed slot to that node's next pass) instead of taking every slot
-- its own backlog frees. A row counts while seen_at is recent (the waiter's passes refresh it);
-- the waiter deletes it once it has admitted work under the limit, and rows of a node that died
-- stop counting by themselves. Only episodes under a cluster-wide limit that was full touch it.
CREATE TABLE cyclium_concurrency_waiters (
    scope           NVARCHAR(255) NOT NULL,
    concurrency_key NVARCHAR(255) NOT NULL,
    node_identity   NVARCHAR(255) NOT NULL,
    queue_rank      BIGINT       NOT NULL,
    seen_at         DATETIME2(6) NOT NULL,
    PRIMARY KEY NONCLUSTERED (scope, concurrency_key, node_identity)
);
