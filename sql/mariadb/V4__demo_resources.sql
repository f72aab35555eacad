-- Resources the demo actors watch (cyclium.demo.enabled=true). Shared by every node through the
-- database, like everything else Cyclium keeps.
CREATE TABLE cyclium_demo_resources (
    resource_id   VARCHAR(128) NOT NULL PRIMARY KEY,
    kind          VARCHAR(64)  NOT NULL,
    usage_value   INT          NOT NULL,
    limit_value   INT          NOT NULL,
    version       BIGINT       DEFAULT 0 NOT NULL,
    updated_at    DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
