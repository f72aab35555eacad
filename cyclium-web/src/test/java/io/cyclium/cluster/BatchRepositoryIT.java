package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code server-config/payara-server/batch-repository.asadmin}, run as post-boot
 * commands on two Payara Micro nodes over one PostgreSQL database: the batch runtime's job
 * repository is then the Cyclium database (by default each Micro process keeps its own embedded
 * one), so both nodes' retention executions are rows there, their execution ids come from one
 * sequence, and each id is the one the node recorded on its run.
 */
class BatchRepositoryIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void with_the_shipped_commands_both_nodes_keep_their_batch_executions_in_the_cyclium_database() {
        Path commands = Path.of(System.getProperty("cyclium.config.dir", "../server-config"), "payara-server",
                "batch-repository.asadmin");
        try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .postBoot(commands)
                .env("CYCLIUM_RETENTION_ENABLED", "false") // runs by hand only: one after the other
                .node("node-a")
                .node("node-b")
                .start()) {
            HarnessDatabase db = cluster.database();
            long a = runRetention(cluster.node("node-a"));
            long b = runRetention(cluster.node("node-b"));
            assertThat(b).as("one sequence for both nodes' executions").isNotEqualTo(a);
            // every node's API and console list every node's runs (rows of the shared database)
            for (String name : List.of("node-a", "node-b")) {
                List<String> seen = cluster.node(name).get("/maintenance/executions?limit=20").jsonArray().stream()
                        .map(v -> v.asJsonObject().getJsonObject("run")).map(r -> r.getString("node") + ":" + r.getString("status"))
                        .toList();
                assertThat(seen).as("runs " + name + " lists").contains("node-a:completed", "node-b:completed");
            }

            List<String> tables = db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
                    .stream().map(r -> String.valueOf(r.get("table_name")).toLowerCase(java.util.Locale.ROOT))
                    .sorted().collect(Collectors.toList());
            System.out.println("[figures] batch repository: tables beside Cyclium's: "
                    + tables.stream().filter(t -> !t.startsWith("cyclium_")).toList());
            // Payara names them jbatch<table> (JBatch's JOBINSTANCEDATA, EXECUTIONINSTANCEDATA, ...)
            assertThat(tables).as("the batch runtime's tables in the Cyclium database")
                    .contains("jbatchjobinstancedata", "jbatchexecutioninstancedata", "jbatchcheckpointdata");
            List<Map<String, Object>> executions = db.query("SELECT * FROM jbatchexecutioninstancedata");
            assertThat(executions).as(executions.toString()).extracting(r -> ((Number) column(r, "jobexecid")).longValue())
                    .contains(a, b);
            List<Map<String, Object>> jobs = db.query("SELECT * FROM jbatchjobinstancedata");
            assertThat(jobs).as(jobs.toString()).extracting(r -> String.valueOf(column(r, "name"))).containsOnly("cyclium-retention");
        }
    }

    private static Object column(Map<String, Object> row, String name) {
        return row.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no column " + name + " in " + row.keySet()));
    }

    /** Runs retention now on {@code node}, waits for it to complete, and returns the batch execution id it recorded. */
    private static long runRetention(ClusterNode node) {
        HttpReply started = node.post("/maintenance/retention", "");
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String runId = started.jsonObject().getString("runId");
        JsonObject run = Await.until(WAIT, "retention run " + runId + " on " + node.name() + " to complete", () -> {
            for (JsonValue v : node.get("/maintenance/executions?limit=20").jsonArray()) {
                JsonObject r = v.asJsonObject().getJsonObject("run");
                if (runId.equals(r.getString("id")) && !"running".equals(r.getString("status"))) {
                    return r;
                }
            }
            return null;
        });
        assertThat(run.getString("status")).as(run.toString()).isEqualTo("completed");
        assertThat(run.getString("node")).isEqualTo(node.name());
        return run.getJsonNumber("batchExecutionId").longValue();
    }
}
