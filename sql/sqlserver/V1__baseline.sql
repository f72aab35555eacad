-- Cyclium baseline schema, Microsoft SQL Server 2016 or later (T-SQL).
-- Port of sql/h2/V1__baseline.sql: the same tables, columns, keys and indexes, with two
-- deliberate differences. SQL Server has filtered indexes, so the two "unique among the rows
-- that are still live" rules are filtered unique indexes instead of the generated helper columns
-- H2 needs: cyclium_episodes.active_dedupe_key and cyclium_findings.unique_key do not exist here.
-- NOT RUN AGAINST A SERVER: this file was reviewed on paper only.
--
-- Identifiers are UUID strings minted by the application, so an insert never needs a
-- generated-key round trip. Lease arithmetic happens in SQL on the database clock, never on a
-- node's clock.
--
-- Vendor notes that shape every table below:
-- * Strings are NVARCHAR (2 bytes a character), CLOBs NVARCHAR(MAX), times DATETIME2(6)
--   (microseconds, no time zone), BOOLEAN is BIT, DOUBLE PRECISION is FLOAT (= FLOAT(53)).
-- * Index key limits: 900 bytes for a clustered index, 1700 bytes for a nonclustered one.
--   NVARCHAR(512) is 1024 bytes, so every index on a 512-character key is NONCLUSTERED (the
--   default for UNIQUE and CREATE INDEX; stated explicitly on cyclium_work_claims' primary key,
--   which would otherwise be clustered and refuse keys over 450 characters). The widest keys:
--   findings (finding_key, status, env) = 1024 + 64 + 256 = 1344 bytes; workflow instances
--   (workflow_id, subject_value) = 510 + 1024 = 1534 bytes. Both fit under 1700.
-- * Filtered indexes require the session options SQL Server's JDBC driver sets by default
--   (ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING ... ON) for every INSERT/UPDATE on these tables.
-- * Comparisons follow the database collation. The usual default (SQL_Latin1_General_CP1_CI_AS)
--   is case-insensitive, which would make 'Key' and 'key' the same dedupe key, while H2,
--   PostgreSQL and MariaDB (utf8mb4_nopad_bin) keep them apart: create the database with a
--   case-sensitive collation (for example Latin1_General_100_CS_AS_SC_UTF8). SQL Server always
--   ignores trailing spaces when comparing strings, so keys must not rely on them.

CREATE TABLE cyclium_nodes (
    node_identity   NVARCHAR(255) NOT NULL PRIMARY KEY,
    mode            NVARCHAR(32)  NOT NULL,
    stack_slug      NVARCHAR(128),
    env             NVARCHAR(128),
    host_info       NVARCHAR(512),
    started_at      DATETIME2(6)  NOT NULL,
    last_seen       DATETIME2(6)  NOT NULL,
    stopped_at      DATETIME2(6)
);

CREATE TABLE cyclium_episodes (
    id                   NVARCHAR(36)  NOT NULL PRIMARY KEY,
    actor_id             NVARCHAR(255) NOT NULL,
    expectation_id       NVARCHAR(255) NOT NULL,
    spec_rev             NVARCHAR(64),
    trigger_type         NVARCHAR(32)  NOT NULL,
    trigger_ref          NVARCHAR(MAX),
    dedupe_key           NVARCHAR(512),
    status               NVARCHAR(32)  NOT NULL,
    phase                NVARCHAR(64),
    mode                 NVARCHAR(32)  NOT NULL DEFAULT N'live',
    attempts             INT           NOT NULL DEFAULT 0,
    max_attempts         INT           NOT NULL DEFAULT 3,
    turns_used           INT           NOT NULL DEFAULT 0,
    budget               NVARCHAR(MAX),
    run_node             NVARCHAR(255),
    cancel_requested     BIT           NOT NULL DEFAULT 0,
    summary              NVARCHAR(MAX),
    error_class          NVARCHAR(128),
    error_detail         NVARCHAR(MAX),
    workflow_instance_id NVARCHAR(36),
    workflow_step_id     NVARCHAR(255),
    source_stack         NVARCHAR(128),
    source_env           NVARCHAR(128),
    metadata             NVARCHAR(MAX),
    queued_at            DATETIME2(6),
    started_at           DATETIME2(6)  NOT NULL,
    finished_at          DATETIME2(6),
    archived_at          DATETIME2(6),
    updated_at           DATETIME2(6)  NOT NULL
);
-- At most one live (not archived) episode per dedupe key. Two nodes that race to start the same
-- work both try the INSERT; the index lets exactly one win and the loser gets a duplicate-key
-- error (2601) instead of a silent twin. Archived rows and rows without a key fall outside the
-- filter, so history may repeat a key, and un-archiving a row whose key is live again is refused.
-- dedupe_key is 1024 bytes: nonclustered limit 1700.
CREATE UNIQUE NONCLUSTERED INDEX ux_cyclium_episodes_active_dedupe ON cyclium_episodes (dedupe_key)
    WHERE dedupe_key IS NOT NULL AND archived_at IS NULL;
CREATE INDEX ix_cyclium_episodes_actor_exp ON cyclium_episodes (actor_id, expectation_id);
CREATE INDEX ix_cyclium_episodes_status ON cyclium_episodes (status, started_at);
CREATE INDEX ix_cyclium_episodes_stack_status ON cyclium_episodes (source_stack, status);
CREATE INDEX ix_cyclium_episodes_env_status ON cyclium_episodes (source_env, status);
CREATE INDEX ix_cyclium_episodes_run_node ON cyclium_episodes (run_node, status);
CREATE INDEX ix_cyclium_episodes_workflow ON cyclium_episodes (workflow_instance_id);
CREATE INDEX ix_cyclium_episodes_started ON cyclium_episodes (started_at, id);

-- The step journal. (episode_id, step_no) is the key: two writers on one episode (a node that
-- lost its lease and the thief) cannot both journal the same step.
CREATE TABLE cyclium_episode_steps (
    episode_id       NVARCHAR(36)  NOT NULL,
    step_no          INT           NOT NULL,
    kind             NVARCHAR(64)  NOT NULL,
    node_identity    NVARCHAR(255),
    detail           NVARCHAR(MAX),
    error_class      NVARCHAR(128),
    side_effect_key  NVARCHAR(512),
    cost_ms          BIGINT,
    created_at       DATETIME2(6)  NOT NULL,
    PRIMARY KEY (episode_id, step_no),
    CONSTRAINT fk_cyclium_steps_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_steps_created ON cyclium_episode_steps (created_at);

CREATE TABLE cyclium_episode_checkpoints (
    episode_id      NVARCHAR(36)  NOT NULL,
    checkpoint_no   INT           NOT NULL,
    phase           NVARCHAR(128) NOT NULL,
    schema_version  INT           NOT NULL,
    state           NVARCHAR(MAX) NOT NULL,
    created_at      DATETIME2(6)  NOT NULL,
    PRIMARY KEY (episode_id, checkpoint_no),
    CONSTRAINT fk_cyclium_checkpoints_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);

CREATE TABLE cyclium_findings (
    id                    NVARCHAR(36)  NOT NULL PRIMARY KEY,
    finding_key           NVARCHAR(512) NOT NULL,
    env                   NVARCHAR(128),
    status                NVARCHAR(32)  NOT NULL,
    finding_class         NVARCHAR(128) NOT NULL,
    severity              NVARCHAR(16)  NOT NULL,
    actor_id              NVARCHAR(255) NOT NULL,
    expectation_id        NVARCHAR(255),
    subject_kind          NVARCHAR(128),
    subject_id            NVARCHAR(255),
    summary               NVARCHAR(MAX),
    evidence              NVARCHAR(MAX),
    confidence            FLOAT,
    caused_by_key         NVARCHAR(512),
    raised_by_episode_id  NVARCHAR(36)  NOT NULL,
    cleared_by_episode_id NVARCHAR(36),
    raised_at             DATETIME2(6)  NOT NULL,
    updated_at            DATETIME2(6)  NOT NULL,
    cleared_at            DATETIME2(6),
    expires_at            DATETIME2(6),
    archived_at           DATETIME2(6)
);
-- One row per (finding_key, status, env) among the rows that are not superseded, so two episodes
-- that raise the same finding at once cannot both insert it; superseded rows are history and
-- never collide. env NULL is "no env" and must collide with itself: a SQL Server unique index
-- treats NULLs as equal, so no COALESCE is needed (unlike PostgreSQL). Note that env '' and env
-- NULL are therefore two different keys here, whereas H2, PostgreSQL and MariaDB fold them into
-- one: the application should store "no env" as NULL only. Key = 1344 bytes: under 1700.
CREATE UNIQUE NONCLUSTERED INDEX ux_cyclium_findings_key_status_env
    ON cyclium_findings (finding_key, status, env)
    WHERE status <> N'superseded';
CREATE INDEX ix_cyclium_findings_status_class ON cyclium_findings (status, finding_class);
CREATE INDEX ix_cyclium_findings_subject ON cyclium_findings (subject_kind, subject_id, status);
CREATE INDEX ix_cyclium_findings_expires ON cyclium_findings (expires_at);
CREATE INDEX ix_cyclium_findings_env_status ON cyclium_findings (env, status);

CREATE TABLE cyclium_outputs (
    id             NVARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id     NVARCHAR(36)  NOT NULL,
    output_type    NVARCHAR(128) NOT NULL,
    dedupe_key     NVARCHAR(512) NOT NULL,
    status         NVARCHAR(32)  NOT NULL,
    payload        NVARCHAR(MAX),
    delivered_ref  NVARCHAR(MAX),
    error_class    NVARCHAR(128),
    error_detail   NVARCHAR(MAX),
    attempts       INT           NOT NULL DEFAULT 0,
    created_at     DATETIME2(6)  NOT NULL,
    updated_at     DATETIME2(6)  NOT NULL,
    delivered_at   DATETIME2(6),
    -- an output is delivered at most once per key, even when two attempts of an episode race
    -- (a UNIQUE constraint is nonclustered by default: 1024 bytes, under 1700)
    CONSTRAINT ux_cyclium_outputs_dedupe UNIQUE NONCLUSTERED (dedupe_key),
    CONSTRAINT fk_cyclium_outputs_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_outputs_episode ON cyclium_outputs (episode_id);
CREATE INDEX ix_cyclium_outputs_status ON cyclium_outputs (status);

-- Leases. A missing row, a live 'claimed' row, an expired 'claimed' row, 'done' and 'failed'
-- are the states every guard re-states in its WHERE clause. fence never goes down.
-- The primary key on dedupe_key is what makes the first claim atomic: concurrent INSERTs of a
-- missing row cannot both succeed. It must be NONCLUSTERED: as the default clustered key the
-- 1024-byte NVARCHAR(512) would exceed the 900-byte clustered limit (the table is a heap).
CREATE TABLE cyclium_work_claims (
    dedupe_key         NVARCHAR(512) NOT NULL,
    state              NVARCHAR(32)  NOT NULL,
    owner_node         NVARCHAR(255) NOT NULL,
    lease_until        DATETIME2(6)  NOT NULL,
    claimed_at         DATETIME2(6)  NOT NULL,
    last_heartbeat_at  DATETIME2(6),
    finished_at        DATETIME2(6),
    attempt            INT           NOT NULL DEFAULT 1,
    fence              BIGINT        NOT NULL DEFAULT 1,
    work_type          NVARCHAR(64)  NOT NULL,
    error_detail       NVARCHAR(MAX),
    CONSTRAINT pk_cyclium_work_claims PRIMARY KEY NONCLUSTERED (dedupe_key)
);
CREATE INDEX ix_cyclium_claims_state_lease ON cyclium_work_claims (state, lease_until);
CREATE INDEX ix_cyclium_claims_owner_state ON cyclium_work_claims (owner_node, state);

CREATE TABLE cyclium_trigger_requests (
    id              NVARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id      NVARCHAR(36)  NOT NULL,
    actor_id        NVARCHAR(255) NOT NULL,
    expectation_id  NVARCHAR(255) NOT NULL,
    source_node     NVARCHAR(255) NOT NULL,
    source_stack    NVARCHAR(128),
    source_env      NVARCHAR(128),
    status          NVARCHAR(32)  NOT NULL,
    opts            NVARCHAR(MAX),
    claimed_by      NVARCHAR(255),
    claimed_at      DATETIME2(6),
    inserted_at     DATETIME2(6)  NOT NULL,
    updated_at      DATETIME2(6)  NOT NULL,
    CONSTRAINT fk_cyclium_requests_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_requests_status_env ON cyclium_trigger_requests (status, source_env, inserted_at);
CREATE INDEX ix_cyclium_requests_status ON cyclium_trigger_requests (status, inserted_at);
CREATE INDEX ix_cyclium_requests_episode ON cyclium_trigger_requests (episode_id);

-- Actors defined as data (policy lookup for recovery, dynamic actors later).
CREATE TABLE cyclium_actor_definitions (
    actor_id         NVARCHAR(255) NOT NULL PRIMARY KEY,
    recovery_policy  NVARCHAR(32),
    config           NVARCHAR(MAX),
    enabled          BIT           NOT NULL DEFAULT 1,
    created_at       DATETIME2(6)  NOT NULL,
    updated_at       DATETIME2(6)  NOT NULL
);

CREATE TABLE cyclium_workflow_definitions (
    workflow_id       NVARCHAR(255) NOT NULL PRIMARY KEY,
    trigger_type      NVARCHAR(32)  NOT NULL,
    trigger_event     NVARCHAR(255),
    steps             NVARCHAR(MAX) NOT NULL,
    failure_policies  NVARCHAR(MAX),
    enabled           BIT           NOT NULL DEFAULT 1,
    created_at        DATETIME2(6)  NOT NULL,
    updated_at        DATETIME2(6)  NOT NULL
);

-- version makes every advance a compare-and-set: UPDATE ... WHERE id = ? AND version = ?.
CREATE TABLE cyclium_workflow_instances (
    id             NVARCHAR(36)  NOT NULL PRIMARY KEY,
    workflow_id    NVARCHAR(255) NOT NULL,
    status         NVARCHAR(32)  NOT NULL,
    step_states    NVARCHAR(MAX) NOT NULL,
    trigger_ref    NVARCHAR(MAX),
    subject_value  NVARCHAR(512) NOT NULL DEFAULT N'_',
    source_stack   NVARCHAR(128),
    source_env     NVARCHAR(128),
    version        BIGINT        NOT NULL DEFAULT 0,
    started_at     DATETIME2(6)  NOT NULL,
    finished_at    DATETIME2(6),
    updated_at     DATETIME2(6)  NOT NULL
);
CREATE INDEX ix_cyclium_wf_instances_status ON cyclium_workflow_instances (status);
-- 510 + 1024 = 1534 bytes: under the 1700-byte nonclustered limit
CREATE INDEX ix_cyclium_wf_instances_wf_subject ON cyclium_workflow_instances (workflow_id, subject_value);
CREATE INDEX ix_cyclium_wf_instances_stack_status ON cyclium_workflow_instances (source_stack, status);
CREATE INDEX ix_cyclium_wf_instances_env_status ON cyclium_workflow_instances (source_env, status);
