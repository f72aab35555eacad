-- Paper-reviewed, like V1. Index key 1024 + 64 bytes: under the 1700-byte nonclustered limit.
-- Every finding guard looks a row up by (finding_key, status[, env]): raise, update, clear and
-- the expiry sweep's archiving of older cleared rows. Without this index those are scans of all
-- rows of an env and status (and on MariaDB under REPEATABLE READ an UPDATE would lock them all).
-- cleared_reason records why a finding was cleared ('expired' for the sweep, or the clearing
-- episode's reason).
CREATE INDEX ix_cyclium_findings_key_status ON cyclium_findings (finding_key, status);
ALTER TABLE cyclium_findings ADD cleared_reason NVARCHAR(128);
