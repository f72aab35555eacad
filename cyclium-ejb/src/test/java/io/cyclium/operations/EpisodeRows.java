package io.cyclium.operations;

import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestJpa;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Inserts episode rows with chosen times, status, stack and env (what list and chart tests need). */
final class EpisodeRows {

    private final TestJpa db;
    private String actor = "actor";
    private String expectation = "exp";
    private String status = "done";
    private String stack;
    private String env;
    private LocalDateTime finishedAt;

    EpisodeRows(TestJpa db) {
        this.db = db;
    }

    EpisodeRows actor(String actor, String expectation) {
        this.actor = actor;
        this.expectation = expectation;
        return this;
    }

    EpisodeRows status(String status) {
        this.status = status;
        return this;
    }

    EpisodeRows scope(String stack, String env) {
        this.stack = stack;
        this.env = env;
        return this;
    }

    EpisodeRows finishedAt(LocalDateTime finishedAt) {
        this.finishedAt = finishedAt;
        return this;
    }

    /** Inserts one row started at {@code startedAt}; returns its id. */
    String insert(LocalDateTime startedAt) {
        String id = UUID.randomUUID().toString();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("actor_id", actor);
        row.put("expectation_id", expectation);
        row.put("trigger_type", "manual");
        row.put("status", status);
        row.put("source_stack", stack);
        row.put("source_env", env);
        row.put("started_at", Timestamp.valueOf(startedAt));
        row.put("finished_at", finishedAt == null ? null : Timestamp.valueOf(finishedAt));
        row.put("updated_at", Timestamp.valueOf(startedAt));
        db.run(em -> new NativeSql().insert("cyclium_episodes", row).executeUpdate(em));
        return id;
    }
}
