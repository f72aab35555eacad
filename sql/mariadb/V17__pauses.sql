-- Pauses of an actor, an expectation or a workflow, cluster-wide: one row per target, never deleted.
-- kind is actor | expectation | workflow; target the actor id, "actor/expectation", or the workflow id.
-- A pause or a resume sets paused and raises revision, so SUM(revision) changes with every change:
-- every node reads that sum on its periodic pulse (a scalar in the statement it already sends) and
-- reads the rows again only when it moved. changed_at is on the database clock.
CREATE TABLE cyclium_pauses (
    kind            VARCHAR(16)  NOT NULL,
    target          VARCHAR(512) NOT NULL,
    paused          BOOLEAN NOT NULL,
    revision        BIGINT       NOT NULL,
    changed_by      VARCHAR(255) NOT NULL,
    changed_at      DATETIME(6) NOT NULL,
    PRIMARY KEY (kind, target)
);
