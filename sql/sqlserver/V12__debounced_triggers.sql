-- (SQL Server port of sql/h2/V12__debounced_triggers.sql.)
-- A debounced event is stored before the caller is answered: one row per subject (id hashes the
-- actor, expectation, stack, env and subject value), holding the last event of the window and when
-- the window closes (fire_at, on the database clock). An event inside the window replaces the row and
-- pushes fire_at (version + 1). Any node whose timer finds a due row fires it: it deletes the row
-- guarded on the version it read (0 rows: another node fired it, or a newer event moved the window)
-- in the same transaction that stores the episode, so a node stopped or killed between the event
-- and the window closing loses nothing.
CREATE TABLE cyclium_debounced_triggers (
    id              NVARCHAR(64)  NOT NULL PRIMARY KEY,
    actor_id        NVARCHAR(255) NOT NULL,
    expectation_id  NVARCHAR(255) NOT NULL,
    subject         NVARCHAR(255) NOT NULL,
    source_stack    NVARCHAR(128),
    source_env      NVARCHAR(128),
    trigger_ref     NVARCHAR(MAX)      NOT NULL,
    dedupe_key      NVARCHAR(512) NOT NULL,
    window_ms       BIGINT        NOT NULL,
    version         BIGINT        NOT NULL,
    fire_at         DATETIME2(6)  NOT NULL,
    inserted_at     DATETIME2(6)  NOT NULL,
    updated_at      DATETIME2(6)  NOT NULL
);
-- the timer's question: due rows of one env, oldest first
CREATE INDEX ix_cyclium_debounced_due ON cyclium_debounced_triggers (source_env, fire_at);
