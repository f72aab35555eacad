-- What the shipped 'database' output adapter writes: one row per delivered output. The unique
-- dedupe key makes the adapter idempotent on its own, so a delivery that is retried after it
-- already wrote its row finds that row instead of writing a second one. No foreign key to the
-- episode: a record is the delivered side effect and outlives the episode's retention.
CREATE TABLE cyclium_output_records (
    id           VARCHAR(36)  NOT NULL PRIMARY KEY,
    dedupe_key   VARCHAR(512) NOT NULL,
    output_type  VARCHAR(128) NOT NULL,
    episode_id   VARCHAR(36)  NOT NULL,
    payload      CLOB,
    created_at   TIMESTAMP(6) NOT NULL,
    CONSTRAINT ux_cyclium_output_records_dedupe UNIQUE (dedupe_key)
);
