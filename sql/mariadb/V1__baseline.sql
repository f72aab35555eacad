-- Cyclium baseline schema, MariaDB 10.11 (InnoDB).
-- Port of sql/h2/V1__baseline.sql: the same tables, columns, keys and indexes.
-- Identifiers are UUID strings minted by the application, so an insert never needs a
-- generated-key round trip. Lease arithmetic happens in SQL on the database clock, never on a
-- node's clock.
--
-- Vendor notes that shape every table below:
-- * Every time is DATETIME(6). MariaDB's DATETIME/TIMESTAMP default to 0 fractional digits and
--   would silently round microseconds away, so two lease times a few ms apart would compare
--   equal. DATETIME (not TIMESTAMP) also avoids session time-zone conversion and the 2038 limit.
-- * CLOBs are LONGTEXT; BOOLEAN is TINYINT(1); DOUBLE is 8 bytes like DOUBLE PRECISION.
-- * Tables are utf8mb4 with the collation utf8mb4_nopad_bin. The server default
--   (utf8mb4_general_ci) compares case-insensitively and ignores trailing spaces, so the unique
--   keys below would treat 'Key' and 'key ' as the same dedupe key while H2 and PostgreSQL treat
--   them as different. A binary NO PAD collation keeps keys exact on every vendor.
-- * InnoDB limits an index key to 3072 bytes and utf8mb4 reserves 4 bytes a character, so an
--   index may span at most 768 characters of VARCHAR. Each index below is checked against that.
-- * The pool should run at READ COMMITTED (MariaDB's default is REPEATABLE READ): guarded UPDATEs
--   see the latest committed row either way, but read-then-decide code would read a snapshot.

CREATE TABLE cyclium_nodes (
    node_identity   VARCHAR(255) NOT NULL PRIMARY KEY,
    mode            VARCHAR(32)  NOT NULL,
    stack_slug      VARCHAR(128),
    env             VARCHAR(128),
    host_info       VARCHAR(512),
    started_at      DATETIME(6)  NOT NULL,
    last_seen       DATETIME(6)  NOT NULL,
    stopped_at      DATETIME(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE cyclium_episodes (
    id                   VARCHAR(36)  NOT NULL PRIMARY KEY,
    actor_id             VARCHAR(255) NOT NULL,
    expectation_id       VARCHAR(255) NOT NULL,
    spec_rev             VARCHAR(64),
    trigger_type         VARCHAR(32)  NOT NULL,
    trigger_ref          LONGTEXT,
    dedupe_key           VARCHAR(512),
    status               VARCHAR(32)  NOT NULL,
    phase                VARCHAR(64),
    mode                 VARCHAR(32)  DEFAULT 'live' NOT NULL,
    attempts             INTEGER      DEFAULT 0 NOT NULL,
    max_attempts         INTEGER      DEFAULT 3 NOT NULL,
    turns_used           INTEGER      DEFAULT 0 NOT NULL,
    budget               LONGTEXT,
    run_node             VARCHAR(255),
    cancel_requested     BOOLEAN      DEFAULT FALSE NOT NULL,
    summary              LONGTEXT,
    error_class          VARCHAR(128),
    error_detail         LONGTEXT,
    workflow_instance_id VARCHAR(36),
    workflow_step_id     VARCHAR(255),
    source_stack         VARCHAR(128),
    source_env           VARCHAR(128),
    metadata             LONGTEXT,
    queued_at            DATETIME(6),
    started_at           DATETIME(6)  NOT NULL,
    finished_at          DATETIME(6),
    archived_at          DATETIME(6),
    updated_at           DATETIME(6)  NOT NULL,
    -- MariaDB has no partial index. This virtual column is the dedupe key while the row is live
    -- and NULL once it is archived (or has no key); a unique key on it allows many NULLs, so it
    -- means "at most one live episode per dedupe key". Two nodes racing to start the same work
    -- both INSERT and exactly one wins; the loser gets error 1062. Un-archiving a row whose key
    -- is live again fails the same way. The column is computed, never written: an INSERT or
    -- UPDATE that names it fails (error 1906 in strict mode), so the application never maps it.
    -- 512 characters = 2048 bytes of index key: under the 3072-byte limit.
    active_dedupe_key    VARCHAR(512) AS (CASE WHEN archived_at IS NULL THEN dedupe_key END) VIRTUAL,
    UNIQUE KEY ux_cyclium_episodes_active_dedupe (active_dedupe_key),
    KEY ix_cyclium_episodes_actor_exp (actor_id, expectation_id),  -- 510 chars = 2040 bytes
    KEY ix_cyclium_episodes_status (status, started_at),
    KEY ix_cyclium_episodes_stack_status (source_stack, status),
    KEY ix_cyclium_episodes_env_status (source_env, status),
    KEY ix_cyclium_episodes_run_node (run_node, status),
    KEY ix_cyclium_episodes_workflow (workflow_instance_id),
    KEY ix_cyclium_episodes_started (started_at, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- The step journal. (episode_id, step_no) is the key: two writers on one episode (a node that
-- lost its lease and the thief) cannot both journal the same step.
CREATE TABLE cyclium_episode_steps (
    episode_id       VARCHAR(36)  NOT NULL,
    step_no          INTEGER      NOT NULL,
    kind             VARCHAR(64)  NOT NULL,
    node_identity    VARCHAR(255),
    detail           LONGTEXT,
    error_class      VARCHAR(128),
    side_effect_key  VARCHAR(512),
    cost_ms          BIGINT,
    created_at       DATETIME(6)  NOT NULL,
    PRIMARY KEY (episode_id, step_no),
    KEY ix_cyclium_steps_created (created_at),
    CONSTRAINT fk_cyclium_steps_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE cyclium_episode_checkpoints (
    episode_id      VARCHAR(36)  NOT NULL,
    checkpoint_no   INTEGER      NOT NULL,
    phase           VARCHAR(128) NOT NULL,
    schema_version  INTEGER      NOT NULL,
    state           LONGTEXT     NOT NULL,
    created_at      DATETIME(6)  NOT NULL,
    PRIMARY KEY (episode_id, checkpoint_no),
    CONSTRAINT fk_cyclium_checkpoints_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

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
    summary               LONGTEXT,
    evidence              LONGTEXT,
    confidence            DOUBLE,
    caused_by_key         VARCHAR(512),
    raised_by_episode_id  VARCHAR(36)  NOT NULL,
    cleared_by_episode_id VARCHAR(36),
    raised_at             DATETIME(6)  NOT NULL,
    updated_at            DATETIME(6)  NOT NULL,
    cleared_at            DATETIME(6),
    expires_at            DATETIME(6),
    archived_at           DATETIME(6),
    -- One row per (finding_key, status, env) among the rows that are not superseded, so two
    -- episodes raising the same finding at once cannot both insert it; superseded rows are
    -- history and never collide. env NULL is "no env" and must collide with itself, hence the
    -- COALESCE. H2 keeps the plain concatenation in a VARCHAR(800): 3200 bytes of utf8mb4, over
    -- the 3072-byte limit (even the 674 characters it can really hold leave almost no room for
    -- any column to grow). So the column holds the SHA-256 of that text instead: 64 ASCII hex
    -- characters = 64 bytes of index key; a SHA-256 collision is not a practical concern. The
    -- lengths of finding_key and status are part of the hashed text, so a '|' inside a key
    -- cannot make two different triples produce the same text.
    -- Computed, never written (error 1906 if an INSERT or UPDATE names it).
    unique_key            CHAR(64) CHARACTER SET ascii COLLATE ascii_bin AS
                          (CASE WHEN status <> 'superseded'
                                THEN SHA2(CONCAT(CHAR_LENGTH(finding_key), ':', finding_key, '|',
                                                 CHAR_LENGTH(status), ':', status, '|',
                                                 COALESCE(env, '')), 256) END) VIRTUAL,
    UNIQUE KEY ux_cyclium_findings_key_status_env (unique_key),
    KEY ix_cyclium_findings_status_class (status, finding_class),
    KEY ix_cyclium_findings_subject (subject_kind, subject_id, status),  -- 415 chars = 1660 bytes
    KEY ix_cyclium_findings_expires (expires_at),
    KEY ix_cyclium_findings_env_status (env, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE cyclium_outputs (
    id             VARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id     VARCHAR(36)  NOT NULL,
    output_type    VARCHAR(128) NOT NULL,
    dedupe_key     VARCHAR(512) NOT NULL,
    status         VARCHAR(32)  NOT NULL,
    payload        LONGTEXT,
    delivered_ref  LONGTEXT,
    error_class    VARCHAR(128),
    error_detail   LONGTEXT,
    attempts       INTEGER      DEFAULT 0 NOT NULL,
    created_at     DATETIME(6)  NOT NULL,
    updated_at     DATETIME(6)  NOT NULL,
    delivered_at   DATETIME(6),
    -- an output is delivered at most once per key, even when two attempts of an episode race
    CONSTRAINT ux_cyclium_outputs_dedupe UNIQUE (dedupe_key),
    -- declared before the foreign key so InnoDB uses it instead of adding an index of its own
    KEY ix_cyclium_outputs_episode (episode_id),
    KEY ix_cyclium_outputs_status (status),
    CONSTRAINT fk_cyclium_outputs_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- Leases. A missing row, a live 'claimed' row, an expired 'claimed' row, 'done' and 'failed'
-- are the states every guard re-states in its WHERE clause. fence never goes down.
-- The primary key on dedupe_key is what makes the first claim atomic: concurrent INSERTs of a
-- missing row cannot both succeed. 512 characters = 2048 bytes: under the 3072-byte limit.
CREATE TABLE cyclium_work_claims (
    dedupe_key         VARCHAR(512) NOT NULL PRIMARY KEY,
    state              VARCHAR(32)  NOT NULL,
    owner_node         VARCHAR(255) NOT NULL,
    lease_until        DATETIME(6)  NOT NULL,
    claimed_at         DATETIME(6)  NOT NULL,
    last_heartbeat_at  DATETIME(6),
    finished_at        DATETIME(6),
    attempt            INTEGER      DEFAULT 1 NOT NULL,
    fence              BIGINT       DEFAULT 1 NOT NULL,
    work_type          VARCHAR(64)  NOT NULL,
    error_detail       LONGTEXT,
    KEY ix_cyclium_claims_state_lease (state, lease_until),
    KEY ix_cyclium_claims_owner_state (owner_node, state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE cyclium_trigger_requests (
    id              VARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id      VARCHAR(36)  NOT NULL,
    actor_id        VARCHAR(255) NOT NULL,
    expectation_id  VARCHAR(255) NOT NULL,
    source_node     VARCHAR(255) NOT NULL,
    source_stack    VARCHAR(128),
    source_env      VARCHAR(128),
    status          VARCHAR(32)  NOT NULL,
    opts            LONGTEXT,
    claimed_by      VARCHAR(255),
    claimed_at      DATETIME(6),
    inserted_at     DATETIME(6)  NOT NULL,
    updated_at      DATETIME(6)  NOT NULL,
    KEY ix_cyclium_requests_status_env (status, source_env, inserted_at),
    KEY ix_cyclium_requests_status (status, inserted_at),
    -- declared before the foreign key so InnoDB uses it instead of adding an index of its own
    KEY ix_cyclium_requests_episode (episode_id),
    CONSTRAINT fk_cyclium_requests_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- Actors defined as data (policy lookup for recovery, dynamic actors later).
CREATE TABLE cyclium_actor_definitions (
    actor_id         VARCHAR(255) NOT NULL PRIMARY KEY,
    recovery_policy  VARCHAR(32),
    config           LONGTEXT,
    enabled          BOOLEAN      DEFAULT TRUE NOT NULL,
    created_at       DATETIME(6)  NOT NULL,
    updated_at       DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE cyclium_workflow_definitions (
    workflow_id       VARCHAR(255) NOT NULL PRIMARY KEY,
    trigger_type      VARCHAR(32)  NOT NULL,
    trigger_event     VARCHAR(255),
    steps             LONGTEXT     NOT NULL,
    failure_policies  LONGTEXT,
    enabled           BOOLEAN      DEFAULT TRUE NOT NULL,
    created_at        DATETIME(6)  NOT NULL,
    updated_at        DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- version makes every advance a compare-and-set: UPDATE ... WHERE id = ? AND version = ?.
CREATE TABLE cyclium_workflow_instances (
    id             VARCHAR(36)  NOT NULL PRIMARY KEY,
    workflow_id    VARCHAR(255) NOT NULL,
    status         VARCHAR(32)  NOT NULL,
    step_states    LONGTEXT     NOT NULL,
    trigger_ref    LONGTEXT,
    subject_value  VARCHAR(512) DEFAULT '_' NOT NULL,
    source_stack   VARCHAR(128),
    source_env     VARCHAR(128),
    version        BIGINT       DEFAULT 0 NOT NULL,
    started_at     DATETIME(6)  NOT NULL,
    finished_at    DATETIME(6),
    updated_at     DATETIME(6)  NOT NULL,
    KEY ix_cyclium_wf_instances_status (status),
    -- 255 + 512 = 767 characters = 3068 bytes: just under the 3072-byte limit. Widening either
    -- column breaks this index on MariaDB (use a prefix index or a hash then).
    KEY ix_cyclium_wf_instances_wf_subject (workflow_id, subject_value),
    KEY ix_cyclium_wf_instances_stack_status (source_stack, status),
    KEY ix_cyclium_wf_instances_env_status (source_env, status)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
