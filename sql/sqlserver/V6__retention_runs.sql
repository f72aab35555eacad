-- Retention (io.cyclium.retention): one row per execution of the retention job, and one per step
-- of it with its counts and its own checkpoint. They live in the shared database so every node's
-- console and API show every node's runs, whatever batch job repository the server keeps.
-- run_key is unique: the timer's run of a day is '<yyyy-mm-dd>' (at most one per day across the
-- cluster, also guarded by the work claim maintenance:retention:<date>), a run started by hand is
-- 'manual:<id>'.
-- A step's checkpoint is the last key its writer handled; it is written in the same transaction
-- as that chunk's archive/purge/prune statement, so a run resumed after a kill -9 (on this node or
-- another) starts after exactly the rows already done.
CREATE TABLE cyclium_retention_runs (
    id                  NVARCHAR(36)  NOT NULL PRIMARY KEY,
    run_key             NVARCHAR(64)  NOT NULL,
    trigger_kind        NVARCHAR(16)  NOT NULL,
    requested_by        NVARCHAR(255),
    node_identity       NVARCHAR(255) NOT NULL,
    status              NVARCHAR(16)  NOT NULL,
    batch_execution_id  BIGINT,
    archive_after       NVARCHAR(32)  NOT NULL,
    purge_after         NVARCHAR(32),
    attempts            INT          DEFAULT 1 NOT NULL,
    error_detail        NVARCHAR(MAX),
    started_at          DATETIME2(6)  NOT NULL,
    ended_at            DATETIME2(6),
    updated_at          DATETIME2(6)  NOT NULL,
    CONSTRAINT ux_cyclium_retention_runs_key UNIQUE (run_key)
);
CREATE INDEX ix_cyclium_retention_runs_started ON cyclium_retention_runs (started_at);

CREATE TABLE cyclium_retention_steps (
    run_id          NVARCHAR(36)  NOT NULL,
    step_name       NVARCHAR(32)  NOT NULL,
    status          NVARCHAR(16)  NOT NULL,
    read_count      BIGINT       DEFAULT 0 NOT NULL,
    written_count   BIGINT       DEFAULT 0 NOT NULL,
    chunks          BIGINT       DEFAULT 0 NOT NULL,
    checkpoint_key  NVARCHAR(512),
    node_identity   NVARCHAR(255),
    started_at      DATETIME2(6),
    ended_at        DATETIME2(6),
    PRIMARY KEY (run_id, step_name),
    CONSTRAINT fk_cyclium_retention_steps_run FOREIGN KEY (run_id)
        REFERENCES cyclium_retention_runs (id) ON DELETE CASCADE
);

-- The archive step reads unarchived episodes in id order after its checkpoint; the purge step
-- reads archived ones. Both walk this index (archived_at leads, id follows) instead of the table.
CREATE INDEX ix_cyclium_episodes_archived ON cyclium_episodes (archived_at, id);
