-- (SQL Server port of sql/h2/V13__audit_trail.sql.)
-- The audit trail (io.cyclium.audit): one row per operator action — approve, deny, cancel,
-- restart, resolve a wait, a manual start, a mode switch, a retention run, a sweep, a workflow
-- definition change, an instance's cancel / resume / step retry / step approval, an output retry.
-- An action that changes rows writes its row in the same transaction as that change, so a row
-- with outcome 'ok' exists exactly when the change committed. A refused action ('refused': the
-- rules said no, reason says why; 'failed': an error, reason names its server log id) gets a row
-- in a transaction of its own. occurred_at is the database clock (UTC); node_identity is the node
-- that served the request, client_address the address it came from. The retention job deletes
-- rows older than cyclium.retention.audit-after (step prune-audit).
CREATE TABLE cyclium_audit (
    id              NVARCHAR(36)   NOT NULL PRIMARY KEY,
    occurred_at     DATETIME2(6)  NOT NULL,
    user_name       NVARCHAR(255)  NOT NULL,
    client_address  NVARCHAR(64),
    node_identity   NVARCHAR(255)  NOT NULL,
    action          NVARCHAR(64)   NOT NULL,
    subject_kind    NVARCHAR(32)   NOT NULL,
    subject_id      NVARCHAR(512),
    episode_id      NVARCHAR(36),
    outcome         NVARCHAR(16)   NOT NULL,
    reason          NVARCHAR(1000),
    detail          NVARCHAR(1000)
);
-- the list (newest first, keyset on occurred_at, id) and the retention step's age condition
CREATE INDEX ix_cyclium_audit_time ON cyclium_audit (occurred_at, id);
-- the filters a reader narrows by: who, and which thing
CREATE INDEX ix_cyclium_audit_user ON cyclium_audit (user_name, occurred_at);
CREATE INDEX ix_cyclium_audit_subject ON cyclium_audit (subject_id, occurred_at);
