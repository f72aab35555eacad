-- SQL Server port of sql/h2/V7__workflows.sql (filtered unique index for the in-flight rule).
-- Workflows (io.cyclium.workflow): a DAG of steps, each step run as an episode.
-- The definition keeps its whole JSON document (the V1 columns stay as a summary: trigger and
-- steps) and where it came from: 'code' (a @Workflow class, re-written at every deploy) or 'api'.
ALTER TABLE cyclium_workflow_definitions ADD document NVARCHAR(MAX);
ALTER TABLE cyclium_workflow_definitions ADD origin NVARCHAR(16) NOT NULL DEFAULT N'api';

-- An instance is one run of a definition (its id is the run id). target_step is the outcome asked
-- for (NULL = the whole DAG). The statistics are written once, by the transition to a terminal
-- status. version makes every instance transition a compare-and-set.
ALTER TABLE cyclium_workflow_instances ADD target_step NVARCHAR(255);
ALTER TABLE cyclium_workflow_instances ADD blocked_reason NVARCHAR(512);
ALTER TABLE cyclium_workflow_instances ADD error_detail NVARCHAR(MAX);
ALTER TABLE cyclium_workflow_instances ADD duration_ms BIGINT;
ALTER TABLE cyclium_workflow_instances ADD steps_run INTEGER;
ALTER TABLE cyclium_workflow_instances ADD attempts_total INTEGER;
ALTER TABLE cyclium_workflow_instances ADD retries_total INTEGER;
ALTER TABLE cyclium_workflow_instances ADD critical_path NVARCHAR(MAX);
ALTER TABLE cyclium_workflow_instances ADD stats NVARCHAR(MAX);
-- At most one instance in flight (pending, running, blocked) per (workflow, subject) across the
-- cluster: a filtered unique index (H2 uses a generated in_flight_key column instead).
-- 510 + 1024 = 1534 bytes: under the 1700-byte nonclustered limit.
CREATE UNIQUE NONCLUSTERED INDEX ux_cyclium_wf_instances_in_flight ON cyclium_workflow_instances (workflow_id, subject_value)
    WHERE status IN ('pending', 'running', 'blocked');
CREATE INDEX ix_cyclium_wf_instances_wf_started ON cyclium_workflow_instances (workflow_id, started_at, id);
CREATE INDEX ix_cyclium_wf_instances_started ON cyclium_workflow_instances (started_at, id);

-- One row per step of an instance (only the steps the instance needs: an outcome schedules its
-- target and exactly its transitive dependencies). state: pending, queued, running, completed,
-- failed. A failed step with next_attempt_at set waits for a retry; the time is a column so a
-- restart, a drain or a dead node never loses it: any full node's retry timer claims it with a
-- state- and attempt-checked UPDATE. episode_id is the episode of the current attempt, whose
-- dedupe key is workflow:<instance>:<step>:<attempt> (so two engines cannot start it twice).
CREATE TABLE cyclium_workflow_steps (
    instance_id      NVARCHAR(36)  NOT NULL,
    step_id          NVARCHAR(255) NOT NULL,
    state            NVARCHAR(16)  NOT NULL,
    attempt          INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER      NOT NULL DEFAULT 1,
    critical         BIT          NOT NULL DEFAULT 1,
    next_attempt_at  DATETIME2(6),
    approved_at      DATETIME2(6),
    approved_by      NVARCHAR(255),
    episode_id       NVARCHAR(36),
    queued_at        DATETIME2(6),
    started_at       DATETIME2(6),
    finished_at      DATETIME2(6),
    run_ms           BIGINT NOT NULL DEFAULT 0,
    error_class      NVARCHAR(128),
    error_detail     NVARCHAR(MAX),
    version          BIGINT NOT NULL DEFAULT 0,
    updated_at       DATETIME2(6) NOT NULL,
    PRIMARY KEY (instance_id, step_id),
    CONSTRAINT fk_cyclium_wf_steps_instance FOREIGN KEY (instance_id)
        REFERENCES cyclium_workflow_instances (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_wf_steps_retry ON cyclium_workflow_steps (state, next_attempt_at);
CREATE INDEX ix_cyclium_wf_steps_episode ON cyclium_workflow_steps (episode_id);

-- Every transition of an instance (step_id NULL) or of one of its steps, with its time, the node
-- that made it and why. Written in the same transaction as the guarded UPDATE it records, so the
-- journal never shows a transition that lost its race. seq orders entries of one instance that share
-- a time (one more than the largest so far; two racing writers may tie, which only affects display).
CREATE TABLE cyclium_workflow_transitions (
    id              NVARCHAR(36)  NOT NULL PRIMARY KEY,
    instance_id     NVARCHAR(36)  NOT NULL,
    step_id         NVARCHAR(255),
    from_state      NVARCHAR(16),
    to_state        NVARCHAR(16)  NOT NULL,
    attempt         INTEGER,
    seq             BIGINT       NOT NULL DEFAULT 0,
    node_identity   NVARCHAR(255) NOT NULL,
    cause           NVARCHAR(1024),
    created_at      DATETIME2(6) NOT NULL,
    CONSTRAINT fk_cyclium_wf_transitions_instance FOREIGN KEY (instance_id)
        REFERENCES cyclium_workflow_instances (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_wf_transitions_instance ON cyclium_workflow_transitions (instance_id, created_at);
