-- Bulk actions by filter (cancel, retry, restart, output retry over the episodes a filter matches).
-- One row per accepted action; the set of targets is frozen when it is accepted: one item row per
-- episode, numbered from 1 in the list's order (newest first), never added to afterwards.
-- status: running | done. An action is processed under a lease: claimed_by/lease_until name the
-- node working on it and until when (database clock); fence rises with every claim, and an item is
-- taken only by the holder of the action's current fence, so a node whose lease lapsed (it died or
-- stalled) and the node that took the action over never work on the same item.
CREATE TABLE cyclium_bulk_actions (
    id              VARCHAR(36)   NOT NULL PRIMARY KEY,
    action          VARCHAR(32)   NOT NULL,
    filter_json     VARCHAR(4000) NOT NULL,
    status          VARCHAR(16)   NOT NULL,
    total           INTEGER       NOT NULL,
    created_by      VARCHAR(255)  NOT NULL,
    created_at      TIMESTAMP(6)  NOT NULL,
    finished_at     TIMESTAMP(6),
    claimed_by      VARCHAR(255),
    fence           BIGINT        NOT NULL,
    lease_until     TIMESTAMP(6)
);
CREATE INDEX cyclium_bulk_actions_created ON cyclium_bulk_actions (created_at, id);
-- One row per frozen target. result: pending | working (taken by the node holding fence) | done |
-- skipped | failed; reason says why it was skipped or what failed (or what was done).
CREATE TABLE cyclium_bulk_items (
    action_id       VARCHAR(36)   NOT NULL,
    item_no         INTEGER       NOT NULL,
    episode_id      VARCHAR(36)   NOT NULL,
    result          VARCHAR(16)   NOT NULL,
    fence           BIGINT        NOT NULL,
    reason          VARCHAR(1000),
    finished_at     TIMESTAMP(6),
    PRIMARY KEY (action_id, item_no)
);
CREATE INDEX cyclium_bulk_items_result ON cyclium_bulk_items (action_id, result, item_no);
