-- Cyclium baseline schema, H2 2.x (quick start and fast tests).
-- Identifiers are UUID strings minted by the application, so an insert never needs a
-- generated-key round trip. Times are TIMESTAMP(6); lease arithmetic happens in SQL on the
-- database clock, never on a node's clock.

CREATE TABLE cyclium_nodes (
    node_identity   VARCHAR(255) NOT NULL PRIMARY KEY,
    mode            VARCHAR(32)  NOT NULL,
    stack_slug      VARCHAR(128),
    env             VARCHAR(128),
    host_info       VARCHAR(512),
    started_at      TIMESTAMP(6) NOT NULL,
    last_seen       TIMESTAMP(6) NOT NULL,
    stopped_at      TIMESTAMP(6)
);

CREATE TABLE cyclium_episodes (
    id                   VARCHAR(36)  NOT NULL PRIMARY KEY,
    actor_id             VARCHAR(255) NOT NULL,
    expectation_id       VARCHAR(255) NOT NULL,
    spec_rev             VARCHAR(64),
    trigger_type         VARCHAR(32)  NOT NULL,
    trigger_ref          CLOB,
    dedupe_key           VARCHAR(512),
    status               VARCHAR(32)  NOT NULL,
    phase                VARCHAR(64),
    mode                 VARCHAR(32)  DEFAULT 'live' NOT NULL,
    attempts             INTEGER      DEFAULT 0 NOT NULL,
    max_attempts         INTEGER      DEFAULT 3 NOT NULL,
    turns_used           INTEGER      DEFAULT 0 NOT NULL,
    budget               CLOB,
    run_node             VARCHAR(255),
    cancel_requested     BOOLEAN      DEFAULT FALSE NOT NULL,
    summary              CLOB,
    error_class          VARCHAR(128),
    error_detail         CLOB,
    workflow_instance_id VARCHAR(36),
    workflow_step_id     VARCHAR(255),
    source_stack         VARCHAR(128),
    source_env           VARCHAR(128),
    metadata             CLOB,
    queued_at            TIMESTAMP(6),
    started_at           TIMESTAMP(6) NOT NULL,
    finished_at          TIMESTAMP(6),
    archived_at          TIMESTAMP(6),
    updated_at           TIMESTAMP(6) NOT NULL,
    -- H2 has no partial index: a generated column that is NULL unless the row is active
    -- turns "unique among active rows" into a plain unique index (many NULLs allowed).
    -- Never written by the application.
    active_dedupe_key    VARCHAR(512) GENERATED ALWAYS AS
                         (CASE WHEN archived_at IS NULL THEN dedupe_key END)
);
CREATE UNIQUE INDEX ux_cyclium_episodes_active_dedupe ON cyclium_episodes (active_dedupe_key);
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
    episode_id       VARCHAR(36)  NOT NULL,
    step_no          INTEGER      NOT NULL,
    kind             VARCHAR(64)  NOT NULL,
    node_identity    VARCHAR(255),
    detail           CLOB,
    error_class      VARCHAR(128),
    side_effect_key  VARCHAR(512),
    cost_ms          BIGINT,
    created_at       TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (episode_id, step_no),
    CONSTRAINT fk_cyclium_steps_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_steps_created ON cyclium_episode_steps (created_at);

CREATE TABLE cyclium_episode_checkpoints (
    episode_id      VARCHAR(36)  NOT NULL,
    checkpoint_no   INTEGER      NOT NULL,
    phase           VARCHAR(128) NOT NULL,
    schema_version  INTEGER      NOT NULL,
    state           CLOB         NOT NULL,
    created_at      TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (episode_id, checkpoint_no),
    CONSTRAINT fk_cyclium_checkpoints_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);

CREATE TABLE cyclium_findings (
    id                    VARCHAR(36)  NOT NULL PRIMARY KEY,
    finding_key           VARCHAR(512) NOT NULL,
    env                   VARCHAR(128),
    status                VARCHAR(32)  NOT NULL,
    finding_class         VARCHAR(128) NOT NULL,
    severity              VARCHAR(16)  NOT NULL,
    actor_id              VARCHAR(255) NOT NULL,
    expectation_id        VARCHAR(255),
    subject_kind          VARCHAR(128),
    subject_id            VARCHAR(255),
    summary               CLOB,
    evidence              CLOB,
    confidence            DOUBLE PRECISION,
    caused_by_key         VARCHAR(512),
    raised_by_episode_id  VARCHAR(36)  NOT NULL,
    cleared_by_episode_id VARCHAR(36),
    raised_at             TIMESTAMP(6) NOT NULL,
    updated_at            TIMESTAMP(6) NOT NULL,
    cleared_at            TIMESTAMP(6),
    expires_at            TIMESTAMP(6),
    archived_at           TIMESTAMP(6),
    -- one row per (finding_key, status, env) among rows that are not superseded; env NULL is the
    -- unset env and must collide with itself, hence the COALESCE into the generated key. The
    -- length prefixes keep a '|' inside a key from making two different rows spell the same text.
    unique_key            VARCHAR(840) GENERATED ALWAYS AS
                          (CASE WHEN status <> 'superseded'
                                THEN CHAR_LENGTH(finding_key) || ':' || finding_key || '|'
                                     || CHAR_LENGTH(status) || ':' || status || '|' || COALESCE(env, '') END)
);
CREATE UNIQUE INDEX ux_cyclium_findings_key_status_env ON cyclium_findings (unique_key);
CREATE INDEX ix_cyclium_findings_status_class ON cyclium_findings (status, finding_class);
CREATE INDEX ix_cyclium_findings_subject ON cyclium_findings (subject_kind, subject_id, status);
CREATE INDEX ix_cyclium_findings_expires ON cyclium_findings (expires_at);
CREATE INDEX ix_cyclium_findings_env_status ON cyclium_findings (env, status);

CREATE TABLE cyclium_outputs (
    id             VARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id     VARCHAR(36)  NOT NULL,
    output_type    VARCHAR(128) NOT NULL,
    dedupe_key     VARCHAR(512) NOT NULL,
    status         VARCHAR(32)  NOT NULL,
    payload        CLOB,
    delivered_ref  CLOB,
    error_class    VARCHAR(128),
    error_detail   CLOB,
    attempts       INTEGER      DEFAULT 0 NOT NULL,
    created_at     TIMESTAMP(6) NOT NULL,
    updated_at     TIMESTAMP(6) NOT NULL,
    delivered_at   TIMESTAMP(6),
    CONSTRAINT ux_cyclium_outputs_dedupe UNIQUE (dedupe_key),
    CONSTRAINT fk_cyclium_outputs_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_outputs_episode ON cyclium_outputs (episode_id);
CREATE INDEX ix_cyclium_outputs_status ON cyclium_outputs (status);

-- Leases. A missing row, a live 'claimed' row, an expired 'claimed' row, 'done' and 'failed'
-- are the states every guard re-states in its WHERE clause. fence never goes down.
CREATE TABLE cyclium_work_claims (
    dedupe_key         VARCHAR(512) NOT NULL PRIMARY KEY,
    state              VARCHAR(32)  NOT NULL,
    owner_node         VARCHAR(255) NOT NULL,
    lease_until        TIMESTAMP(6) NOT NULL,
    claimed_at         TIMESTAMP(6) NOT NULL,
    last_heartbeat_at  TIMESTAMP(6),
    finished_at        TIMESTAMP(6),
    attempt            INTEGER      DEFAULT 1 NOT NULL,
    fence              BIGINT       DEFAULT 1 NOT NULL,
    work_type          VARCHAR(64)  NOT NULL,
    error_detail       CLOB
);
CREATE INDEX ix_cyclium_claims_state_lease ON cyclium_work_claims (state, lease_until);
CREATE INDEX ix_cyclium_claims_owner_state ON cyclium_work_claims (owner_node, state);

CREATE TABLE cyclium_trigger_requests (
    id              VARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id      VARCHAR(36)  NOT NULL,
    actor_id        VARCHAR(255) NOT NULL,
    expectation_id  VARCHAR(255) NOT NULL,
    source_node     VARCHAR(255) NOT NULL,
    source_stack    VARCHAR(128),
    source_env      VARCHAR(128),
    status          VARCHAR(32)  NOT NULL,
    opts            CLOB,
    claimed_by      VARCHAR(255),
    claimed_at      TIMESTAMP(6),
    inserted_at     TIMESTAMP(6) NOT NULL,
    updated_at      TIMESTAMP(6) NOT NULL,
    CONSTRAINT fk_cyclium_requests_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_requests_status_env ON cyclium_trigger_requests (status, source_env, inserted_at);
CREATE INDEX ix_cyclium_requests_status ON cyclium_trigger_requests (status, inserted_at);
CREATE INDEX ix_cyclium_requests_episode ON cyclium_trigger_requests (episode_id);

-- Actors defined as data (policy lookup for recovery, dynamic actors later).
CREATE TABLE cyclium_actor_definitions (
    actor_id         VARCHAR(255) NOT NULL PRIMARY KEY,
    recovery_policy  VARCHAR(32),
    config           CLOB,
    enabled          BOOLEAN      DEFAULT TRUE NOT NULL,
    created_at       TIMESTAMP(6) NOT NULL,
    updated_at       TIMESTAMP(6) NOT NULL
);

CREATE TABLE cyclium_workflow_definitions (
    workflow_id       VARCHAR(255) NOT NULL PRIMARY KEY,
    trigger_type      VARCHAR(32)  NOT NULL,
    trigger_event     VARCHAR(255),
    steps             CLOB         NOT NULL,
    failure_policies  CLOB,
    enabled           BOOLEAN      DEFAULT TRUE NOT NULL,
    created_at        TIMESTAMP(6) NOT NULL,
    updated_at        TIMESTAMP(6) NOT NULL
);

-- version makes every advance a compare-and-set: UPDATE ... WHERE id = ? AND version = ?.
CREATE TABLE cyclium_workflow_instances (
    id             VARCHAR(36)  NOT NULL PRIMARY KEY,
    workflow_id    VARCHAR(255) NOT NULL,
    status         VARCHAR(32)  NOT NULL,
    step_states    CLOB         NOT NULL,
    trigger_ref    CLOB,
    subject_value  VARCHAR(512) DEFAULT '_' NOT NULL,
    source_stack   VARCHAR(128),
    source_env     VARCHAR(128),
    version        BIGINT       DEFAULT 0 NOT NULL,
    started_at     TIMESTAMP(6) NOT NULL,
    finished_at    TIMESTAMP(6),
    updated_at     TIMESTAMP(6) NOT NULL
);
CREATE INDEX ix_cyclium_wf_instances_status ON cyclium_workflow_instances (status);
CREATE INDEX ix_cyclium_wf_instances_wf_subject ON cyclium_workflow_instances (workflow_id, subject_value);
CREATE INDEX ix_cyclium_wf_instances_stack_status ON cyclium_workflow_instances (source_stack, status);
CREATE INDEX ix_cyclium_wf_instances_env_status ON cyclium_workflow_instances (source_env, status);
