package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.adminExpecting;
import static io.cyclium.it.ApiCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.Test;

/**
 * Bulk actions through the REST API of the Arquillian node: preview (viewers too), bad bodies
 * answered with a 400 naming the field, an unconfirmed or changed set refused, a confirmed cancel
 * run to its end with a result per item, audited. An interface so that {@link EpisodesIT} (whose
 * deployment has the test actors) runs these without booting another server.
 */
interface BulkActionApiTests {

    /** Blocked "bulk_waiter" episodes of it_actor started now, and the filter that matches exactly them (and later ones). */
    record Waiting(List<String> ids, String filter) {
    }

    static Waiting waiters(URL base, int n) throws Exception {
        // the filter is on the start time, which a cancel or restart of an earlier test's episode
        // moves: begin the window well after whatever settled before this test
        Thread.sleep(300);
        String from = Instant.now().minusMillis(200).toString();
        Thread.sleep(300);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(adminExpecting(base, "POST", "api/episodes", "{\"actor\":\"it_actor\",\"expectation\":\"bulk_waiter\","
                    + "\"idempotencyKey\":\"bulk-" + UUID.randomUUID() + "\"}", 201).getString("episodeId"));
        }
        for (String id : ids) {
            awaitStatus(base, id, "blocked");
        }
        return new Waiting(ids, "{\"actor\":\"it_actor\",\"expectation\":\"bulk_waiter\",\"from\":\"" + from + "\"}");
    }

    static String status(URL base, String episodeId) throws Exception {
        return json(admin(base, "GET", "api/episodes/" + episodeId, null)).asJsonObject().getJsonObject("episode")
                .getString("status");
    }

    static void awaitStatus(URL base, String episodeId, String wanted) {
        Await.until(Duration.ofSeconds(20), "episode " + episodeId + " " + wanted, () -> {
            try {
                return wanted.equals(status(base, episodeId)) ? wanted : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    static JsonObject awaitDone(URL base, String actionId) {
        return Await.until(Duration.ofSeconds(30), "bulk action " + actionId + " done", () -> {
            try {
                JsonObject page = adminExpecting(base, "GET", "api/bulk-actions/" + actionId + "?limit=500", null, 200);
                return "done".equals(page.getJsonObject("action").getString("status")) ? page : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void refused(URL base, String path, String body, int status, String field) throws Exception {
        HttpResponse<String> r = admin(base, "POST", path, body);
        assertThat(r.statusCode()).as(body + " → " + r.body()).isEqualTo(status);
        if (field != null) {
            assertThat(json(r).asJsonObject().getString("field", null)).as(body + " → " + r.body()).isEqualTo(field);
        }
    }

    @Test
    @RunAsClient
    default void bad_bodies_are_400s_naming_the_field_and_an_unconfirmed_or_changed_set_is_refused(@ArquillianResource URL base)
            throws Exception {
        Waiting w = waiters(base, 2);
        String cancel = "{\"action\":\"cancel\",\"filter\":" + w.filter();

        refused(base, "api/bulk-actions/preview", "{\"action\":\"delete\",\"filter\":" + w.filter() + "}", 400, "action");
        refused(base, "api/bulk-actions/preview", "{\"filter\":" + w.filter() + "}", 400, "action");
        refused(base, "api/bulk-actions/preview", "{\"action\":\"cancel\",\"filter\":{\"actr\":\"it_actor\"}}", 400, "filter.actr");
        refused(base, "api/bulk-actions/preview", "{\"action\":\"cancel\",\"filter\":{\"status\":\"asleep\"}}", 400, "filter.status");
        refused(base, "api/bulk-actions/preview", "{\"action\":\"cancel\",\"filter\":{\"from\":\"yesterday\"}}", 400, "filter.from");
        refused(base, "api/bulk-actions/preview", "{\"action\":\"cancel\",\"filter\":{}}", 400, "filter");
        refused(base, "api/bulk-actions/preview", "{\"action\":\"cancel\",\"filter\":[1]}", 400, "filter");
        refused(base, "api/bulk-actions/preview", "not json", 400, null);
        refused(base, "api/bulk-actions", cancel + "}", 400, "confirm");
        refused(base, "api/bulk-actions", cancel + ",\"expectedCount\":\"two\"}", 400, "expectedCount");
        refused(base, "api/bulk-actions", cancel + ",\"expectedCount\":5}", 409, null);
        refused(base, "api/bulk-actions", cancel + ",\"token\":\"2-000000000000000000000000\"}", 409, null);
        HttpResponse<String> viewer = ApiCalls.send(base, "POST", "api/bulk-actions", ConsoleUsers.viewer(),
                cancel + ",\"expectedCount\":2}");
        assertThat(viewer.statusCode()).as("a viewer may not start one").isEqualTo(403);

        assertThat(w.ids()).allSatisfy(id -> {
            try {
                assertThat(status(base, id)).as("nothing was done").isEqualTo("blocked");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        String left = adminExpecting(base, "POST", "api/bulk-actions", cancel + ",\"expectedCount\":2}", 202).getString("id");
        // leaves nothing blocked behind, and nothing still moving when the next test starts
        awaitDone(base, left);
        for (String id : w.ids()) {
            awaitStatus(base, id, "canceled");
        }
    }

    @Test
    @RunAsClient
    default void a_confirmed_bulk_cancel_cancels_each_episode_once_and_records_the_finished_one_as_skipped(
            @ArquillianResource URL base) throws Exception {
        Waiting w = waiters(base, 3);
        adminExpecting(base, "POST", "api/episodes/" + w.ids().get(0) + "/cancel", null, 200);
        awaitStatus(base, w.ids().get(0), "canceled");
        String body = "{\"action\":\"cancel\",\"filter\":" + w.filter() + "}";

        HttpResponse<String> asViewer = ApiCalls.send(base, "POST", "api/bulk-actions/preview", ConsoleUsers.viewer(), body);
        assertThat(asViewer.statusCode()).as("a viewer may preview: " + asViewer.body()).isEqualTo(200);
        JsonObject preview = json(asViewer).asJsonObject();
        assertThat(preview.getInt("count")).isEqualTo(3);
        assertThat(preview.getJsonArray("sample")).hasSize(3);
        String token = preview.getString("token");

        HttpResponse<String> started = admin(base, "POST", "api/bulk-actions",
                "{\"action\":\"cancel\",\"filter\":" + w.filter() + ",\"token\":\"" + token + "\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String id = json(started).asJsonObject().getString("id");
        assertThat(started.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("/bulk-actions/" + id));
        assertThat(json(started).asJsonObject().getInt("total")).isEqualTo(3);

        JsonObject page = awaitDone(base, id);
        JsonObject action = page.getJsonObject("action");
        assertThat(action.getInt("done")).isEqualTo(2);
        assertThat(action.getInt("skipped")).isEqualTo(1);
        assertThat(action.getInt("failed")).isZero();
        assertThat(action.getString("createdBy")).isEqualTo("admin");
        for (String e : w.ids()) {
            assertThat(status(base, e)).isEqualTo("canceled");
        }
        JsonObject skipped = adminExpecting(base, "GET", "api/bulk-actions/" + id + "?result=skipped", null, 200)
                .getJsonArray("items").getJsonObject(0);
        assertThat(skipped.getString("episodeId")).isEqualTo(w.ids().get(0));
        assertThat(skipped.getString("reason")).isEqualTo("episode " + w.ids().get(0) + " is already canceled");
        refused(base, "api/bulk-actions", "{\"action\":\"restart\",\"filter\":" + w.filter() + ",\"token\":\"" + token + "\"}",
                409, null); // a preview's token confirms its own action only

        assertThat(json(admin(base, "GET", "api/bulk-actions?limit=50", null)).asJsonArray().stream()
                .map(v -> v.asJsonObject().getString("id"))).contains(id);
        JsonObject audit = json(admin(base, "GET", "api/audit?action=bulk.start&subject=" + id, null)).asJsonArray()
                .getJsonObject(0);
        assertThat(audit.getString("user")).isEqualTo("admin");
        assertThat(audit.getString("outcome")).isEqualTo("ok");
        assertThat(audit.getString("detail")).startsWith("cancel of 3 episodes matching {");
        adminExpecting(base, "GET", "api/bulk-actions/" + UUID.randomUUID(), null, 404);
        for (String[] bad : new String[][] {{"limit=0", "limit"}, {"limit=abc", "limit"}, {"result=asleep", "result"},
                {"after=-1", "after"}}) {
            HttpResponse<String> r = admin(base, "GET", "api/bulk-actions/" + id + "?" + bad[0], null);
            assertThat(r.statusCode()).as(bad[0] + " → " + r.body()).isEqualTo(400);
            assertThat(json(r).asJsonObject().getString("field")).isEqualTo(bad[1]);
        }
        // the same three, now canceled: a bulk restart runs each again from its checkpoint (they wait again), and a
        // bulk output retry skips each (none has a failed output)
        JsonObject restart = adminExpecting(base, "POST", "api/bulk-actions",
                "{\"action\":\"restart\",\"filter\":" + w.filter() + ",\"expectedCount\":3}", 202);
        JsonObject restarted = awaitDone(base, restart.getString("id"));
        assertThat(restarted.getJsonObject("action").getInt("done")).as(restarted.toString()).isEqualTo(3);
        assertThat(restarted.getJsonArray("items").getJsonObject(0).getString("reason")).isEqualTo("restarted from its latest checkpoint");
        for (String e : w.ids()) {
            awaitStatus(base, e, "blocked");
        }
        JsonObject outputs = adminExpecting(base, "POST", "api/bulk-actions",
                "{\"action\":\"output-retry\",\"filter\":" + w.filter() + ",\"expectedCount\":3}", 202);
        JsonObject retried = awaitDone(base, outputs.getString("id"));
        assertThat(retried.getJsonObject("action").getInt("skipped")).as(retried.toString()).isEqualTo(3);
        assertThat(retried.getJsonArray("items").getJsonObject(0).getString("reason")).endsWith("has no failed output");
        adminExpecting(base, "POST", "api/bulk-actions", "{\"action\":\"cancel\",\"filter\":" + w.filter()
                + ",\"expectedCount\":3}", 202); // leaves nothing blocked behind

        JsonObject firstPage = adminExpecting(base, "GET", "api/bulk-actions/" + id + "?limit=2", null, 200);
        assertThat(firstPage.getJsonArray("items")).hasSize(2);
        assertThat(firstPage.getInt("nextAfter")).isEqualTo(2);
        assertThat(adminExpecting(base, "GET", "api/bulk-actions/" + id + "?after=2", null, 200).getJsonArray("items"))
                .hasSize(1);
    }

    @Test
    @RunAsClient
    default void a_cancel_of_a_running_bulk_action_skips_its_unprocessed_items_and_a_second_cancel_is_a_409(
            @ArquillianResource URL base) throws Exception {
        Waiting w = waiters(base, 60);
        JsonObject started = adminExpecting(base, "POST", "api/bulk-actions",
                "{\"action\":\"cancel\",\"filter\":" + w.filter() + ",\"expectedCount\":60}", 202);
        String id = started.getString("id");

        // sent at once: the node takes three transactions per item, 60 items take far longer than this request
        HttpResponse<String> canceled = admin(base, "POST", "api/bulk-actions/" + id + "/cancel", null);
        assertThat(canceled.statusCode()).as(canceled.body()).isEqualTo(200);
        assertThat(json(canceled).asJsonObject().getString("status")).isEqualTo("canceled");

        JsonObject page = Await.until(Duration.ofSeconds(20), "no item of " + id + " open", () -> {
            try {
                JsonObject p = adminExpecting(base, "GET", "api/bulk-actions/" + id + "?limit=500", null, 200);
                return p.getJsonObject("action").getInt("pending") == 0 ? p : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        JsonObject action = page.getJsonObject("action");
        assertThat(action.getString("status")).isEqualTo("canceled");
        assertThat(action.getInt("skipped")).as(action.toString()).isPositive();
        assertThat(action.getInt("done") + action.getInt("skipped")).as(action.toString()).isEqualTo(60);
        int stillBlocked = 0;
        for (jakarta.json.JsonValue v : page.getJsonArray("items")) {
            JsonObject item = v.asJsonObject();
            String episode = status(base, item.getString("episodeId"));
            if (item.getString("result").equals("skipped")) {
                assertThat(item.getString("reason")).isEqualTo("action canceled");
                assertThat(episode).as("not acted on after the cancel").isEqualTo("blocked");
                stillBlocked++;
            } else {
                assertThat(episode).isEqualTo("canceled");
            }
        }
        assertThat(stillBlocked).isEqualTo(action.getInt("skipped"));

        HttpResponse<String> again = admin(base, "POST", "api/bulk-actions/" + id + "/cancel", null);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(json(again).asJsonObject().getString("error")).contains("is canceled");
        adminExpecting(base, "POST", "api/bulk-actions/" + UUID.randomUUID() + "/cancel", null, 404);
        List<String> audited = json(admin(base, "GET", "api/audit?action=bulk.cancel&subject=" + id, null)).asJsonArray()
                .stream().map(v -> v.asJsonObject()).map(a -> a.getString("user") + " " + a.getString("outcome") + " "
                        + a.getString("detail", "")).toList();
        assertThat(audited).as("newest first: the second cancel refused, the first ok with what it did").hasSize(2);
        assertThat(audited.get(0)).startsWith("admin refused ");
        assertThat(audited.get(1)).startsWith("admin ok cancel of 60 episodes: ").contains(action.getInt("skipped")
                + " not yet processed skipped");
        HttpResponse<String> asViewer = ApiCalls.send(base, "POST", "api/bulk-actions/" + id + "/cancel", ConsoleUsers.viewer(),
                null);
        assertThat(asViewer.statusCode()).isEqualTo(403);

        adminExpecting(base, "POST", "api/bulk-actions", "{\"action\":\"cancel\",\"filter\":" + w.filter()
                + ",\"expectedCount\":60}", 202); // leaves nothing blocked behind
    }
}
