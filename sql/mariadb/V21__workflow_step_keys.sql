-- A workflow step's own concurrency key (a step's "concurrencyKey"/"concurrencyLimit" in its
-- workflow's definition), on the episode that runs the step: the limit it takes a slot of in
-- cyclium_concurrency_slots besides its expectation's, so that a restart of the episode (a resume,
-- a recovery, a trigger-only node's dispatch) takes the same slot again without reading the
-- workflow's definition. step_key_scope is "workflow:<workflow>/<step>", step_key the key's value
-- read from the step's input, step_key_limit the definition's limit when the episode was created.
-- Written with the episode's INSERT, and only for a step that declares a key: every other insert
-- keeps its statement's shape.
ALTER TABLE cyclium_episodes ADD COLUMN step_key_scope VARCHAR(255);
ALTER TABLE cyclium_episodes ADD COLUMN step_key VARCHAR(255);
ALTER TABLE cyclium_episodes ADD COLUMN step_key_limit INTEGER;
