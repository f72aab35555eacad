package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.io.File;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.Test;

/**
 * server-config/bin/cyclium run as a real process against the Arquillian node; every effect is
 * checked through the API. An interface so that {@link EpisodesIT} (whose deployment has the test
 * actors) runs these without booting another server.
 */
interface CommandLineClientTests {

    /** What one run of the script left behind. */
    record Run(int exit, String out, String err) {
    }

    private static Run cyclium(URL base, Map<String, String> env, String... args) throws Exception {
        File script = new File(System.getProperty("cyclium.config.dir", "../server-config"), "bin/cyclium");
        assertThat(script.canExecute()).as("the client script " + script + " is executable").isTrue();
        List<String> command = new ArrayList<>(List.of(script.getAbsolutePath()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("CYCLIUM_URL", base.toString().replaceAll("/$", ""));
        pb.environment().put("CYCLIUM_USER", "admin");
        pb.environment().put("CYCLIUM_PASSWORD", ConsoleUsers.adminPassword());
        pb.environment().putAll(env);
        File err = File.createTempFile("cyclium-cli", ".err");
        try {
            Process p = pb.redirectError(err).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the client finished").isTrue();
            return new Run(p.exitValue(), out, java.nio.file.Files.readString(err.toPath()));
        } finally {
            err.delete();
        }
    }

    private static Run cyclium(URL base, String... args) throws Exception {
        return cyclium(base, Map.of(), args);
    }

    private static Run succeeded(Run run) {
        assertThat(run.exit()).as("exit status; stderr: " + run.err()).isZero();
        return run;
    }

    private static JsonObject mode(URL base) throws Exception {
        return json(admin(base, "GET", "api/mode", null)).asJsonObject();
    }

    @Test
    @RunAsClient
    default void the_client_posts_an_event_whose_episode_then_exists(@ArquillianResource URL base) throws Exception {
        String id = "cli-" + UUID.randomUUID();
        Run run = succeeded(cyclium(base, "event", "it.echo", "--id", id, "--payload", "{\"from\": \"the \\\"cli\\\"\"}"));
        String key = json(run.out()).asJsonObject().getJsonArray("matched").getJsonObject(0).getString("dedupeKey");
        Await.until(Duration.ofSeconds(20), "the event's episode", () -> {
            try {
                return json(admin(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=500", null)).asJsonArray()
                        .stream().map(v -> v.asJsonObject()).filter(e -> key.equals(e.getString("dedupeKey", ""))).findFirst()
                        .orElse(null);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @RunAsClient
    default void an_event_not_stored_exits_1_and_the_client_prints_what_became_of_each_match(@ArquillianResource URL base)
            throws Exception {
        String subject = "cli-cool-" + UUID.randomUUID();
        succeeded(cyclium(base, "event", "it.answers.cooled", "--id", subject + "-1", "--payload",
                "{\"subject\": \"" + subject + "\"}"));

        Run cooled = cyclium(base, "event", "it.answers.cooled", "--id", subject + "-2", "--payload",
                "{\"subject\": \"" + subject + "\"}");

        assertThat(cooled.exit()).as("stderr: " + cooled.err()).isEqualTo(1);
        assertThat(cooled.err()).contains("HTTP 429", "not stored");
        assertThat(json(cooled.out()).asJsonObject().getJsonArray("matched").getJsonObject(0).getString("outcome"))
                .isEqualTo("cooling_down");
    }

    @Test
    @RunAsClient
    default void the_client_starts_an_episode_by_hand_lists_it_and_shows_it(@ArquillianResource URL base) throws Exception {
        String key = "cli-" + UUID.randomUUID();
        Run started = succeeded(cyclium(base, "start", "it_actor", "echo", "--key", key, "--payload", "{\"note\": \"a'b %_\"}"));
        String episodeId = json(started.out()).asJsonObject().getString("episodeId");

        JsonObject detail = json(admin(base, "GET", "api/episodes/" + episodeId, null)).asJsonObject();
        assertThat(detail.getJsonObject("episode").getString("triggerType")).isEqualTo("manual");
        assertThat(detail.getString("triggerRef")).contains("a'b %_");

        Run listed = succeeded(cyclium(base, "episodes", "--actor", "it_actor", "--expectation", "echo", "--limit", "500"));
        assertThat(listed.out()).contains(episodeId);
        assertThat(succeeded(cyclium(base, "episodes", "--actor", "' OR '1'='1")).out().trim()).isEqualTo("[]");
        Run shown = succeeded(cyclium(base, "episode", episodeId));
        assertThat(json(shown.out()).asJsonObject().getJsonObject("episode").getString("id")).isEqualTo(episodeId);
    }

    private static String status(URL base, String episodeId) throws Exception {
        return json(admin(base, "GET", "api/episodes/" + episodeId, null)).asJsonObject().getJsonObject("episode").getString("status");
    }

    private static void awaitStatus(URL base, String episodeId, String wanted) {
        Await.until(Duration.ofSeconds(20), "episode " + episodeId + " " + wanted, () -> {
            try {
                return wanted.equals(status(base, episodeId)) ? wanted : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @RunAsClient
    default void the_client_cancels_an_episode_restarts_it_and_is_refused_a_restart_of_a_running_one(@ArquillianResource URL base)
            throws Exception {
        Run started = succeeded(cyclium(base, "start", "it_actor", "slow", "--key", "cli-" + UUID.randomUUID()));
        String id = json(started.out()).asJsonObject().getString("episodeId");
        succeeded(cyclium(base, "cancel", id));
        awaitStatus(base, id, "canceled");

        Run restarted = succeeded(cyclium(base, "restart", id));
        assertThat(json(restarted.out()).asJsonObject().getString("status")).isEqualTo("running");
        assertThat(json(admin(base, "GET", "api/episodes/" + id, null)).asJsonObject().getJsonArray("steps").stream()
                .map(v -> v.asJsonObject().getString("kind"))).contains("restarted");
        Run refused = cyclium(base, "restart", id);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("HTTP 409").contains("only a failed or canceled episode can be restarted");

        succeeded(cyclium(base, "cancel", id));
        awaitStatus(base, id, "canceled");
    }

    @Test
    @RunAsClient
    default void the_client_pages_through_episodes_with_the_cursor_it_names(@ArquillianResource URL base) throws Exception {
        for (int i = 0; i < 3; i++) {
            succeeded(cyclium(base, "start", "it_actor", "echo", "--key", "cli-page-" + UUID.randomUUID()));
        }
        Run first = succeeded(cyclium(base, "episodes", "--actor", "it_actor", "--limit", "2"));
        assertThat(first.err()).contains("more episodes follow: add --cursor ");
        String cursor = first.err().replaceAll("(?s).*--cursor (\\S+).*", "$1");
        Run second = succeeded(cyclium(base, "episodes", "--actor", "it_actor", "--limit", "2", "--cursor", cursor));
        List<String> a = json(first.out()).asJsonArray().stream().map(v -> v.asJsonObject().getString("id")).toList();
        List<String> b = json(second.out()).asJsonArray().stream().map(v -> v.asJsonObject().getString("id")).toList();
        assertThat(a).hasSize(2);
        assertThat(b).hasSize(2).doesNotContainAnyElementsOf(a);
        Run bad = cyclium(base, "episodes", "--cursor", "not-a-cursor");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("HTTP 400").contains("cursor");
    }

    @Test
    @RunAsClient
    default void the_client_switches_the_node_and_an_actor_and_clears_the_override(@ArquillianResource URL base) throws Exception {
        try {
            succeeded(cyclium(base, "mode", "set", "trigger_only"));
            assertThat(mode(base).getString("nodeMode")).isEqualTo("trigger_only");
            succeeded(cyclium(base, "mode", "set", "full"));
            assertThat(mode(base).getString("nodeMode")).isEqualTo("full");

            succeeded(cyclium(base, "actor-mode", "it_actor", "disabled"));
            assertThat(mode(base).getJsonObject("overrides").getString("it_actor", null)).isEqualTo("disabled");
            Run cleared = succeeded(cyclium(base, "actor-mode", "it_actor", "--clear"));
            assertThat(cleared.out()).contains("\"nodeMode\":\"full\"");
            assertThat(mode(base).getJsonObject("overrides").containsKey("it_actor")).isFalse();
            assertThat(succeeded(cyclium(base, "mode")).out()).contains("\"nodeMode\":\"full\"");
        } finally {
            admin(base, "PUT", "api/mode", "{\"mode\": \"full\"}");
            admin(base, "DELETE", "api/mode/actors/it_actor", null);
        }
    }

    @Test
    @RunAsClient
    default void the_client_pauses_and_resumes_an_actor_and_an_expectation(@ArquillianResource URL base) throws Exception {
        try {
            JsonObject paused = json(succeeded(cyclium(base, "pause", "actor", "it_actor")).out()).asJsonObject();
            assertThat(paused.getString("kind")).isEqualTo("actor");
            assertThat(paused.getBoolean("paused")).isTrue();
            assertThat(paused.getString("pausedBy")).isEqualTo("admin");
            assertThat(actor(base, "it_actor").getBoolean("paused")).isTrue();
            JsonObject resumed = json(succeeded(cyclium(base, "resume", "actor", "it_actor")).out()).asJsonObject();
            assertThat(resumed.getBoolean("paused")).isFalse();
            assertThat(actor(base, "it_actor").getBoolean("paused")).isFalse();

            JsonObject one = json(succeeded(cyclium(base, "pause", "actor", "it_actor", "echo")).out()).asJsonObject();
            assertThat(one.getString("target")).isEqualTo("it_actor/echo");
            assertThat(actor(base, "it_actor").getJsonArray("expectations").getValuesAs(JsonObject.class).stream()
                    .filter(e -> e.getString("id").equals("echo")).findFirst().orElseThrow().getBoolean("paused")).isTrue();
            succeeded(cyclium(base, "resume", "actor", "it_actor", "echo"));

            Run unknown = cyclium(base, "pause", "actor", "no_such_actor");
            assertThat(unknown.exit()).isEqualTo(1);
            assertThat(unknown.err()).contains("HTTP 404").contains("no actor no_such_actor");
            Run badTarget = cyclium(base, Map.of("CYCLIUM_URL", "http://127.0.0.1:9/never-called"), "pause", "node", "x");
            assertThat(badTarget.exit()).isEqualTo(2);
            assertThat(badTarget.err()).contains("actor or workflow");
        } finally {
            admin(base, "POST", "api/actors/it_actor/resume", "");
            admin(base, "POST", "api/actors/it_actor/expectations/echo/resume", "");
        }
    }

    private static JsonObject actor(URL base, String id) throws Exception {
        return json(admin(base, "GET", "api/actors", null)).asJsonArray().getValuesAs(JsonObject.class).stream()
                .filter(a -> a.getString("id").equals(id)).findFirst().orElseThrow();
    }

    @Test
    @RunAsClient
    default void the_client_runs_a_recovery_sweep_for_one_env(@ArquillianResource URL base) throws Exception {
        String env = "cli-" + UUID.randomUUID().toString().substring(0, 8);
        String orphan = ProbeRows.episode("it_actor", "echo", "running", env, 600);
        ProbeRows.step(orphan, 1, "observation", 600); // it ran a step: its policy (fail) decides
        Run swept = succeeded(cyclium(base, "sweep", "--env", env));
        JsonObject report = json(swept.out()).asJsonObject();
        assertThat(report.getString("env")).isEqualTo(env);
        assertThat(report.getInt("found")).isEqualTo(1);
        JsonObject episode = json(admin(base, "GET", "api/episodes/" + orphan, null)).asJsonObject().getJsonObject("episode");
        assertThat(episode.getString("status")).isEqualTo("failed");
        assertThat(episode.getString("errorClass")).isEqualTo("orphaned");
    }

    @Test
    @RunAsClient
    default void the_client_signals_a_waiting_episode_which_then_finishes_with_the_payload(@ArquillianResource URL base)
            throws Exception {
        Run started = succeeded(cyclium(base, "start", "it_actor", "waiter", "--key", "cli-" + UUID.randomUUID()));
        String id = json(started.out()).asJsonObject().getString("episodeId");
        awaitStatus(base, id, "blocked");
        Run kept = succeeded(cyclium(base, "signal", id, "ticket-7"));
        assertThat(json(kept.out()).asJsonObject().getString("outcome")).isEqualTo("kept");
        Run delivered = succeeded(cyclium(base, "signal", id, "ticket-42", "{\"from\": \"cli\"}"));
        assertThat(json(delivered.out()).asJsonObject().getString("outcome")).isEqualTo("delivered");
        awaitStatus(base, id, "done");
        assertThat(json(admin(base, "GET", "api/episodes/" + id, null)).asJsonObject().getJsonObject("episode")
                .getString("summary")).isEqualTo("resolved with {\"from\":\"cli\"}");
        Run late = cyclium(base, "signal", id, "ticket-42");
        assertThat(late.exit()).isEqualTo(1);
        assertThat(late.err()).contains("HTTP 409");
    }

    @Test
    @RunAsClient
    default void the_client_shows_a_workflow_step_s_own_key_and_limit_and_why_its_episode_is_queued(@ArquillianResource URL base)
            throws Exception {
        String wf = "cli_step_key_" + UUID.randomUUID().toString().substring(0, 8);
        File doc = File.createTempFile("cyclium-cli-wf", ".json");
        List<String> instances = new ArrayList<>();
        try {
            java.nio.file.Files.writeString(doc.toPath(), "{\"id\": \"" + wf + "\", \"subjectKey\": \"order\", \"steps\": ["
                    + "{\"id\": \"work\", \"actor\": \"it_actor\", \"expectation\": \"slow\", \"concurrencyKey\": \"$.tenant\","
                    + " \"concurrencyLimit\": 1}]}");
            succeeded(cyclium(base, "workflow", "put", wf, doc.getAbsolutePath()));
            JsonObject definition = json(succeeded(cyclium(base, "workflow", "get", wf)).out()).asJsonObject();
            assertThat(definition.toString()).contains("\"concurrencyKey\":\"$.tenant\"", "\"concurrencyLimit\":1");
            for (int order = 1; order <= 2; order++) {
                Run started = succeeded(cyclium(base, "workflow", "start", wf, "--payload",
                        "{\"order\": \"" + order + "\", \"tenant\": \"acme\"}"));
                instances.add(json(started.out()).asJsonObject().getString("id"));
            }
            // the slow step runs for a minute: one acme step runs, the other waits for its key
            JsonObject waiting = QueuedSteps.awaitOne(Duration.ofSeconds(30), "the client shows one acme step waiting for its key",
                    instances, id -> json(succeeded(cyclium(base, "workflow", "instance", id)).out()).asJsonObject()
                            .getJsonArray("steps").getValuesAs(JsonObject.class));
            assertThat(waiting.getString("concurrencyKey")).isEqualTo("$.tenant");
            assertThat(waiting.getInt("concurrencyLimit")).isEqualTo(1);
            assertThat(waiting.getString("queuedBecause")).isEqualTo("step " + wf + "/work key acme at limit 1/1");
        } finally {
            doc.delete();
            for (String id : instances) {
                cyclium(base, "workflow", "cancel", id);
            }
        }
    }

    @Test
    @RunAsClient
    default void bad_arguments_print_the_usage_and_exit_2_without_calling_the_server(@ArquillianResource URL base)
            throws Exception {
        String[][] bad = {{}, {"nonsense"}, {"start", "it_actor"}, {"episodes", "--colour", "red"}, {"mode", "set"},
            {"actor-mode", "it_actor"}, {"episode"}, {"event", "--id", "x"}, {"--url"}, {"signal", "some-id"},
            {"signal", "some-id", "name", "1", "2"}};
        for (String[] args : bad) {
            Run run = cyclium(base, Map.of("CYCLIUM_URL", "http://127.0.0.1:9/never-called"), args);
            assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err()).as(String.join(" ", args)).contains("usage: cyclium").doesNotContain("could not reach");
            assertThat(run.out()).isEmpty();
        }
    }

    @Test
    @RunAsClient
    default void refusals_exit_1_with_the_servers_message(@ArquillianResource URL base) throws Exception {
        Run wrong = cyclium(base, Map.of("CYCLIUM_PASSWORD", "not-the-password"), "mode");
        assertThat(wrong.exit()).isEqualTo(1);
        assertThat(wrong.err()).contains("HTTP 401").contains("password");
        Run flagWins = cyclium(base, "--password", "not-the-password", "episodes");
        assertThat(flagWins.exit()).as("a --password flag overrides CYCLIUM_PASSWORD").isEqualTo(1);

        Run unknown = cyclium(base, "episode", UUID.randomUUID().toString());
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("HTTP 404").contains("no episode");
        Run badMode = cyclium(base, "mode", "set", "turbo");
        assertThat(badMode.exit()).isEqualTo(1);
        assertThat(badMode.err()).contains("HTTP 400").contains("is not one of");
        assertThat(mode(base).getString("nodeMode")).isEqualTo("full");
        Run badPayload = cyclium(base, "event", "it.echo", "--payload", "{not json");
        assertThat(badPayload.exit()).isEqualTo(1);
        assertThat(badPayload.err()).contains("HTTP 400").contains("not valid JSON");
        Run unreachable = cyclium(base, Map.of("CYCLIUM_URL", "http://127.0.0.1:9/cyclium"), "mode");
        assertThat(unreachable.exit()).isEqualTo(3);
        assertThat(unreachable.err()).contains("could not reach");
    }
    @Test
    @RunAsClient
    default void the_client_previews_a_bulk_cancel_and_runs_it_only_with_yes_on_the_count_it_expects(@ArquillianResource URL base)
            throws Exception {
        BulkActionApiTests.Waiting w = BulkActionApiTests.waiters(base, 2);
        String from = jakarta.json.Json.createReader(new java.io.StringReader(w.filter())).readObject().getString("from");
        String[] filter = {"--actor", "it_actor", "--expectation", "bulk_waiter", "--status", "blocked", "--from", from};

        Run preview = succeeded(cyclium(base, concat(new String[] {"bulk", "cancel"}, filter)));
        assertThat(json(preview.out()).asJsonObject().getInt("count")).isEqualTo(2);
        assertThat(preview.err()).contains("2 episodes match; run again with --yes to cancel exactly these");
        Run wrongCount = cyclium(base, concat(new String[] {"bulk", "cancel"}, filter, new String[] {"--yes", "--expect", "3"}));
        assertThat(wrongCount.exit()).as("stderr: " + wrongCount.err()).isEqualTo(1);
        assertThat(wrongCount.err()).contains("2 episodes match now, not 3: nothing was started");
        for (String id : w.ids()) {
            assertThat(status(base, id)).as("a preview and a refused start change nothing").isEqualTo("blocked");
        }
        Run unfiltered = cyclium(base, "bulk", "cancel", "--yes");
        assertThat(unfiltered.exit()).isEqualTo(2);
        assertThat(unfiltered.err()).contains("needs at least one filter");

        Run started = succeeded(cyclium(base, concat(new String[] {"bulk", "cancel"}, filter, new String[] {"--yes", "--expect", "2"})));
        String actionId = json(started.out()).asJsonObject().getString("id");
        assertThat(started.err()).contains("2 episodes match; starting cancel on exactly these");
        BulkActionApiTests.awaitDone(base, actionId);
        for (String id : w.ids()) {
            assertThat(status(base, id)).isEqualTo("canceled");
        }
        JsonObject shown = json(succeeded(cyclium(base, "bulk", "show", actionId, "--result", "done")).out()).asJsonObject();
        assertThat(shown.getJsonObject("action").getInt("done")).isEqualTo(2);
        assertThat(shown.getJsonArray("items")).hasSize(2);
        assertThat(succeeded(cyclium(base, "bulk", "list", "--limit", "50")).out()).contains(actionId);
        Run stopFinished = cyclium(base, "bulk", "stop", actionId);
        assertThat(stopFinished.exit()).as(stopFinished.err()).isEqualTo(1);
        assertThat(stopFinished.err()).contains("HTTP 409", "is done: only a running one can be canceled");
        assertThat(cyclium(base, "bulk", "stop").exit()).isEqualTo(2);
        Run nothingLeft = cyclium(base, concat(new String[] {"bulk", "cancel"}, filter, new String[] {"--yes"}));
        assertThat(nothingLeft.exit()).isEqualTo(1);
        assertThat(nothingLeft.err()).contains("no episode matches the filter");
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
    }
}
