-- Cluster-wide concurrency limits (@Expectation(concurrencyKey, concurrencyLimit),
-- @Actor(clusterMaxConcurrentEpisodes)). One row per slot in use: (scope, concurrency_key) names the
-- limit (scope is "actor/expectation" for a key of the payload, the actor id for the actor-wide
-- limit, whose key is "*"), slot_no is 0..limit-1. Taking a slot is an INSERT of the lowest free
-- number; the primary key lets exactly one node have each number, so at most "limit" episodes of a
-- key hold one, whatever the isolation level and however many nodes admit at once (0 rows: another
-- node took it, normal). A slot is deleted when its episode's run ends; one whose episode is no
-- longer running (a node died, the sweep failed the episode) is deleted by the next admission that
-- finds the key at its limit. holder is the node running (or about to run) the episode; taken_at is
-- on the database clock. Only episodes of an expectation or actor that declares a limit ever touch
-- this table: the path without a limit sends no statement to it.
CREATE TABLE cyclium_concurrency_slots (
    scope           VARCHAR(255) NOT NULL,
    concurrency_key VARCHAR(255) NOT NULL,
    slot_no         INTEGER      NOT NULL,
    episode_id      VARCHAR(36)  NOT NULL,
    holder          VARCHAR(255) NOT NULL,
    taken_at        TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (scope, concurrency_key, slot_no)
);
CREATE INDEX ix_cyclium_concurrency_slots_episode ON cyclium_concurrency_slots (episode_id);
-- What an episode waits for and in which order, shown by the console and the API: its key under the
-- expectation's limit (NULL: none declared) and its priority (NULL: 0; higher starts first). Written
-- with the episode's INSERT, and only when set (an episode without them keeps the statement's shape).
ALTER TABLE cyclium_episodes ADD COLUMN concurrency_key VARCHAR(255);
ALTER TABLE cyclium_episodes ADD COLUMN priority INTEGER;
-- Rate limits (@Expectation(rateLimit, ratePeriodMs), @Actor(rateLimit, ratePeriodMs)): one token
-- bucket per limit, cluster-wide. A start takes a token with one guarded UPDATE that refills the
-- bucket for the time since refilled_at (database clock) and takes one only when at least one is
-- there (0 rows: none left, the episode stays queued until one is due); the first start of a limit
-- INSERTs its full bucket less one. scope is "actor/expectation" or the actor id; rate_key is "*".
CREATE TABLE cyclium_rate_buckets (
    scope           VARCHAR(255) NOT NULL,
    rate_key        VARCHAR(255) NOT NULL,
    tokens          DOUBLE PRECISION NOT NULL,
    refilled_at     TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (scope, rate_key)
);
