-- Resources the demo actors watch (cyclium.demo.enabled=true). Shared by every node through the
-- database, like everything else Cyclium keeps.
CREATE TABLE cyclium_demo_resources (
    resource_id   VARCHAR(128) NOT NULL PRIMARY KEY,
    kind          VARCHAR(64)  NOT NULL,
    usage_value   INTEGER      NOT NULL,
    limit_value   INTEGER      NOT NULL,
    version       BIGINT       DEFAULT 0 NOT NULL,
    updated_at    TIMESTAMP(6) NOT NULL
);
