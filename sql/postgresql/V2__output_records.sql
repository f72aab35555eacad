-- Port of sql/h2/V2__output_records.sql: the rows the shipped 'database' output adapter writes.
-- The unique dedupe key makes the adapter idempotent on its own; no foreign key to the episode,
-- a record is the delivered side effect and outlives the episode's retention.
CREATE TABLE cyclium_output_records (
    id           VARCHAR(36)  NOT NULL PRIMARY KEY,
    dedupe_key   VARCHAR(512) NOT NULL,
    output_type  VARCHAR(128) NOT NULL,
    episode_id   VARCHAR(36)  NOT NULL,
    payload      TEXT,
    created_at   TIMESTAMP(6) NOT NULL,
    CONSTRAINT ux_cyclium_output_records_dedupe UNIQUE (dedupe_key)
);
