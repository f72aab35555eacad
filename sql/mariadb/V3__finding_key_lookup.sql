-- Every finding guard looks a row up by (finding_key, status[, env]): raise, update, clear and
-- the expiry sweep's archiving of older cleared rows. Without this index those are scans of all
-- rows of an env and status, and under REPEATABLE READ an UPDATE would lock every row it scans.
-- Index key: 512 + 32 utf8mb4 characters = 2176 bytes, under the 3072-byte limit.
-- cleared_reason records why a finding was cleared ('expired' for the sweep, or the clearing
-- episode's reason); it takes the table's utf8mb4_nopad_bin collation.
ALTER TABLE cyclium_findings
    ADD COLUMN cleared_reason VARCHAR(128),
    ADD KEY ix_cyclium_findings_key_status (finding_key, status);
