-- Issue 13: the write path pays for every index of cyclium_episodes on each terminal UPDATE (status
-- changes, so no update is HOT). (source_stack, status) serves no query: a list filtered by stack
-- and status reads ix_cyclium_episodes_status_list or ix_cyclium_episodes_stack_list, the sweep
-- filters stack with an OR that this index cannot use. Plans: docs/bench/episode-indexes.md.
DROP INDEX ix_cyclium_episodes_stack_status;
