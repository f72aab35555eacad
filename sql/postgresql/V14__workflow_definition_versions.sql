-- A version per workflow definition, raised by every write of it (a deploy's code definitions, a
-- PUT, enable or disable). Each node keeps the definitions in memory and re-reads them only when the
-- count of rows or the sum of their versions changed since it read them: a change on any node shows
-- on every node within one idle check of its workflow timer, without reading every document each
-- second.
ALTER TABLE cyclium_workflow_definitions ADD COLUMN version BIGINT DEFAULT 0 NOT NULL;
