-- Port of sql/h2/V2__output_records.sql (paper-reviewed, like V1): the rows the shipped
-- 'database' output adapter writes. The unique dedupe key makes the adapter idempotent on its
-- own; no foreign key to the episode, a record is the delivered side effect and outlives the
-- episode's retention. The UNIQUE constraint is nonclustered: 1024 bytes, under 1700.
CREATE TABLE cyclium_output_records (
    id           NVARCHAR(36)  NOT NULL PRIMARY KEY,
    dedupe_key   NVARCHAR(512) NOT NULL,
    output_type  NVARCHAR(128) NOT NULL,
    episode_id   NVARCHAR(36)  NOT NULL,
    payload      NVARCHAR(MAX),
    created_at   DATETIME2(6)  NOT NULL,
    CONSTRAINT ux_cyclium_output_records_dedupe UNIQUE NONCLUSTERED (dedupe_key)
);
