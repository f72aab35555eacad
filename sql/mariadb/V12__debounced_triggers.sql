-- A debounced event is stored before the caller is answered: one row per subject (id hashes the
-- actor, expectation, stack, env and subject value), holding the last event of the window and when
-- the window closes (fire_at, on the database clock). An event inside the window replaces the row and
-- pushes fire_at (version + 1). Any node whose timer finds a due row fires it: it deletes the row
-- guarded on the version it read (0 rows: another node fired it, or a newer event moved the window)
-- in the same transaction that stores the episode, so a node stopped or killed between the event
-- and the window closing loses nothing.
CREATE TABLE cyclium_debounced_triggers (
    id              VARCHAR(64)  NOT NULL PRIMARY KEY,
    actor_id        VARCHAR(255) NOT NULL,
    expectation_id  VARCHAR(255) NOT NULL,
    subject         VARCHAR(255) NOT NULL,
    source_stack    VARCHAR(128),
    source_env      VARCHAR(128),
    trigger_ref     LONGTEXT      NOT NULL,
    dedupe_key      VARCHAR(512) NOT NULL,
    window_ms       BIGINT        NOT NULL,
    version         BIGINT        NOT NULL,
    fire_at         DATETIME(6)  NOT NULL,
    inserted_at     DATETIME(6)  NOT NULL,
    updated_at      DATETIME(6)  NOT NULL
);
-- the timer's question: due rows of one env, oldest first
CREATE INDEX ix_cyclium_debounced_due ON cyclium_debounced_triggers (source_env, fire_at);
