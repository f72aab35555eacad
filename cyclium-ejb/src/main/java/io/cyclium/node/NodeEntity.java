package io.cyclium.node;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/** One row per node that has booted against this database. Times are UTC on the database clock. */
@Entity
@Table(name = "cyclium_nodes")
public class NodeEntity {

    @Id
    @Column(name = "node_identity")
    private String nodeIdentity;

    @Column(name = "mode", nullable = false)
    private String mode;

    @Column(name = "stack_slug")
    private String stackSlug;

    @Column(name = "env")
    private String env;

    @Column(name = "host_info")
    private String hostInfo;

    @Column(name = "started_at", nullable = false)
    private LocalDateTime startedAt;

    @Column(name = "last_seen", nullable = false)
    private LocalDateTime lastSeen;

    @Column(name = "stopped_at")
    private LocalDateTime stoppedAt;

    public String getNodeIdentity() {
        return nodeIdentity;
    }

    public String getMode() {
        return mode;
    }

    public String getStackSlug() {
        return stackSlug;
    }

    public String getEnv() {
        return env;
    }

    public String getHostInfo() {
        return hostInfo;
    }

    public LocalDateTime getStartedAt() {
        return startedAt;
    }

    public LocalDateTime getLastSeen() {
        return lastSeen;
    }

    public LocalDateTime getStoppedAt() {
        return stoppedAt;
    }
}
