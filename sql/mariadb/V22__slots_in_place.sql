-- Concurrency slots are given back in place: a row stays once its number was first taken, and a
-- slot is free while its episode_id is NULL (cyclium_concurrency_slots, V19). An INSERT and a DELETE
-- per slot per episode left PostgreSQL a heap of dead rows under a few dozen live ones, which every
-- statement on the table scanned; an UPDATE of a column no index covers is a heap-only update, pruned
-- within its page. So the index on episode_id goes (the give-backs find a row by its primary key),
-- and free rows a key has not used for a day are deleted by the recovery sweep.
ALTER TABLE cyclium_concurrency_slots MODIFY episode_id VARCHAR(36) NULL;
DROP INDEX ix_cyclium_concurrency_slots_episode ON cyclium_concurrency_slots;
