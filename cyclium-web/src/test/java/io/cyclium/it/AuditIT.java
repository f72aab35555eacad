package io.cyclium.it;

import static io.cyclium.it.ApiCalls.adminExpecting;
import static io.cyclium.it.ApiCalls.enc;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The audit trail from outside, through the API an operator uses: each family of actions (episode
 * steering, modes, workflows, maintenance) leaves its rows in {@code GET /api/audit}, with who,
 * which node, from which address, on what and how it ended; a refusal has a row too, a viewer may
 * read the trail and nothing in it is written by reading.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class AuditIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployment.productWarWithTestActors();
    }

    @ArquillianResource
    URL base;

    private JsonArray audit(String query) throws Exception {
        HttpResponse<String> r = ApiCalls.admin(base, "GET", "api/audit?" + query, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return ApiCalls.json(r).asJsonArray();
    }

    /** The rows on {@code subject} since {@code since}, oldest first, as "action outcome". */
    private List<String> trailOf(String subject, java.time.Instant since) throws Exception {
        List<String> rows = new java.util.ArrayList<>(audit("subject=" + enc(subject) + "&from=" + enc(since.toString()))
                .getValuesAs(JsonObject.class).stream()
                .map(o -> o.getString("action") + " " + o.getString("outcome")).toList());
        java.util.Collections.reverse(rows);
        return rows;
    }

    private String start(String expectation) throws Exception {
        return adminExpecting(base, "POST", "api/episodes", "{\"actor\": \"it_actor\", \"expectation\": \"" + expectation + "\"}", 201)
                .getString("episodeId");
    }

    private JsonObject awaitStatus(String id, String status) {
        return Await.until(WAIT, "episode " + id + " to be " + status, () -> {
            try {
                JsonObject e = adminExpecting(base, "GET", "api/episodes/" + id, null, 200);
                return status.equals(e.getJsonObject("episode").getString("status")) ? e : null;
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
    }

    @Test
    void starting_approving_canceling_and_restarting_episodes_each_leave_a_row_naming_the_admin_node_and_address() throws Exception {
        java.time.Instant since = java.time.Instant.now().minusSeconds(1);
        String blocked = start("resume");
        JsonObject detail = awaitStatus(blocked, "blocked");
        String hash = detail.getJsonArray("steps").getValuesAs(JsonObject.class).stream()
                .filter(s -> s.getString("kind").equals("approval_requested")).findFirst().orElseThrow()
                .getString("detail").replaceAll(".*\"planHash\":\"([0-9a-f]+)\".*", "$1");
        assertThat(ApiCalls.admin(base, "POST", "api/episodes/" + blocked + "/approve", "{\"planHash\": \"" + "0".repeat(64) + "\"}")
                .statusCode()).isEqualTo(409);
        adminExpecting(base, "POST", "api/episodes/" + blocked + "/approve", "{\"planHash\": \"" + hash + "\"}", 200);

        String slow = start("slow");
        adminExpecting(base, "POST", "api/episodes/" + slow + "/cancel", null, 200);
        awaitStatus(slow, "canceled");
        adminExpecting(base, "POST", "api/episodes/" + slow + "/restart", null, 200);
        adminExpecting(base, "POST", "api/episodes/" + slow + "/cancel", null, 200);

        assertThat(trailOf(blocked, since)).containsExactly("episode.start ok", "episode.approve refused", "episode.approve ok");
        assertThat(trailOf(slow, since)).containsExactly("episode.start ok", "episode.cancel ok", "episode.restart ok", "episode.cancel ok");
        JsonObject approved = audit("subject=" + blocked + "&action=episode.approve&outcome=ok").getJsonObject(0);
        assertThat(approved.getString("user")).isEqualTo("admin");
        assertThat(approved.getString("node")).isEqualTo("arquillian-node-1");
        assertThat(approved.getString("address")).isIn("127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(approved.getString("subjectKind")).isEqualTo("episode");
        assertThat(approved.getString("detail")).isEqualTo("plan " + hash);
        assertThat(approved.getString("at")).isNotBlank();
        JsonObject refused = audit("subject=" + blocked + "&outcome=refused").getJsonObject(0);
        assertThat(refused.getString("reason")).contains("planHash does not match");
    }

    @Test
    void mode_switches_workflow_changes_and_a_retention_run_each_leave_a_row() throws Exception {
        // the actors and workflows are the deployment's: an earlier run's rows on them stay in the database
        java.time.Instant since = java.time.Instant.now().minusSeconds(1);
        adminExpecting(base, "PUT", "api/mode/actors/it_answers", "{\"mode\": \"trigger_only\"}", 200);
        adminExpecting(base, "DELETE", "api/mode/actors/it_answers", null, 200);
        adminExpecting(base, "POST", "api/workflows/it_fanout/disable", null, 200);
        adminExpecting(base, "POST", "api/workflows/it_fanout/enable", null, 200);
        JsonObject run = adminExpecting(base, "POST", "api/maintenance/retention", null, 202);

        assertThat(trailOf("it_answers", since)).containsExactly("actor.mode ok", "actor.mode-clear ok");
        // another test starts instances of it_fanout meanwhile (workflow.start rows on the same subject)
        assertThat(trailOf("it_fanout", since)).filteredOn(r -> !r.startsWith("workflow.start"))
                .containsExactly("workflow.disable ok", "workflow.enable ok");
        assertThat(trailOf(run.getString("runId"), since)).containsExactly("retention.run ok");
        assertThat(audit("subjectKind=actor&subject=it_answers&action=actor.mode").getJsonObject(0).getString("detail"))
                .isEqualTo("trigger_only on arquillian-node-1");
    }

    @Test
    void the_console_lists_an_episodes_trail_linking_to_the_episode_with_the_exact_time_on_hover() throws Exception {
        String id = start("slow");
        adminExpecting(base, "POST", "api/episodes/" + id + "/cancel", null, 200);
        java.net.http.HttpClient browser = ConsoleLogin.admin(base);

        HttpResponse<String> page = ConsoleLogin.get(browser, base, "audit.xhtml?subject=" + id);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("episode.cancel").contains("episode.start")
                .contains("href=\"episode.xhtml?id=" + id + "\"")
                .containsPattern("<time [^>]*class=\"rel\"[^>]*title=\"[^\"]+\"");
        assertThat(ConsoleLogin.get(browser, base, "episode.xhtml?id=" + id).body())
                .as("the episode links to its own trail").contains("audit.xhtml?subject=" + id);
        HttpResponse<String> bad = ConsoleLogin.get(browser, base, "audit.xhtml?action=episode.delete");
        assertThat(bad.statusCode()).isEqualTo(200);
        assertThat(bad.body()).contains("is not one of");
    }

    @Test
    void an_instances_start_and_cancel_a_sweep_and_a_refused_output_retry_each_leave_a_row() throws Exception {
        java.time.Instant since = java.time.Instant.now().minusSeconds(1);
        String subject = "audit-" + java.util.UUID.randomUUID();
        String instance = adminExpecting(base, "POST", "api/workflows/it_fanout/instances", "{\"subject\": \"" + subject + "\"}", 201)
                .getString("id");
        HttpResponse<String> cancel = ApiCalls.admin(base, "POST", "api/workflow-instances/" + instance + "/cancel", null);
        assertThat(cancel.statusCode()).as(cancel.body()).isIn(200, 409);
        adminExpecting(base, "POST", "api/recovery/sweep", "{}", 200);
        String output = java.util.UUID.randomUUID().toString();
        assertThat(ApiCalls.admin(base, "POST", "api/outputs/" + output + "/retry", null).statusCode()).isIn(404, 409);

        assertThat(audit("action=workflow.start&subject=it_fanout&from=" + enc(since.toString())).getValuesAs(JsonObject.class))
                .extracting(o -> o.getString("detail")).contains("instance " + instance);
        assertThat(trailOf(instance, since)).containsExactly(cancel.statusCode() == 200 ? "instance.cancel ok" : "instance.cancel refused");
        assertThat(audit("action=recovery.sweep&from=" + enc(since.toString())).getValuesAs(JsonObject.class))
                .extracting(o -> o.getString("outcome")).containsExactly("ok");
        assertThat(trailOf(output, since)).containsExactly("output.retry refused");
    }

    @Test
    void a_viewer_reads_the_trail_but_a_bad_filter_is_a_400_naming_the_field() throws Exception {
        HttpResponse<String> asViewer = ApiCalls.send(base, "GET", "api/audit?limit=5", ConsoleUsers.viewer(), null);
        assertThat(asViewer.statusCode()).isEqualTo(200);
        HttpResponse<String> bad = ApiCalls.admin(base, "GET", "api/audit?action=episode.delete", null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"field\":\"action\"").contains("episode.approve");
        assertThat(ApiCalls.admin(base, "GET", "api/audit?subjectKind=planet", null).body()).contains("\"field\":\"subjectKind\"");
    }

    @Test
    void the_trail_pages_by_cursor_without_repeating_a_row() throws Exception {
        for (int i = 0; i < 3; i++) {
            adminExpecting(base, "PUT", "api/mode", "{\"mode\": \"full\"}", 200);
        }
        assertThat(audit("action=node.mode&limit=3").getValuesAs(JsonObject.class)).extracting(o -> o.getString("detail"))
                .containsOnly("full → full");
        HttpResponse<String> first = ApiCalls.admin(base, "GET", "api/audit?limit=2", null);
        String cursor = first.headers().firstValue("X-Next-Cursor").orElseThrow();
        JsonArray second = audit("limit=2&cursor=" + enc(cursor));
        List<String> ids = new java.util.ArrayList<>(ApiCalls.json(first).asJsonArray().getValuesAs(JsonObject.class).stream()
                .map(o -> o.getString("id")).toList());
        second.getValuesAs(JsonObject.class).forEach(o -> ids.add(o.getString("id")));
        assertThat(ids).hasSize(4).doesNotHaveDuplicates();
        assertThat(second.get(0)).isNotEqualTo(JsonValue.NULL);
    }
}
