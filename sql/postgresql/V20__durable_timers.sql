-- Durable timers and signals (issue 35, item 4).
-- cyclium_waits: one row per blocked episode that sleeps or waits with a name, a timeout or a key.
-- An episode that never sleeps or waits has no row here (nothing added to its insert or finish).
-- wake_at (database clock) is when a sleep ends or a wait times out (NULL: a wait without a
-- timeout). Whoever deletes the row resolves the wait — the due timer of any node, a signal, an
-- event matching wait_key, an operator — and only that one: the DELETE is the guard (WaitStore),
-- so two nodes racing for the same due sleeper, or a signal racing its timeout, resume it once.
-- cyclium_signals: a signal sent to an episode that does not wait for that name yet, kept until it
-- does (the oldest one first), then deleted in the transaction that hands its payload over; and the
-- signals that opened a workflow instance's signal gates (instance_id), kept as its record. Both
-- tables go with their episode or instance (ON DELETE CASCADE): retention's purge takes them along.
CREATE TABLE cyclium_waits (
    episode_id      VARCHAR(36)  NOT NULL PRIMARY KEY,
    actor_id        VARCHAR(255) NOT NULL,
    expectation_id  VARCHAR(255) NOT NULL,
    source_env      VARCHAR(128),
    kind            VARCHAR(8)   NOT NULL,
    name            VARCHAR(255) NOT NULL,
    wait_key        VARCHAR(255),
    wake_at         TIMESTAMP(6),
    created_at      TIMESTAMP(6) NOT NULL,
    CONSTRAINT fk_cyclium_waits_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE
);
-- the due timer's question: due rows, soonest first
CREATE INDEX ix_cyclium_waits_due ON cyclium_waits (wake_at) WHERE wake_at IS NOT NULL;
-- an event's question: who waits for this name and key
CREATE INDEX ix_cyclium_waits_key ON cyclium_waits (name, wait_key) WHERE wait_key IS NOT NULL;
CREATE TABLE cyclium_signals (
    id              VARCHAR(36)  NOT NULL PRIMARY KEY,
    episode_id      VARCHAR(36),
    instance_id     VARCHAR(36),
    name            VARCHAR(255) NOT NULL,
    payload         TEXT,
    sent_by         VARCHAR(255),
    created_at      TIMESTAMP(6) NOT NULL,
    CONSTRAINT fk_cyclium_signals_episode FOREIGN KEY (episode_id)
        REFERENCES cyclium_episodes (id) ON DELETE CASCADE,
    CONSTRAINT fk_cyclium_signals_instance FOREIGN KEY (instance_id)
        REFERENCES cyclium_workflow_instances (id) ON DELETE CASCADE
);
CREATE INDEX ix_cyclium_signals_episode ON cyclium_signals (episode_id, name, created_at);
CREATE INDEX ix_cyclium_signals_instance ON cyclium_signals (instance_id, name, created_at);
