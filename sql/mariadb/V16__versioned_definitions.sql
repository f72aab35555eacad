-- Versioned workflow definitions (issue 34). Every change of a definition's document (a PUT with
-- a different document, a deploy whose @Workflow declaration differs) stores the new document as
-- the next row of cyclium_workflow_definition_versions, which is never updated afterwards; an
-- unchanged document stores none. cyclium_workflow_definitions.document_version names the newest
-- (the row's document is that version's copy, what new instances start with); its "version" (V14)
-- stays the cache stamp every write raises, enable/disable included. An instance records the
-- definition version it started with (definition_version) and runs it to the end: advancement,
-- retries and reconcile read that version, so a step removed or renamed later does not strand it.
-- Every stored definition becomes version 1, and every existing instance runs version 1.
ALTER TABLE cyclium_workflow_definitions ADD COLUMN document_version BIGINT DEFAULT 1 NOT NULL;
ALTER TABLE cyclium_workflow_instances ADD COLUMN definition_version BIGINT DEFAULT 1 NOT NULL;
CREATE TABLE cyclium_workflow_definition_versions (
    workflow_id      VARCHAR(255) NOT NULL,
    version          BIGINT       NOT NULL,
    document         LONGTEXT NOT NULL,
    origin           VARCHAR(16)  NOT NULL,
    created_at       DATETIME(6) NOT NULL,
    PRIMARY KEY (workflow_id, version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
INSERT INTO cyclium_workflow_definition_versions (workflow_id, version, document, origin, created_at)
    SELECT workflow_id, 1, document, origin, updated_at FROM cyclium_workflow_definitions WHERE document IS NOT NULL;

-- Versioned expectations (issue 34): the version of its expectation an episode started with
-- (@Expectation(version); NULL when unversioned), and why recovery leaves an orphaned episode
-- waiting: the nodes that swept it deploy another version, and resuming its checkpoints on other
-- code is not safe. A node that deploys that version claims it (and clears the reason).
ALTER TABLE cyclium_episodes ADD COLUMN expectation_version VARCHAR(64);
ALTER TABLE cyclium_episodes ADD COLUMN recovery_waiting VARCHAR(512);
