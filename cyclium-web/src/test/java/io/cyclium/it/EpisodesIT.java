package io.cyclium.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.runtime.ActorHost;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.runtime.FireResult;
import io.cyclium.operations.EpisodeDetail;
import io.cyclium.operations.EpisodeService;
import io.cyclium.operations.EpisodeView;
import io.cyclium.operations.StepView;
import io.cyclium.finding.Findings;
import io.cyclium.finding.FindingView;
import io.cyclium.it.actors.CountingAdapter;
import io.cyclium.it.actors.ItStrategies;
import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeModes;
import io.cyclium.problem.Problem;
import io.cyclium.trigger.TriggerPoller;
import io.cyclium.recovery.RecoverySweep;
import io.cyclium.recovery.SweepReport;
import io.cyclium.recovery.SweepScope;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.Tx;
import io.cyclium.store.JsonText;
import jakarta.inject.Inject;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.test.api.ArquillianResource;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Episodes end to end inside a real Payara Micro: triggers, dedupe, journal, checkpoints, findings, outputs. */
@ExtendWith(ArquillianExtension.class)
class EpisodesIT implements CommandLineClientTests, BulkActionApiTests {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Deployment
    static WebArchive deployment() {
        return MicroDeployment.productWarWithTestActors();
    }

    @Inject
    ActorHost host;

    @Inject
    EpisodeService episodes;

    @Inject
    Findings findings;

    private List<EpisodeView> withKey(String expectation, String dedupeKey) {
        return episodes.list("it_actor", expectation, null, 500).stream()
                .filter(e -> dedupeKey.equals(e.dedupeKey())).toList();
    }

    private EpisodeView awaitStatus(String episodeId, String... statuses) {
        return Await.until(WAIT, "episode " + episodeId + " to reach " + List.of(statuses), () -> {
            EpisodeView e = episodes.detail(episodeId).episode();
            return List.of(statuses).contains(e.status()) ? e : null;
        });
    }

    private static List<String> kinds(EpisodeDetail d) {
        return d.steps().stream().map(StepView::kind).toList();
    }

    private FireResult start(String expectation, JsonObject payload) {
        return episodes.startManual("it_actor", expectation, payload, UUID.randomUUID().toString());
    }

    @Test
    void an_event_yields_one_episode_that_reaches_done_with_its_journal() {
        String eventId = "evt-" + UUID.randomUUID();
        Map<String, Map<String, String>> routed = host.publish(new CycliumEvent("it.echo", eventId,
                Json.createObjectBuilder().add("n", 1).build()));
        String key = routed.get("it_actor").get("echo");
        assertThat(key).startsWith("event:it_actor:echo:");
        EpisodeView e = Await.until(WAIT, "the echo episode", () -> withKey("echo", key).stream().findFirst().orElse(null));
        EpisodeView done = awaitStatus(e.id(), "done");
        assertThat(done.runNode()).isEqualTo("arquillian-node-1");
        assertThat(done.summary()).contains("echoed");
        EpisodeDetail detail = episodes.detail(e.id());
        assertThat(kinds(detail)).containsExactly("observation", "episode_completed");
        assertThat(detail.claim()).as("the lease it ran under, settled").isNotNull();
        assertThat(detail.claim().key()).isEqualTo(key);
        assertThat(detail.claim().owner()).isEqualTo("arquillian-node-1");
        assertThat(detail.claim().state()).isEqualTo("done");
        assertThat(detail.claim().fence()).isGreaterThanOrEqualTo(1);
        assertThat(detail.claim().secondsLeft()).as("only a held lease has time left").isNull();
    }

    @Test
    void an_event_published_in_a_transaction_that_rolls_back_leaves_no_episode_behind() throws Exception {
        // group commit batches only writes made outside a caller's transaction: this one must go
        // with the caller's, so its rollback takes the episode row and its lease with it
        jakarta.transaction.UserTransaction ut = javax.naming.InitialContext.doLookup("java:comp/UserTransaction");
        String eventId = "evt-" + UUID.randomUUID();
        ut.begin();
        String key;
        try {
            key = host.publish(new CycliumEvent("it.echo", eventId, Json.createObjectBuilder().add("n", 2).build()))
                    .get("it_actor").get("echo");
        } finally {
            ut.rollback();
        }
        Thread.sleep(2_000); // a task started before the rollback would have written by now
        assertThat(withKey("echo", key)).as("no episode for the rolled-back event").isEmpty();

        // the same event again, committed this time: its key is free and it runs once, after the commit
        ut.begin();
        try {
            host.publish(new CycliumEvent("it.echo", eventId, Json.createObjectBuilder().add("n", 2).build()));
        } finally {
            ut.commit();
        }
        EpisodeView e = Await.until(WAIT, "the committed echo episode", () -> withKey("echo", key).stream().findFirst()
                .orElse(null));
        assertThat(awaitStatus(e.id(), "done").summary()).contains("echoed");
        assertThat(withKey("echo", key)).hasSize(1);
    }

    @Test
    void the_same_event_published_twice_and_from_8_threads_yields_one_episode() throws Exception {
        String eventId = "evt-" + UUID.randomUUID();
        CycliumEvent event = new CycliumEvent("it.echo", eventId, Json.createObjectBuilder().add("same", true).build());
        String key = host.publish(event).get("it_actor").get("echo");
        host.publish(event);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Object>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(() -> host.publish(event));
            }
            for (Future<Object> f : pool.invokeAll(calls)) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        EpisodeView e = Await.until(WAIT, "the episode", () -> withKey("echo", key).stream().findFirst().orElse(null));
        awaitStatus(e.id(), "done");
        Thread.sleep(500); // jitter is at most 200 ms: every publish has tried its insert by now
        assertThat(withKey("echo", key)).hasSize(1);
    }

    @Test
    void an_event_without_an_id_is_keyed_by_its_type_and_payload() {
        JsonObject payload = Json.createObjectBuilder().add("z", 1).add("a", UUID.randomUUID().toString()).build();
        String first = host.publish(new CycliumEvent("it.echo", null, payload)).get("it_actor").get("echo");
        JsonObject reordered = Json.createObjectBuilder().add("a", payload.getString("a")).add("z", 1).build();
        String second = host.publish(new CycliumEvent("it.echo", null, reordered)).get("it_actor").get("echo");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void a_schedule_fires_once_per_bucket() {
        EpisodeView tick = Await.until(Duration.ofSeconds(15), "a scheduled tick episode", () ->
                episodes.list("it_actor", "tick", "done", 50).stream().findFirst().orElse(null));
        assertThat(tick.triggerType()).isEqualTo("schedule");
        assertThat(tick.dedupeKey()).startsWith("schedule:it_actor:tick:");
        List<EpisodeView> all = episodes.list("it_actor", "tick", null, 500);
        assertThat(all.stream().map(EpisodeView::dedupeKey).distinct().count()).isEqualTo(all.size());
    }

    @Test
    void checkpoint_then_approval_resumes_from_the_checkpoint_without_starting_over() {
        FireResult r = start("resume", Json.createObjectBuilder().build());
        awaitStatus(r.episodeId(), "blocked");
        EpisodeDetail blocked = episodes.detail(r.episodeId());
        assertThat(kinds(blocked)).containsExactly("observation", "checkpoint", "approval_requested");
        String hash = JsonText.parseObject(blocked.steps().get(2).detail()).getString("planHash");

        assertThatThrownBy(() -> episodes.approve(r.episodeId(), "0".repeat(64)))
                .isInstanceOf(Problem.class).hasMessageContaining("planHash does not match");
        episodes.approve(r.episodeId(), hash);

        EpisodeView done = awaitStatus(r.episodeId(), "done");
        assertThat(done.summary()).isEqualTo("resumed with step 3");
        assertThat(ItStrategies.INITS.get(r.episodeId()).get()).as("init calls").isEqualTo(1);
        assertThat(kinds(episodes.detail(r.episodeId()))).containsExactly("observation", "checkpoint",
                "approval_requested", "approval_resolved", "resumed", "episode_completed");
    }

    @Test
    void a_wait_blocks_until_its_reference_is_resolved_and_hands_the_value_back() {
        FireResult r = start("waiter", Json.createObjectBuilder().build());
        awaitStatus(r.episodeId(), "blocked");
        assertThatThrownBy(() -> episodes.resolveWait(r.episodeId(), "ticket-7", Json.createValue("no")))
                .isInstanceOf(Problem.class).hasMessageContaining("waits for \"ticket-42\"");
        episodes.resolveWait(r.episodeId(), "ticket-42", Json.createObjectBuilder().add("ok", true).build());
        EpisodeView done = awaitStatus(r.episodeId(), "done");
        assertThat(done.summary()).isEqualTo("resolved with {\"ok\":true}");
        assertThat(kinds(episodes.detail(r.episodeId()))).containsExactly("wait_started", "wait_resolved", "resumed",
                "episode_completed");
    }

    @Test
    void denying_a_plan_cancels_the_episode() {
        FireResult r = start("resume", Json.createObjectBuilder().build());
        awaitStatus(r.episodeId(), "blocked");
        String hash = JsonText.parseObject(episodes.detail(r.episodeId()).steps().get(2).detail()).getString("planHash");
        episodes.deny(r.episodeId(), hash);
        EpisodeView e = awaitStatus(r.episodeId(), "canceled");
        assertThat(e.errorClass()).isEqualTo("denied");
    }

    @Test
    void findings_are_raised_and_cleared_per_env() {
        String key = "it-finding-" + UUID.randomUUID();
        awaitStatus(start("finding", Json.createObjectBuilder().add("key", key).build()).episodeId(), "done");
        awaitStatus(start("finding", Json.createObjectBuilder().add("key", key).add("env", "rc").build()).episodeId(), "done");
        assertThat(findings.activeFor(Map.of("finding_key", key), null)).hasSize(1);
        assertThat(findings.activeFor(Map.of("finding_key", key), "rc")).hasSize(1);

        awaitStatus(start("finding", Json.createObjectBuilder().add("key", key).add("op", "clear").build()).episodeId(), "done");
        assertThat(findings.activeFor(Map.of("finding_key", key), null)).isEmpty();
        List<FindingView> rc = findings.activeFor(Map.of("finding_key", key), "rc");
        assertThat(rc).hasSize(1);
        assertThat(rc.get(0).env()).isEqualTo("rc");
    }

    @Test
    void eight_concurrent_routes_of_one_output_key_call_the_adapter_once() throws Exception {
        String dedupeKey = "it-output-" + UUID.randomUUID();
        List<String> ids = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<FireResult>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(() -> start("output", Json.createObjectBuilder().add("dedupeKey", dedupeKey).build()));
            }
            for (Future<FireResult> f : pool.invokeAll(calls)) {
                ids.add(f.get().episodeId());
            }
        } finally {
            pool.shutdown();
        }
        for (String id : ids) {
            awaitStatus(id, "done");
        }
        assertThat(CountingAdapter.CALLS.get(dedupeKey).get()).isEqualTo(1);
        long rows = ids.stream().mapToLong(id -> episodes.detail(id).outputs().size()).sum();
        assertThat(rows).isEqualTo(1);
    }

    @Test
    void cancel_stops_a_running_episode_at_its_next_step() {
        FireResult r = start("slow", Json.createObjectBuilder().build());
        Await.until(WAIT, "two steps", () -> episodes.detail(r.episodeId()).steps().size() >= 2);
        episodes.cancel(r.episodeId());
        EpisodeView e = awaitStatus(r.episodeId(), "canceled");
        assertThat(e.errorClass()).isEqualTo("canceled");
        assertThatThrownBy(() -> episodes.cancel(r.episodeId())).isInstanceOf(Problem.class)
                .hasMessageContaining("already canceled");
    }

    @Test
    void a_step_budget_fails_the_episode_as_budget_exceeded() {
        FireResult r = start("forever", Json.createObjectBuilder().build());
        EpisodeView e = awaitStatus(r.episodeId(), "failed");
        assertThat(e.errorClass()).isEqualTo("budget_exceeded");
        assertThat(kinds(episodes.detail(r.episodeId())).stream().filter("observation"::equals)).hasSize(5);
    }

    @Test
    void a_wall_time_budget_fails_the_episode_as_budget_exceeded() {
        FireResult r = start("walltime", Json.createObjectBuilder().build());
        EpisodeView e = awaitStatus(r.episodeId(), "failed");
        assertThat(e.errorClass()).isEqualTo("budget_exceeded");
        String last = episodes.detail(r.episodeId()).steps().get(episodes.detail(r.episodeId()).steps().size() - 1).detail();
        assertThat(last).contains("wall time budget of 600 ms");
    }

    // ---- the HTTP API, called from outside like any client ------------------------------------

    private static HttpResponse<String> call(URL base, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                .header("Content-Type", "application/json").header("Authorization", ConsoleUsers.admin());
        b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.method(method, HttpRequest.BodyPublishers.ofString(body));
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int echoEpisodes(URL base) throws Exception {
        HttpResponse<String> r = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=500", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return Json.createReader(new StringReader(r.body())).readArray().size();
    }

    private static JsonObject object(HttpResponse<String> r) {
        return Json.createReader(new StringReader(r.body())).readObject();
    }

    private static String awaitStatusOverHttp(URL base, String episodeId, String status) {
        return Await.until(WAIT, "episode " + episodeId + " " + status, () -> {
            try {
                JsonObject d = object(call(base, "GET", "api/episodes/" + episodeId, null));
                return status.equals(d.getJsonObject("episode").getString("status")) ? d.toString() : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @RunAsClient
    void a_signal_over_the_api_is_kept_for_another_name_delivered_to_the_wait_and_refused_once_the_episode_is_done(
            @ArquillianResource URL base) throws Exception {
        HttpResponse<String> started = call(base, "POST", "api/episodes", "{\"actor\":\"it_actor\",\"expectation\":\"waiter\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        String id = object(started).getString("episodeId");
        JsonObject blocked = Json.createReader(new StringReader(awaitStatusOverHttp(base, id, "blocked"))).readObject();
        assertThat(blocked.getJsonObject("waiting").getString("kind")).isEqualTo("wait");
        assertThat(blocked.getJsonObject("waiting").getString("name")).isEqualTo("ticket-42");
        assertThat(blocked.getJsonObject("episode").keySet()).as("one field named waiting, at the top level: the sleep or wait")
                .doesNotContain("waiting");
        String signals = "api/episodes/" + id + "/signals/";

        String[][] bad = {
            {"ticket-42", "not json", "null", "not valid JSON"},
            {"ticket-42", "[1]", "null", "must be a JSON object"},
            {"ticket-42", "{}", "payload", "\"payload\" is required"},
            {"ticket-42", "{\"payload\": 1, \"extra\": 2}", "extra", "unknown field \"extra\""},
            {"bad%20name!", "{\"payload\": 1}", "name", "a signal name is 1 to 255"},
            {"ticket-42", "", "null", "empty"},
        };
        for (String[] c : bad) {
            HttpResponse<String> r = call(base, "POST", signals + c[0], c[1]);
            assertThat(r.statusCode()).as("status for %s %s: %s", c[0], c[1], r.body()).isEqualTo(400);
            JsonObject error = object(r);
            assertThat(error.containsKey("field") ? error.getString("field") : "null").as("field for %s", c[1]).isEqualTo(c[2]);
            assertThat(error.getString("error")).as("message for %s", c[1]).contains(c[3]);
        }
        assertThat(call(base, "POST", "api/episodes/" + UUID.randomUUID() + "/signals/ticket-42", "{\"payload\": 1}")
                .statusCode()).as("unknown episode").isEqualTo(404);
        assertThat(call(base, "POST", "api/episodes/not-an-id/signals/ticket-42", "{\"payload\": 1}").statusCode())
                .as("not an episode id").isEqualTo(404);
        HttpResponse<String> asViewer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString())
                        .resolve(signals + "ticket-42")).header("Content-Type", "application/json")
                .header("Authorization", ConsoleUsers.viewer()).POST(HttpRequest.BodyPublishers.ofString("{\"payload\": 1}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(asViewer.statusCode()).as("a viewer may not signal").isEqualTo(403);

        HttpResponse<String> kept = call(base, "POST", signals + "ticket-7", "{\"payload\": \"later\"}");
        assertThat(kept.statusCode()).as(kept.body()).isEqualTo(202);
        assertThat(object(kept).getString("outcome")).isEqualTo("kept");
        JsonObject stillBlocked = object(call(base, "GET", "api/episodes/" + id, null));
        assertThat(stillBlocked.getJsonObject("episode").getString("status")).isEqualTo("blocked");
        assertThat(stillBlocked.getJsonArray("keptSignals")).singleElement()
                .satisfies(k -> assertThat(k.asJsonObject().getString("name")).isEqualTo("ticket-7"));

        HttpResponse<String> delivered = call(base, "POST", signals + "ticket-42", "{\"payload\": {\"ok\": true}}");
        assertThat(delivered.statusCode()).as(delivered.body()).isEqualTo(200);
        assertThat(object(delivered).getString("outcome")).isEqualTo("delivered");
        JsonObject done = Json.createReader(new StringReader(awaitStatusOverHttp(base, id, "done"))).readObject();
        assertThat(done.getJsonObject("episode").getString("summary")).isEqualTo("resolved with {\"ok\":true}");
        assertThat(done.containsKey("waiting") && !done.isNull("waiting")).as("waits no more").isFalse();

        HttpResponse<String> late = call(base, "POST", signals + "ticket-42", "{\"payload\": null}");
        assertThat(late.statusCode()).as(late.body()).isEqualTo(409);
        assertThat(object(late).getString("error")).contains("is done");
    }

    @Test
    @RunAsClient
    void an_event_carrying_the_waits_key_resolves_only_that_wait_with_its_payload(@ArquillianResource URL base) throws Exception {
        String key = "order-" + UUID.randomUUID();
        String[] ids = new String[2];
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> started = call(base, "POST", "api/episodes", "{\"actor\":\"it_actor\",\"expectation\":"
                    + "\"keyed_waiter\",\"payload\":{\"key\":\"" + key + (i == 0 ? "" : "-other") + "\"}}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
            ids[i] = object(started).getString("episodeId");
        }
        JsonObject blocked = Json.createReader(new StringReader(awaitStatusOverHttp(base, ids[0], "blocked"))).readObject();
        assertThat(blocked.getJsonObject("waiting").getString("key")).isEqualTo(key);
        awaitStatusOverHttp(base, ids[1], "blocked");

        HttpResponse<String> event = call(base, "POST", "api/events", "{\"type\": \"it.payment\", \"payload\":"
                + " {\"waitKey\": \"" + key + "\", \"paid\": true}}");
        // no actor starts on it.payment: the answer lists no match (200); the wait is resolved all the same
        assertThat(event.statusCode()).as(event.body()).isIn(200, 202);
        JsonObject done = Json.createReader(new StringReader(awaitStatusOverHttp(base, ids[0], "done"))).readObject();
        assertThat(done.getJsonObject("episode").getString("summary"))
                .isEqualTo("resolved with {\"waitKey\":\"" + key + "\",\"paid\":true}");
        Thread.sleep(400);
        assertThat(object(call(base, "GET", "api/episodes/" + ids[1], null)).getJsonObject("episode").getString("status"))
                .as("another key's wait is left waiting").isEqualTo("blocked");
        call(base, "POST", "api/episodes/" + ids[1] + "/cancel", null);
    }

    @Test
    @RunAsClient
    void malformed_event_bodies_get_400_naming_the_field_and_create_nothing(@ArquillianResource URL base) throws Exception {
        int before = echoEpisodes(base);
        String[][] cases = {
            {"not json at all", "null", "not valid JSON"},
            {"\"just a string\"", "null", "must be a JSON object (an event) or an array of them"},
            {"[1, 2]", "[0]", "event [0] must be a JSON object"},
            {"[]", "null", "a batch holds 1 to 1000 events, not 0"},
            // the first event is valid and is not stored either: the batch is checked whole first
            {"[{\"type\": \"it.echo\", \"id\": \"batch-never\"}, {\"type\": 5}]", "[1].type",
                "event [1]: \"type\" must be a string"},
            {"[{\"type\": \"it.echo\"}, {\"type\": \"it.echo\", \"payload\": []}]", "[1].payload",
                "event [1]: \"payload\" must be a JSON object"},
            {"{}", "type", "\"type\" is required"},
            {"{\"type\": 5}", "type", "\"type\" must be a string"},
            {"{\"type\": \"bad type!\"}", "type", "letters, digits"},
            {"{\"type\": \"it.echo\", \"id\": 7}", "id", "\"id\" must be a string"},
            {"{\"type\": \"it.echo\", \"payload\": \"x\"}", "payload", "\"payload\" must be a JSON object"},
            {"", "null", "empty"},
        };
        for (String[] c : cases) {
            HttpResponse<String> r = call(base, "POST", "api/events", c[0]);
            assertThat(r.statusCode()).as("status for %s", c[0]).isEqualTo(400);
            JsonObject error = Json.createReader(new StringReader(r.body())).readObject();
            assertThat(error.containsKey("field") ? error.getString("field") : "null").as("field for %s", c[0]).isEqualTo(c[1]);
            assertThat(error.getString("error")).as("message for %s", c[0]).contains(c[2]);
        }
        Thread.sleep(400);
        assertThat(echoEpisodes(base)).isEqualTo(before);
    }

    @Test
    @RunAsClient
    void a_posted_event_yields_one_episode_readable_with_its_journal(@ArquillianResource URL base) throws Exception {
        String id = "http-" + UUID.randomUUID();
        String body = "{\"type\": \"it.echo\", \"id\": \"" + id + "\", \"payload\": {\"note\": \"<script>x</script>\"}}";
        HttpResponse<String> accepted = call(base, "POST", "api/events", body);
        assertThat(accepted.statusCode()).isEqualTo(202);
        String key = Json.createReader(new StringReader(accepted.body())).readObject().getJsonArray("matched")
                .getJsonObject(0).getString("dedupeKey");
        assertThat(call(base, "POST", "api/events", body).statusCode()).isEqualTo(202);
        String episodeId = Await.until(WAIT, "the posted event's episode", () -> {
            try {
                HttpResponse<String> r = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&status=done&limit=500", null);
                return Json.createReader(new StringReader(r.body())).readArray().stream().map(v -> v.asJsonObject())
                        .filter(o -> key.equals(o.getString("dedupeKey", ""))).map(o -> o.getString("id")).findFirst().orElse(null);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        JsonObject detail = Json.createReader(new StringReader(call(base, "GET", "api/episodes/" + episodeId, null).body())).readObject();
        assertThat(detail.getJsonObject("episode").getString("status")).isEqualTo("done");
        assertThat(detail.getJsonArray("steps")).hasSize(2);
        Thread.sleep(400);
        HttpResponse<String> all = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=500", null);
        assertThat(Json.createReader(new StringReader(all.body())).readArray().stream()
                .filter(v -> key.equals(v.asJsonObject().getString("dedupeKey", "")))).hasSize(1);
    }

    @Test
    @RunAsClient
    void a_posted_batch_of_events_is_stored_whole_with_one_answer_per_event_in_order(@ArquillianResource URL base)
            throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> ids = List.of("batch-" + run + "-a", "batch-" + run + "-b", "batch-" + run + "-c");
        // the first event twice: its repeat is a duplicate, not a second episode
        String body = "[" + ids.stream().map(id -> "{\"type\": \"it.echo\", \"id\": \"" + id + "\"}")
                .collect(java.util.stream.Collectors.joining(", ")) + ", {\"type\": \"it.echo\", \"id\": \"" + ids.get(0)
                + "\"}, {\"type\": \"it.nobody.listens\"}]";
        HttpResponse<String> r = call(base, "POST", "api/events", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonArray accepted = Json.createReader(new StringReader(r.body())).readObject().getJsonArray("accepted");
        assertThat(accepted).hasSize(5);
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            JsonObject a = accepted.getJsonObject(i);
            assertThat(a.getString("id")).isEqualTo(i < 3 ? ids.get(i) : ids.get(0));
            keys.add(a.getJsonArray("matched").getJsonObject(0).getString("dedupeKey"));
        }
        assertThat(keys.get(3)).isEqualTo(keys.get(0));
        assertThat(accepted.getJsonObject(4).getString("type")).isEqualTo("it.nobody.listens");
        assertThat(accepted.getJsonObject(4).getJsonArray("matched")).isEmpty();
        java.util.Set<String> distinct = new java.util.HashSet<>(keys);
        assertThat(distinct).hasSize(3);
        Await.until(WAIT, "the batch's three echo episodes done", () -> {
            try {
                HttpResponse<String> done = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&status=done&limit=500", null);
                return Json.createReader(new StringReader(done.body())).readArray().stream()
                        .map(v -> v.asJsonObject().getString("dedupeKey", "")).toList().containsAll(distinct) ? true : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Thread.sleep(400);
        HttpResponse<String> all = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=500", null);
        for (String key : distinct) {
            assertThat(Json.createReader(new StringReader(all.body())).readArray().stream()
                    .filter(v -> key.equals(v.asJsonObject().getString("dedupeKey", "")))).as(key).hasSize(1);
        }
    }

    // ---- what POST /events answers: per match what was stored, and a status to act on ------------

    private static JsonObject json(HttpResponse<String> r) {
        return Json.createReader(new StringReader(r.body())).readObject();
    }

    private static String event(String type, String id, String subject) {
        return "{\"type\": \"" + type + "\", \"id\": \"" + id + "\", \"payload\": {\"subject\": \"" + subject + "\"}}";
    }

    @Test
    @RunAsClient
    void an_event_inside_its_subjects_cooldown_is_a_429_with_retry_after_naming_the_match_cooling_down(
            @ArquillianResource URL base) throws Exception {
        String subject = "cool-" + UUID.randomUUID();
        HttpResponse<String> first = call(base, "POST", "api/events", event("it.answers.cooled", "c1-" + subject, subject));
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        JsonObject stored = json(first).getJsonArray("matched").getJsonObject(0);
        assertThat(stored.getString("outcome")).isEqualTo("stored");
        assertThat(stored.getString("id")).as("the episode stored").isNotBlank();
        assertThat(stored.getString("dedupeKey")).startsWith("event:it_answers:cooled:");

        HttpResponse<String> cooled = call(base, "POST", "api/events", event("it.answers.cooled", "c2-" + subject, subject));

        assertThat(cooled.statusCode()).as(cooled.body()).isEqualTo(429);
        assertThat(Long.parseLong(cooled.headers().firstValue("Retry-After").orElseThrow())).isBetween(500L, 600L);
        JsonObject body = json(cooled);
        assertThat(body.getInt("status")).isEqualTo(429);
        assertThat(body.getString("error")).contains("not stored");
        JsonObject match = body.getJsonArray("matched").getJsonObject(0);
        assertThat(match.getString("actor")).isEqualTo("it_answers");
        assertThat(match.getString("expectation")).isEqualTo("cooled");
        assertThat(match.getString("outcome")).isEqualTo("cooling_down");
        assertThat(match.containsKey("id")).isFalse();

        // a list: its status covers every event's matches, and each event says what became of it
        String fresh = "cool-" + UUID.randomUUID();
        HttpResponse<String> list = call(base, "POST", "api/events", "[" + event("it.answers.cooled", "c3-" + fresh, fresh)
                + ", " + event("it.answers.cooled", "c4-" + subject, subject) + "]");
        assertThat(list.statusCode()).as(list.body()).isEqualTo(429);
        JsonArray accepted = json(list).getJsonArray("accepted");
        assertThat(accepted.getJsonObject(0).getJsonArray("matched").getJsonObject(0).getString("outcome")).isEqualTo("stored");
        assertThat(accepted.getJsonObject(1).getJsonArray("matched").getJsonObject(0).getString("outcome"))
                .isEqualTo("cooling_down");
    }

    @Test
    @RunAsClient
    void an_event_that_matches_nothing_is_a_200_not_a_202(@ArquillianResource URL base) throws Exception {
        HttpResponse<String> r = call(base, "POST", "api/events", "{\"type\": \"it.nobody.listens\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).getJsonArray("matched")).isEmpty();
    }

    @Test
    @RunAsClient
    void an_event_for_an_actor_disabled_on_this_node_is_a_503_naming_the_match_disabled(@ArquillianResource URL base)
            throws Exception {
        assertThat(call(base, "PUT", "api/mode/actors/it_answers", "{\"mode\": \"disabled\"}").statusCode()).isEqualTo(200);
        try {
            String subject = "off-" + UUID.randomUUID();
            HttpResponse<String> r = call(base, "POST", "api/events", event("it.answers.cooled", "d1-" + subject, subject));

            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            JsonObject match = json(r).getJsonArray("matched").getJsonObject(0);
            assertThat(match.getString("outcome")).isEqualTo("disabled");
        } finally {
            call(base, "DELETE", "api/mode/actors/it_answers", null);
        }
    }

    @Test
    @RunAsClient
    void a_debounced_event_is_a_202_naming_it_debounced_and_its_episode_runs_once_its_window_closed(
            @ArquillianResource URL base) throws Exception {
        String subject = "deb-" + UUID.randomUUID();
        call(base, "POST", "api/events", event("it.answers.debounced", "b1-" + subject, subject));
        HttpResponse<String> last = call(base, "POST", "api/events", event("it.answers.debounced", "b2-" + subject, subject));

        assertThat(last.statusCode()).as(last.body()).isEqualTo(202);
        JsonObject match = json(last).getJsonArray("matched").getJsonObject(0);
        assertThat(match.getString("outcome")).isEqualTo("debounced");
        String key = match.getString("dedupeKey");
        String episodeId = Await.until(WAIT, "the debounced episode, done", () -> {
            try {
                HttpResponse<String> r = call(base, "GET", "api/episodes?actor=it_answers&expectation=debounced&status=done&limit=200",
                        null);
                return Json.createReader(new StringReader(r.body())).readArray().stream().map(v -> v.asJsonObject())
                        .filter(o -> key.equals(o.getString("dedupeKey", ""))).map(o -> o.getString("id")).findFirst()
                        .orElse(null);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(episodeId).isNotBlank();
        HttpResponse<String> all = call(base, "GET", "api/episodes?actor=it_answers&expectation=debounced&limit=200", null);
        assertThat(Json.createReader(new StringReader(all.body())).readArray().stream()
                .filter(v -> v.asJsonObject().getString("dedupeKey", "").startsWith("event:it_answers:debounced:"))
                .filter(v -> v.asJsonObject().toString().contains(subject))).as("one episode for the window: the last event's")
                .hasSize(1);
    }

    @Test
    @RunAsClient
    void an_event_that_starts_a_workflow_names_the_instance_it_stored(@ArquillianResource URL base) throws Exception {
        String subject = "wf-" + UUID.randomUUID();
        HttpResponse<String> r = call(base, "POST", "api/events", event("it.workflow.start", "w1-" + subject, subject));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonObject match = json(r).getJsonArray("matched").stream().map(v -> v.asJsonObject())
                .filter(o -> "it_on_event".equals(o.getString("workflow", null))).findFirst().orElseThrow();
        assertThat(match.getString("outcome")).isEqualTo("stored");
        assertThat(call(base, "GET", "api/workflow-instances/" + match.getString("id"), null).statusCode()).isEqualTo(200);
    }

    @Test
    @RunAsClient
    void a_list_whose_workflow_instance_cannot_be_stored_is_a_503_and_stores_nothing_of_the_list(
            @ArquillianResource URL base) throws Exception {
        String echoId = "rolled-back-" + UUID.randomUUID();
        // a subject longer than the instance's subject column: the instance insert fails in the list's transaction
        String tooLong = "x".repeat(600);
        HttpResponse<String> r = call(base, "POST", "api/events", "[{\"type\": \"it.echo\", \"id\": \"" + echoId
                + "\"}, " + event("it.workflow.start", "w-" + echoId, tooLong) + "]");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        String echoKey = io.cyclium.keys.DedupeKeys.event("it_actor", "echo", echoId, "it.echo", Json.createObjectBuilder().build());
        Thread.sleep(1_000);
        HttpResponse<String> all = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=500", null);
        assertThat(Json.createReader(new StringReader(all.body())).readArray().stream()
                .filter(v -> echoKey.equals(v.asJsonObject().getString("dedupeKey", ""))))
                .as("the echo episode went with the list's rollback").isEmpty();
    }

    @Test
    @RunAsClient
    void the_episode_list_pages_by_following_its_next_link_without_repeats_or_gaps(@ArquillianResource URL base)
            throws Exception {
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> accepted = call(base, "POST", "api/events",
                    "{\"type\": \"it.echo\", \"id\": \"page-" + UUID.randomUUID() + "\"}");
            assertThat(accepted.statusCode()).isEqualTo(202);
            keys.add(Json.createReader(new StringReader(accepted.body())).readObject().getJsonArray("matched")
                    .getJsonObject(0).getString("dedupeKey"));
        }
        Await.until(WAIT, "the five echo episodes", () -> withKeys(base, keys) ? true : null);

        List<String> ids = new java.util.ArrayList<>();
        java.util.Set<String> seenKeys = new java.util.HashSet<>();
        String next = "api/episodes?actor=it_actor&expectation=echo&limit=2";
        int pages = 0;
        while (next != null) {
            HttpResponse<String> page = call(base, "GET", next, null);
            assertThat(page.statusCode()).isEqualTo(200);
            JsonArray rows = Json.createReader(new StringReader(page.body())).readArray();
            assertThat(rows.size()).isBetween(1, 2);
            rows.forEach(v -> {
                ids.add(v.asJsonObject().getString("id"));
                seenKeys.add(v.asJsonObject().getString("dedupeKey", ""));
            });
            next = page.headers().firstValue("Link").map(l -> l.replaceAll("^<([^>]*)>;\\s*rel=\"?next\"?$", "$1")).orElse(null);
            assertThat(next == null).isEqualTo(page.headers().firstValue("X-Next-Cursor").isEmpty());
            pages++;
        }
        assertThat(pages).isGreaterThanOrEqualTo(3);
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(seenKeys).containsAll(keys);

        for (String[] bad : new String[][] {{"cursor=junk", "cursor"}, {"from=yesterday", "from"}, {"to=soon", "to"},
                {"limit=0", "limit"}}) {
            HttpResponse<String> r = call(base, "GET", "api/episodes?" + bad[0], null);
            assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
            assertThat(r.body()).as(bad[0]).contains("\"field\":\"" + bad[1] + "\"");
        }
    }

    private static boolean withKeys(URL base, java.util.Set<String> keys) {
        try {
            HttpResponse<String> r = call(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=200", null);
            return Json.createReader(new StringReader(r.body())).readArray().stream()
                    .map(v -> v.asJsonObject().getString("dedupeKey", "")).toList().containsAll(keys);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @RunAsClient
    void a_key_function_bean_computes_each_episode_s_concurrency_key_and_one_that_throws_gives_its_own_key(
            @ArquillianResource URL base) throws Exception {
        java.util.Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("acme-" + UUID.randomUUID(), "acme");
        expected.put("no dash", "(none)");
        expected.put("boom", "(key function failed)");
        for (java.util.Map.Entry<String, String> e : expected.entrySet()) {
            HttpResponse<String> started = call(base, "POST", "api/episodes", "{\"actor\":\"it_keyed\",\"expectation\":"
                    + "\"by_order\",\"payload\":{\"order\":\"" + e.getKey() + "\"}}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
            String id = object(started).getString("episodeId");
            awaitStatusOverHttp(base, id, "done");
            JsonObject episode = object(call(base, "GET", "api/episodes/" + id, null)).getJsonObject("episode");
            assertThat(episode.getString("concurrencyKey")).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    @RunAsClient
    void bad_ids_filters_and_limits_are_clear_json_errors(@ArquillianResource URL base) throws Exception {
        HttpResponse<String> unknown = call(base, "GET", "api/episodes/" + UUID.randomUUID(), null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"error\":\"no episode").doesNotContain("Exception");
        assertThat(call(base, "GET", "api/episodes/'%20OR%201=1--", null).statusCode()).isEqualTo(404);
        HttpResponse<String> badStatus = call(base, "GET", "api/episodes?status=sideways", null);
        assertThat(badStatus.statusCode()).isEqualTo(400);
        assertThat(badStatus.body()).contains("\"field\":\"status\"");
        assertThat(call(base, "GET", "api/episodes?limit=lots", null).body()).contains("\"field\":\"limit\"");
        assertThat(call(base, "GET", "api/findings?status=bogus", null).body()).contains("\"field\":\"status\"");
        HttpResponse<String> manual = call(base, "POST", "api/episodes", "{\"actor\": \"it_actor\", \"expectation\": \"nope\"}");
        assertThat(manual.statusCode()).isEqualTo(400);
        assertThat(manual.body()).contains("\"field\":\"expectation\"");
        HttpResponse<String> restart = call(base, "POST", "api/episodes/" + UUID.randomUUID() + "/restart", null);
        assertThat(restart.statusCode()).isEqualTo(404);
        assertThat(restart.body()).contains("\"error\":\"no episode");
        HttpResponse<String> approve = call(base, "POST", "api/episodes/" + UUID.randomUUID() + "/approve", "{}");
        assertThat(approve.statusCode()).isEqualTo(400);
        assertThat(approve.body()).contains("\"field\":\"planHash\"");
    }

    // ---- recovery ---------------------------------------------------------------------------------

    @Inject
    RecoverySweep sweep;

    @Inject
    Tx tx;

    @Inject
    SchemaMigrator schema;

    private String orphan(String expectation, int attempts, int maxAttempts, String phase, int quietSeconds, String env) {
        return Orphans.insert(tx, schema.vendor(), expectation, attempts, maxAttempts, phase, quietSeconds, env);
    }

    @Test
    void a_stale_orphan_whose_policy_is_restart_resumes_and_finishes() {
        String id = orphan("restartable", 1, 3, null, 600, null);
        SweepReport report = sweep.sweep(SweepScope.of(null, null));
        assertThat(report.restarted()).isGreaterThanOrEqualTo(1);
        EpisodeView done = awaitStatus(id, "done");
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.runNode()).isEqualTo("arquillian-node-1");
        EpisodeDetail detail = episodes.detail(id);
        // CI saw this once (stop 25): the row done, the journal without its episode_completed. The
        // finish writes both in one transaction, so say everything about it should it happen again.
        assertThat(kinds(detail)).as(() -> journalAsRead(id, detail))
                .containsExactly("observation", "resumed", "observation", "episode_completed");
    }

    /** The journal, lease and row as read, and read again a second later (a late commit or a lost row). */
    private String journalAsRead(String id, EpisodeDetail first) {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        EpisodeDetail again = episodes.detail(id);
        java.util.function.Function<EpisodeDetail, String> text = d -> d.steps().stream()
                .map(s -> s.stepNo() + ":" + s.kind() + "@" + s.nodeIdentity() + " " + s.createdAt()).toList()
                + " claim " + d.claim() + " row " + d.episode();
        return "journal of " + id + " as read: " + text.apply(first) + "; a second later: " + text.apply(again);
    }

    @Test
    void a_stale_orphan_with_the_default_policy_fails_as_orphaned() {
        String id = orphan("echo", 1, 3, null, 600, null);
        sweep.sweep(SweepScope.of(null, null));
        EpisodeView e = awaitStatus(id, "failed");
        assertThat(e.errorClass()).isEqualTo("orphaned");
        assertThat(kinds(episodes.detail(id))).containsExactly("observation", "episode_failed");
    }

    @Test
    void a_stale_orphan_that_never_ran_a_step_is_restarted_whatever_its_policy() {
        String id = Orphans.insertNeverRan(tx, schema.vendor(), "echo", 1, 3, null, 600, null);
        sweep.sweep(SweepScope.of(null, null));
        EpisodeView done = awaitStatus(id, "done");
        assertThat(done.attempts()).as("the restart spent an attempt").isEqualTo(2);
    }

    @Test
    void an_operator_restarts_a_failed_episode_and_it_resumes_to_done_in_the_same_row() {
        String id = orphan("echo", 1, 3, null, 600, null);
        sweep.sweep(SweepScope.of(null, null));
        assertThat(awaitStatus(id, "failed").errorClass()).isEqualTo("orphaned");

        episodes.restart(id, "it-operator");

        EpisodeView done = awaitStatus(id, "done");
        assertThat(done.errorClass()).isNull();
        EpisodeDetail detail = episodes.detail(id);
        assertThat(kinds(detail)).containsExactly("observation", "episode_failed", "restarted", "resumed", "observation",
                "episode_completed");
        assertThat(detail.steps().get(2).detail()).contains("it-operator").contains("\"previousError\":\"orphaned\"");
        assertThatThrownBy(() -> episodes.restart(id, "it-operator")).isInstanceOf(Problem.class)
                .hasMessageContaining("only a failed or canceled episode can be restarted");
    }

    @Inject
    io.cyclium.node.NodeQueries nodes;

    @Test
    void an_episode_queued_here_and_taken_by_this_nodes_own_sweep_still_runs_to_done() {
        // An episode waiting in this node's queue looks like an earlier life's (quiet, queued before
        // the node row's start, the lease taken with its row lapsed); this node's own sweep claims
        // it at the next fence. The queued entry must take the sweep's lease over (and drop the
        // first one): before, its task found the key busy (held by this very node), gave up, and
        // the lease was renewed for ever.
        ItStrategies.RELEASE_HOLDS.set(false);
        FireResult hold = episodes.startManual("it_one_slot", "hold", Json.createObjectBuilder().build(), null);
        FireResult queued = episodes.startManual("it_one_slot", "echo", Json.createObjectBuilder().build(), null);
        assertThat(queued.kind()).isEqualTo(FireResult.Kind.QUEUED);
        io.cyclium.node.NodeView self = nodes.find("arquillian-node-1").orElseThrow();
        assertThat(self.runningEpisodes()).as("the hold episode runs here").isGreaterThanOrEqualTo(1);
        assertThat(self.queuedEpisodes()).as("the echo waits in this node's queue").isGreaterThanOrEqualTo(1);
        int before = episodes.detail(queued.episodeId()).episode().attempts();
        try {
            for (int i = 0; i < 5 && !"recovering".equals(episodes.detail(queued.episodeId()).episode().phase()); i++) {
                // what a queue of an earlier life of this node looks like: quiet for ten minutes, and
                // queued before the node row's started_at (a live node vouches only for its own life's queue)
                tx.run(em -> new io.cyclium.store.NativeSql().sql("UPDATE cyclium_episodes SET started_at = "
                        + schema.vendor().utcNowPlusSeconds("-600") + ", updated_at = " + schema.vendor().utcNowPlusSeconds("-600")
                        + ", queued_at = " + schema.vendor().utcNowPlusSeconds("-600")
                        + " WHERE id = ").value(queued.episodeId()).executeUpdate(em));
                String claimKey = io.cyclium.keys.EpisodeClaimKey.of(episodes.detail(queued.episodeId()).episode().dedupeKey(),
                        queued.episodeId());
                tx.run(em -> new io.cyclium.store.NativeSql().sql("UPDATE cyclium_work_claims SET lease_until = "
                        + schema.vendor().utcNowPlusSeconds("-600") + " WHERE dedupe_key = ").value(claimKey).executeUpdate(em));
                sweep.sweep(SweepScope.of(null, null));
            }
            assertThat(episodes.detail(queued.episodeId()).episode().phase())
                    .as("this node's sweep took its own queued episode").isEqualTo("recovering");
            assertThat(episodes.detail(queued.episodeId()).episode().attempts())
                    .as("an attempt is spent when the episode starts, not while it waits in a queue").isEqualTo(before);
            assertThat(episodes.detail(hold.episodeId()).episode().status()).as("the slot is still taken").isEqualTo("running");
        } finally {
            ItStrategies.RELEASE_HOLDS.set(true);
        }
        awaitStatus(hold.episodeId(), "done");
        awaitStatus(queued.episodeId(), "done");
        assertThat(episodes.detail(queued.episodeId()).episode().attempts()).isEqualTo(before + 1);
        assertThat(kinds(episodes.detail(queued.episodeId()))).containsExactly("resumed", "observation", "episode_completed");
    }

    @Test
    void an_orphan_past_its_max_attempts_fails_instead_of_restarting_forever() {
        String id = orphan("restartable", 3, 3, null, 600, null);
        sweep.sweep(SweepScope.of(null, null));
        EpisodeView e = awaitStatus(id, "failed");
        assertThat(e.errorClass()).isEqualTo("orphaned");
        assertThat(episodes.detail(id).steps().get(1).detail()).contains("exceeds max attempts 3");
    }

    @Test
    void an_episode_stamped_interrupted_is_recovered_without_waiting_for_staleness() {
        String id = orphan("restartable", 1, 3, "interrupted", 1, null);
        sweep.sweep(SweepScope.of(null, null));
        assertThat(awaitStatus(id, "done").attempts()).isEqualTo(2);
    }

    @Test
    void a_sweep_leaves_another_envs_orphans_alone() {
        String other = orphan("echo", 1, 3, null, 600, "elsewhere");
        sweep.sweep(SweepScope.of(null, null));
        assertThat(episodes.detail(other).episode().status()).isEqualTo("running");
        sweep.sweep(SweepScope.of(null, "elsewhere"));
        assertThat(awaitStatus(other, "failed").errorClass()).isEqualTo("orphaned");
    }

    // ---- modes and deferred triggers ---------------------------------------------------------

    @Inject
    NodeModes modes;

    @Inject
    TriggerPoller poller;

    @Test
    void an_actor_switched_to_trigger_only_defers_and_once_cleared_its_request_runs_here() {
        modes.setActorOverride("it_actor", NodeMode.TRIGGER_ONLY);
        FireResult r;
        try {
            r = start("echo", Json.createObjectBuilder().add("deferred", true).build());
            assertThat(r.kind()).isEqualTo(FireResult.Kind.DEFERRED);
            assertThat(episodes.detail(r.episodeId()).episode().runNode()).isNull();
            assertThat(modes.status().overrides()).containsEntry("it_actor", "trigger_only");
        } finally {
            modes.clearActorOverride("it_actor");
        }
        assertThat(poller.poll()).isGreaterThanOrEqualTo(1);
        EpisodeView done = awaitStatus(r.episodeId(), "done");
        assertThat(done.runNode()).isEqualTo("arquillian-node-1");
        assertThat(poller.poll()).as("a request is dispatched once").isZero();
    }

    @Test
    void pending_requests_older_than_the_window_expire_and_younger_ones_stay() {
        String oldEpisode = orphan("echo", 1, 3, null, 7200, "expiry-test");
        String newEpisode = orphan("echo", 1, 3, null, 10, "expiry-test");
        String oldRequest = UUID.randomUUID().toString();
        String newRequest = UUID.randomUUID().toString();
        for (String[] r : new String[][] {{oldRequest, oldEpisode, "-7200"}, {newRequest, newEpisode, "-10"}}) {
            java.util.Map<String, Object> c = new java.util.LinkedHashMap<>();
            c.put("id", r[0]);
            c.put("episode_id", r[1]);
            c.put("actor_id", "it_actor");
            c.put("expectation_id", "echo");
            c.put("source_node", "some-trigger-only-node");
            c.put("source_env", "expiry-test");
            c.put("status", "pending");
            c.put("opts", "{}");
            c.put("inserted_at", io.cyclium.store.NativeSql.raw(schema.vendor().utcNowPlusSeconds(r[2])));
            c.put("updated_at", io.cyclium.store.NativeSql.raw(schema.vendor().utcNow()));
            tx.run(em -> new io.cyclium.store.NativeSql().insert("cyclium_trigger_requests", c).executeUpdate(em));
        }
        // the poller serves the unset env by default; these are in "expiry-test", so nothing runs them
        io.cyclium.episode.TriggerRequestStore store = new io.cyclium.episode.TriggerRequestStore(schema.vendor());
        int expired = tx.inNewTransaction(em -> store.expire(em, 3600, "expiry-test"));
        assertThat(expired).isEqualTo(1);
        java.util.Map<String, String> status = new java.util.HashMap<>();
        tx.inNewTransaction(em -> store.recent(em, null, 500)).forEach(r -> status.put(r.id(), r.status()));
        assertThat(status).containsEntry(oldRequest, "expired").containsEntry(newRequest, "pending");
    }

    @Test
    @RunAsClient
    void malformed_mode_values_are_rejected_with_a_clear_400(@ArquillianResource URL base) throws Exception {
        HttpResponse<String> bad = call(base, "PUT", "api/mode", "{\"mode\": \"turbo\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"field\":\"mode\"").contains("full | trigger_only | disabled");
        assertThat(call(base, "PUT", "api/mode", "{}").statusCode()).isEqualTo(400);
        assertThat(call(base, "PUT", "api/mode/actors/no_such_actor", "{\"mode\": \"full\"}").statusCode()).isEqualTo(404);
        HttpResponse<String> status = call(base, "GET", "api/mode", null);
        assertThat(status.body()).contains("\"nodeMode\":\"full\"");
        assertThat(call(base, "GET", "api/trigger-requests?status=lost", null).statusCode()).isEqualTo(400);
    }

    @Test
    void unknown_episodes_and_actors_are_typed_problems() {
        assertThatThrownBy(() -> episodes.detail(UUID.randomUUID().toString()))
                .isInstanceOf(Problem.class).satisfies(p -> assertThat(((Problem) p).status()).isEqualTo(404));
        assertThatThrownBy(() -> episodes.startManual("no_such_actor", "x", null, null))
                .isInstanceOf(Problem.class).hasMessageContaining("no actor \"no_such_actor\"");
        assertThatThrownBy(() -> episodes.startManual("it_actor", "tick", null, null))
                .isInstanceOf(Problem.class).hasMessageContaining("does not allow manual starts");
    }
}
