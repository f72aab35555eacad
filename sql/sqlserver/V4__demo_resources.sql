-- Resources the demo actors watch (cyclium.demo.enabled=true). Shared by every node through the
-- database, like everything else Cyclium keeps.
CREATE TABLE cyclium_demo_resources (
    resource_id   NVARCHAR(128) NOT NULL PRIMARY KEY,
    kind          NVARCHAR(64)  NOT NULL,
    usage_value   INT           NOT NULL,
    limit_value   INT           NOT NULL,
    version       BIGINT        DEFAULT 0 NOT NULL,
    updated_at    DATETIME2(6)  NOT NULL
);
