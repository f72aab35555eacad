-- Workflows (io.cyclium.workflow): a DAG of steps, each step run as an episode.
-- The definition keeps its whole JSON document (the V1 columns stay as a summary: trigger and
-- steps) and where it came from: 'code' (a @Workflow class, re-written at every deploy) or 'api'.
ALTER TABLE cyclium_workflow_definitions ADD COLUMN document CLOB;
ALTER TABLE cyclium_workflow_definitions ADD COLUMN origin VARCHAR(16) DEFAULT 'api' NOT NULL;

-- An instance is one run of a definition (its id is the run id). target_step is the outcome asked
-- for (NULL = the whole DAG). The statistics are written once, by the transition to a terminal
-- status. version makes every instance transition a compare-and-set.
ALTER TABLE cyclium_workflow_instances ADD COLUMN target_step VARCHAR(255);
ALTER TABLE cyclium_workflow_instances ADD COLUMN blocked_reason VARCHAR(512);
ALTER TABLE cyclium_workflow_instances ADD COLUMN error_detail CLOB;
ALTER TABLE cyclium_workflow_instances ADD COLUMN duration_ms BIGINT;
ALTER TABLE cyclium_workflow_instances ADD COLUMN steps_run INTEGER;
ALTER TABLE cyclium_workflow_instances ADD COLUMN attempts_total INTEGER;
ALTER TABLE cyclium_workflow_instances ADD COLUMN retries_total INTEGER;
ALTER TABLE cyclium_workflow_instances ADD COLUMN critical_path CLOB;
ALTER TABLE cyclium_workflow_instances ADD COLUMN stats CLOB;
-- At most one instance in flight (pending, running, blocked) per (workflow, subject) across the
-- cluster: two nodes starting the same workflow for the same subject both try the INSERT and the
-- unique index lets one through. H2 has no partial index, so a generated column that is NULL once
-- the instance is terminal carries the index (many NULLs are allowed). Never written by the app.
ALTER TABLE cyclium_workflow_instances ADD COLUMN in_flight_key VARCHAR(800) GENERATED ALWAYS AS
    (CASE WHEN status IN ('pending', 'running', 'blocked')
          THEN CHAR_LENGTH(workflow_id) || ':' || workflow_id || '|' || subject_value END);
CREATE UNIQUE INDEX ux_cyclium_wf_instances_in_flight ON cyclium_workflow_instances (in_flight_key);
CREATE INDEX ix_cyclium_wf_instances_wf_started ON cyclium_workflow_instances (workflow_id, started_at, id);
CREATE INDEX ix_cyclium_wf_instances_started ON cyclium_workflow_instances (started_at, id);

-- One row per step of an instance (only the steps the instance needs: an outcome schedules its
-- target and exactly its transitive dependencies). state: pending, queued, running, completed,
-- failed. A failed step with next_attempt_at set waits for a retry; the time is a column so a
-- restart, a drain or a dead node never loses it: any full node's retry timer claims it with a
-- state- and attempt-checked UPDATE. episode_id is the episode of the current attempt, whose
-- dedupe key is workflow:<instance>:<step>:<attempt> (so two engines cannot start it twice).
CREATE TABLE cyclium_workflow_steps (
    instance_id      VARCHAR(36)  NOT NULL,
    step_id          VARCHAR(255) NOT NULL,
    state            VARCHAR(16)  NOT NULL,
    attempt          INTEGER      DEFAULT 0 NOT NULL,
    max_attempts     INTEGER      DEFAULT 1 NOT NULL,
    critical         BOOLEAN      DEFAULT TRUE NOT NULL,
    next_attempt_at  TIMESTAMP(6),
    approved_at      TIMESTAMP(6),
    approved_by      VARCHAR(255),
    episode_id       VARCHAR(36),
    queued_at        TIMESTAMP(6),
    started_at       TIMESTAMP(6),
    finished_at      TIMESTAMP(6),
    run_ms           BIGINT       DEFAULT 0 NOT NULL,
    error_class      VARCHAR(128),
    error_detail     CLOB,
    version          BIGINT       DEFAULT 0 NOT NULL,
    updated_at       TIMESTAMP(6) NOT NULL,
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
    id              VARCHAR(36)  NOT NULL PRIMARY KEY,
    instance_id     VARCHAR(36)  NOT NULL,
    step_id         VARCHAR(255),
    from_state      VARCHAR(16),
    to_state        VARCHAR(16)  NOT NULL,
    attempt         INTEGER,
    seq             BIGINT       DEFAULT 0 NOT NULL,
    node_identity   VARCHAR(255) NOT NULL,
    cause           VARCHAR(1024),
    created_at      TIMESTAMP(6) NOT NULL,
    CONSTRAINT fk_cyclium_wf_transitions_instance FOREIGN KEY (instance_id)
        REFERENCES cyclium_workflow_instances (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_wf_transitions_instance ON cyclium_workflow_transitions (instance_id, created_at);
