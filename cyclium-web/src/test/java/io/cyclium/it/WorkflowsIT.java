package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Workflows on a real Payara Micro through the REST API: a code-declared fan-out/fan-in DAG runs
 * every step as an episode (one per attempt), retries its flaky step, and completes with its
 * statistics; JSON definitions are checked; approval gates, the pause policy, operator retries,
 * outcomes and the one-instance-in-flight rule work end to end.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployment.productWarWithTestActors();
    }

    @ArquillianResource
    URL base;

    private JsonObject call(String method, String path, String body, int status) throws Exception {
        return ApiCalls.adminExpecting(base, method, path, body, status);
    }

    private JsonObject awaitStatus(String instanceId, String status) {
        AtomicReference<JsonObject> last = new AtomicReference<>();
        try {
            return Await.until(WAIT, "instance " + instanceId + " " + status, () -> {
                try {
                    JsonObject d = call("GET", "api/workflow-instances/" + instanceId, null, 200);
                    last.set(d);
                    return status.equals(d.getJsonObject("instance").getString("status")) ? d : null;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the instance as last read: " + last.get(), e);
        }
    }

    private static Map<String, JsonObject> steps(JsonObject detail) {
        Map<String, JsonObject> out = new HashMap<>();
        detail.getJsonArray("steps").forEach(s -> out.put(s.asJsonObject().getString("stepId"), s.asJsonObject()));
        return out;
    }

    @Test
    void the_code_declared_fan_out_dag_runs_every_step_as_an_episode_retries_the_flaky_one_and_completes() throws Exception {
        String subject = "s-" + UUID.randomUUID();
        JsonObject started = call("POST", "api/workflows/it_fanout/instances",
                "{\"payload\": {\"subject\": \"" + subject + "\"}}", 201);
        String id = started.getString("id");
        assertThat(started.getString("subject")).isEqualTo(subject);

        JsonObject done = awaitStatus(id, "completed");
        Map<String, JsonObject> steps = steps(done);
        assertThat(steps).containsOnlyKeys("start", "left", "middle", "flaky", "join", "end");
        assertThat(steps.values()).allMatch(s -> s.getString("state").equals("completed"));
        assertThat(steps.get("flaky").getInt("attempt")).isEqualTo(2);
        assertThat(steps.get("left").getInt("attempt")).isEqualTo(1);
        JsonObject instance = done.getJsonObject("instance");
        assertThat(instance.getInt("stepsRun")).isEqualTo(6);
        assertThat(instance.getInt("retries")).isEqualTo(1);
        assertThat(instance.getJsonArray("criticalPath").getString(0)).isEqualTo("start");
        assertThat(done.getJsonObject("stats").getJsonObject("stepMs").keySet()).hasSize(6);
        assertThat(done.getJsonArray("transitions").stream().map(JsonValue::asJsonObject)
                .filter(t -> "flaky".equals(t.getString("stepId", null)) && "queued".equals(t.getString("toState"))))
                .as("flaky queued twice: first run and retry").hasSize(2);

        // one episode per step attempt, each a WORKFLOW trigger with the deterministic key
        try (Connection c = MicroDeployment.database();
                PreparedStatement ps = c.prepareStatement("SELECT workflow_step_id, dedupe_key, trigger_type, status"
                        + " FROM cyclium_episodes WHERE workflow_instance_id = ? ORDER BY workflow_step_id, dedupe_key")) {
            ps.setString(1, id);
            int rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    assertThat(rs.getString(3)).isEqualTo("workflow");
                    assertThat(rs.getString(2)).startsWith("workflow:" + id + ":" + rs.getString(1) + ":");
                }
            }
            assertThat(rows).as("6 steps, the flaky one twice").isEqualTo(7);
        }

        // the console draws the DAG: a box per step, linked to its episode, and lists the instance
        java.net.http.HttpClient browser = ConsoleLogin.admin(base);
        HttpResponse<String> page = ConsoleLogin.get(browser, base, "workflow.xhtml?id=" + id);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<svg").contains("data-step=\"flaky\"").contains("attempt 2/3")
                .contains("episode.xhtml?id=" + steps.get("end").getString("episodeId")).contains("every scheduled step finished");
        assertThat(ConsoleLogin.get(browser, base, "workflows.xhtml").body()).contains("it_fanout").contains(id);
    }

    @Test
    void a_second_start_for_a_subject_in_flight_is_refused_with_409() throws Exception {
        String subject = "s-" + UUID.randomUUID();
        String body = "{\"payload\": {\"subject\": \"" + subject + "\"}}";
        String first = call("POST", "api/workflows/it_fanout/instances", body, 201).getString("id");
        JsonObject refused = call("POST", "api/workflows/it_fanout/instances", body, 409);
        assertThat(refused.getString("error")).contains(first);
        awaitStatus(first, "completed");
        call("POST", "api/workflows/it_fanout/instances", body, 201);
    }

    @Test
    void a_list_of_instances_is_started_in_one_request_all_or_none() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String list = "[" + java.util.stream.IntStream.range(0, 5).mapToObj(i -> "{\"payload\": {\"subject\": \"l-" + run + "-" + i
                + "\"}}").collect(java.util.stream.Collectors.joining(", ")) + "]";
        java.net.http.HttpResponse<String> created = ApiCalls.admin(base, "POST", "api/workflows/it_fanout/instances", list);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        jakarta.json.JsonArray started = ApiCalls.json(created).asJsonArray();
        assertThat(started).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(started.getJsonObject(i).getString("subject")).as("in the order asked").isEqualTo("l-" + run + "-" + i);
        }
        started.forEach(v -> awaitStatus(v.asJsonObject().getString("id"), "completed"));

        // one subject of the list in flight: nothing of the list is stored
        String busy = call("POST", "api/workflows/it_fanout/instances", "{\"payload\": {\"subject\": \"b-" + run + "\"}}", 201)
                .getString("id");
        JsonObject refused = call("POST", "api/workflows/it_fanout/instances", "[{\"payload\": {\"subject\": \"n-" + run
                + "\"}}, {\"payload\": {\"subject\": \"b-" + run + "\"}}]", 409);
        assertThat(refused.getString("error")).contains("b-" + run).contains(busy);
        java.net.http.HttpResponse<String> listed = ApiCalls.admin(base, "GET", "api/workflow-instances?workflow=it_fanout&limit=200",
                null);
        assertThat(listed.statusCode()).isEqualTo(200);
        assertThat(listed.body()).contains("b-" + run).doesNotContain("n-" + run);

        // a bad item is named by its place in the list
        JsonObject bad = call("POST", "api/workflows/it_fanout/instances", "[{\"payload\": {}}, {\"payload\": 7}]", 400);
        assertThat(bad.getString("field")).isEqualTo("[1].payload");
        assertThat(call("POST", "api/workflows/it_fanout/instances", "[]", 400).getString("error")).contains("1 to 1000");
        assertThat(call("POST", "api/workflows/it_fanout/instances", "[3]", 400).getString("error")).contains("item 0");
    }

    @Test
    void an_invalid_json_definition_is_refused_naming_the_field() throws Exception {
        JsonObject cycle = call("PUT", "api/workflows/it_cycle", "{\"id\": \"it_cycle\", \"steps\": ["
                + "{\"id\": \"a\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"dependsOn\": [\"b\"]},"
                + "{\"id\": \"b\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"dependsOn\": [\"a\"]}]}", 400);
        assertThat(cycle.getString("field")).isEqualTo("steps");
        assertThat(cycle.getString("error")).contains("a -> b -> a");
        JsonObject unknown = call("PUT", "api/workflows/it_unknown", "{\"id\": \"it_unknown\", \"steps\": ["
                + "{\"id\": \"a\", \"actor\": \"nobody\", \"expectation\": \"echo\"}]}", 400);
        assertThat(unknown.getString("field")).isEqualTo("steps[0].actor");
        call("GET", "api/workflows/it_cycle", null, 404);
    }

    @Test
    void a_json_workflow_step_s_own_key_lets_one_episode_per_tenant_run_and_the_instance_says_why_the_other_waits()
            throws Exception {
        String wf = "it_step_key_" + UUID.randomUUID().toString().substring(0, 8);
        JsonObject noKey = call("PUT", "api/workflows/" + wf, "{\"id\": \"" + wf + "\", \"steps\": ["
                + "{\"id\": \"work\", \"actor\": \"it_actor\", \"expectation\": \"slow\", \"concurrencyLimit\": 1}]}", 400);
        assertThat(noKey.getString("field")).isEqualTo("steps[0].concurrencyKey");
        call("PUT", "api/workflows/" + wf, "{\"id\": \"" + wf + "\", \"subjectKey\": \"order\", \"steps\": ["
                + "{\"id\": \"work\", \"actor\": \"it_actor\", \"expectation\": \"slow\", \"concurrencyKey\": \"$.tenant\","
                + " \"concurrencyLimit\": 1}]}", 200);
        String acme1 = call("POST", "api/workflows/" + wf + "/instances", "{\"payload\": {\"order\": \"1\", \"tenant\": \"acme\"}}", 201)
                .getString("id");
        String acme2 = call("POST", "api/workflows/" + wf + "/instances", "{\"payload\": {\"order\": \"2\", \"tenant\": \"acme\"}}", 201)
                .getString("id");
        String globex = call("POST", "api/workflows/" + wf + "/instances", "{\"payload\": {\"order\": \"3\", \"tenant\": \"globex\"}}", 201)
                .getString("id");
        try {
            // the slow step runs for a minute: the first of acme and globex's run, the second of acme waits for its key
            JsonObject waiting = QueuedSteps.awaitOne(WAIT, "one acme step waiting for its key", List.of(acme1, acme2),
                    id -> call("GET", "api/workflow-instances/" + id, null, 200).getJsonArray("steps").getValuesAs(JsonObject.class));
            assertThat(waiting.getString("concurrencyKey")).isEqualTo("$.tenant");
            assertThat(waiting.getInt("concurrencyLimit")).isEqualTo(1);
            assertThat(waiting.getString("state")).isEqualTo("queued");
            assertThat(waiting.getString("queuedBecause")).isEqualTo("step " + wf + "/work key acme at limit 1/1");
            JsonObject other = Await.until(WAIT, "globex's step running", () -> {
                try {
                    JsonObject step = steps(call("GET", "api/workflow-instances/" + globex, null, 200)).get("work");
                    return step != null && "running".equals(step.getString("state")) ? step : null;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(!other.containsKey("queuedBecause") || other.isNull("queuedBecause")).as("a key of its own: not held up by acme's")
                    .isTrue();
        } finally {
            for (String id : List.of(acme1, acme2, globex)) {
                ApiCalls.admin(base, "POST", "api/workflow-instances/" + id + "/cancel", "");
            }
        }
    }

    @Test
    void a_json_workflow_s_signal_gate_opens_when_its_signal_arrives_through_the_api() throws Exception {
        String wf = "it_signal_" + UUID.randomUUID().toString().substring(0, 8);
        call("PUT", "api/workflows/" + wf, "{\"id\": \"" + wf + "\", \"steps\": ["
                + "{\"id\": \"first\", \"actor\": \"it_actor\", \"expectation\": \"echo\"},"
                + "{\"id\": \"gated\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"dependsOn\": [\"first\"],"
                + " \"signal\": \"go\"}]}", 200);
        JsonObject badGate = call("PUT", "api/workflows/" + wf + "x", "{\"id\": \"" + wf + "x\", \"steps\": ["
                + "{\"id\": \"a\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"signal\": \"no way\"}]}", 400);
        assertThat(badGate.getString("field")).isEqualTo("steps[0].signal");

        String id = call("POST", "api/workflows/" + wf + "/instances", "{}", 201).getString("id");
        JsonObject blocked = awaitStatus(id, "blocked");
        assertThat(blocked.getJsonObject("instance").getString("blockedReason")).contains("gated (signal go)");
        assertThat(call("POST", "api/workflow-instances/" + id + "/signals/go", "{\"extra\": 1}", 400).getString("field"))
                .isEqualTo("extra");
        assertThat(call("POST", "api/workflow-instances/" + id + "/signals/other", "{\"payload\": 1}", 409).getString("error"))
                .contains("waits for signal \"other\"");
        call("POST", "api/workflow-instances/" + UUID.randomUUID() + "/signals/go", "{\"payload\": 1}", 404);

        call("POST", "api/workflow-instances/" + id + "/signals/go", "{\"payload\": {\"by\": \"it\"}}", 200);
        awaitStatus(id, "completed");
        call("POST", "api/workflow-instances/" + id + "/signals/go", "{\"payload\": 1}", 409);
    }

    @Test
    void a_json_workflow_with_an_approval_gate_and_a_paused_failure_is_steered_through_the_api() throws Exception {
        String wf = "it_json_" + UUID.randomUUID().toString().substring(0, 8);
        call("PUT", "api/workflows/" + wf, "{\"id\": \"" + wf + "\", \"steps\": ["
                + "{\"id\": \"first\", \"actor\": \"it_actor\", \"expectation\": \"flaky\", \"onFailure\": \"pause\"},"
                + "{\"id\": \"gated\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"dependsOn\": [\"first\"],"
                + " \"approval\": true},"
                + "{\"id\": \"other\", \"actor\": \"it_actor\", \"expectation\": \"echo\"}]}", 200);
        assertThat(call("GET", "api/workflows/" + wf, null, 200).getString("origin")).isEqualTo("api");

        String id = call("POST", "api/workflows/" + wf + "/instances", "{}", 201).getString("id");
        JsonObject paused = awaitStatus(id, "blocked");
        assertThat(paused.getJsonObject("instance").getString("blockedReason")).contains("step first failed");

        call("POST", "api/workflow-instances/" + id + "/steps/first/retry", "", 200);
        JsonObject gated = Await.until(WAIT, "instance " + id + " blocked at the gate", () -> {
            try {
                JsonObject d = call("GET", "api/workflow-instances/" + id, null, 200);
                return d.getJsonObject("instance").getString("blockedReason", "").contains("await approval") ? d : null;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(steps(gated).get("first").getInt("attempt")).isEqualTo(2);
        call("POST", "api/workflow-instances/" + id + "/steps/gated/approve", "", 200);
        awaitStatus(id, "completed");

        // paused again, and this time the operator resumes the instance: the failed step runs again
        // and the gate counts as approved by the one who resumed it
        String again = call("POST", "api/workflows/" + wf + "/instances", "{}", 201).getString("id");
        awaitStatus(again, "blocked");
        call("POST", "api/workflow-instances/" + again + "/resume", "", 200);
        JsonObject resumed = awaitStatus(again, "completed");
        assertThat(steps(resumed).get("first").getInt("attempt")).isEqualTo(2);
        assertThat(resumed.getJsonArray("transitions").stream().map(JsonValue::asJsonObject)
                .filter(t -> t.getString("stepId", null) == null && t.getString("cause", "").startsWith("resumed by")))
                .as("the instance's own transition back to running, with its cause").hasSize(1);

        // an outcome: only "other", nothing else is scheduled
        String outcome = call("POST", "api/workflows/" + wf + "/instances", "{\"outcome\": \"other\"}", 201).getString("id");
        assertThat(steps(awaitStatus(outcome, "completed")).keySet()).containsExactly("other");

        call("POST", "api/workflows/" + wf + "/disable", "", 200);
        call("POST", "api/workflows/" + wf + "/instances", "{}", 409);
        HttpResponse<String> list = admin(base, "GET", "api/workflow-instances?workflow=" + wf + "&status=completed&limit=1", null);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(json(list).asJsonArray()).hasSize(1);
        String cursor = list.headers().firstValue("X-Next-Cursor").orElseThrow();
        HttpResponse<String> next = admin(base, "GET", "api/workflow-instances?workflow=" + wf + "&status=completed&limit=1"
                + "&cursor=" + ApiCalls.enc(cursor), null);
        assertThat(json(list).toString() + json(next).toString()).as("newest first, one per page")
                .contains(outcome).contains(again).doesNotContain(id);
    }

    @Test
    void an_instance_in_flight_runs_its_version_to_the_end_after_a_put_renames_its_gated_step() throws Exception {
        String wf = "it_versions_" + UUID.randomUUID().toString().substring(0, 8);
        String v1 = "{\"id\": \"" + wf + "\", \"steps\": ["
                + "{\"id\": \"first\", \"actor\": \"it_actor\", \"expectation\": \"echo\"},"
                + "{\"id\": \"gated\", \"actor\": \"it_actor\", \"expectation\": \"echo\", \"dependsOn\": [\"first\"],"
                + " \"approval\": true}]}";
        assertThat(call("PUT", "api/workflows/" + wf, v1, 200).getInt("version")).isEqualTo(1);
        assertThat(call("PUT", "api/workflows/" + wf, v1, 200).getInt("version")).as("the same document again").isEqualTo(1);
        String id = call("POST", "api/workflows/" + wf + "/instances", "{}", 201).getString("id");
        JsonObject blocked = awaitStatus(id, "blocked");
        assertThat(blocked.getJsonObject("instance").getInt("definitionVersion")).isEqualTo(1);

        // version 2 renames the gated step: the instance in flight still needs "gated"
        assertThat(call("PUT", "api/workflows/" + wf, v1.replace("\"gated\"", "\"renamed\""), 200).getInt("version"))
                .isEqualTo(2);
        HttpResponse<String> versions = admin(base, "GET", "api/workflows/" + wf + "/versions", null);
        assertThat(versions.statusCode()).isEqualTo(200);
        assertThat(json(versions).asJsonArray().stream().map(JsonValue::asJsonObject)
                .map(v -> v.getInt("version") + ":" + v.getBoolean("current") + ":" + v.getInt("instancesInFlight")))
                .containsExactly("2:true:0", "1:false:1");
        assertThat(call("GET", "api/workflows/" + wf, null, 200).getInt("version")).isEqualTo(2);

        call("POST", "api/workflow-instances/" + id + "/steps/gated/approve", "", 200);
        JsonObject done = awaitStatus(id, "completed");
        assertThat(steps(done).keySet()).containsExactlyInAnyOrder("first", "gated");
        String fresh = call("POST", "api/workflows/" + wf + "/instances", "{}", 201).getString("id");
        assertThat(steps(awaitStatus(fresh, "blocked")).keySet()).containsExactlyInAnyOrder("first", "renamed");

        java.net.http.HttpClient browser = ConsoleLogin.admin(base);
        assertThat(ConsoleLogin.get(browser, base, "workflow.xhtml?id=" + id).body()).contains("version 1");
        assertThat(ConsoleLogin.get(browser, base, "workflow.xhtml?id=" + fresh).body()).contains("version 2");
        call("POST", "api/workflow-instances/" + fresh + "/cancel", "", 200);
    }

    private String instanceFor(String workflow, String subject) throws Exception {
        try (Connection c = MicroDeployment.database();
                PreparedStatement ps = c.prepareStatement("SELECT id FROM cyclium_workflow_instances WHERE workflow_id = ?"
                        + " AND subject_value = ?")) {
            ps.setString(1, workflow);
            ps.setString(2, subject);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Test
    void an_event_published_in_a_callers_transaction_starts_its_instance_only_if_that_transaction_commits() throws Exception {
        String rolledBack = "rb-" + UUID.randomUUID();
        JsonObject r = call("POST", "api/it-publish?type=it.workflow.start&id=" + rolledBack + "&subject=" + rolledBack
                + "&rollback=true", "", 200);
        assertThat(r.getBoolean("transaction")).as("published inside a JTA transaction").isTrue();
        String committed = "ok-" + UUID.randomUUID();
        call("POST", "api/it-publish?type=it.workflow.start&id=" + committed + "&subject=" + committed + "&rollback=false", "", 200);

        String id = Await.until(WAIT, "the committed publisher's instance", () -> {
            try {
                return instanceFor("it_on_event", committed);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        JsonObject done = awaitStatus(id, "completed");
        assertThat(steps(done).get("only").getString("state")).isEqualTo("completed");
        // the rolled-back one was published first: had its instance been written outside the
        // caller's transaction, it would be there by now
        assertThat(instanceFor("it_on_event", rolledBack)).as("no instance from a rolled-back transaction").isNull();
    }

    @Test
    void host_code_whose_event_starts_a_workflow_instance_that_cannot_be_stored_sees_the_exception_from_fire()
            throws Exception {
        // a subject longer than the instance's subject column: the insert fails in the host's transaction
        String tooLong = "x".repeat(600);
        JsonObject r = call("POST", "api/it-publish?type=it.workflow.start&id=long-" + UUID.randomUUID() + "&subject=" + tooLong
                + "&rollback=false", "", 200);

        assertThat(r.getBoolean("transaction")).isTrue();
        assertThat(r.getString("refused", null)).as("fire threw").isNotNull().contains("Problem", "could not be stored");
        assertThat(instanceFor("it_on_event", tooLong)).isNull();
    }
}
