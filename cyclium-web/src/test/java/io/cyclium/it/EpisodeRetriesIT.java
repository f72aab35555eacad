package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.UUID;
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
 * {@code @Retry} of a plain episode on a real Payara Micro: the event's episode fails its first run
 * (it_actor/retried, 3 attempts, 10 s initial delay), the failed episode shows when its next
 * attempt is due (the {@code retry_due_at} column, through the API), the node's timer starts the
 * retry no earlier than that, and the retry completes.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EpisodeRetriesIT {

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

    private JsonObject episode(String id) {
        try {
            return call("GET", "api/episodes/" + id, null, 200);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A string field, null when absent or JSON null. */
    private static String text(JsonObject o, String field) {
        JsonValue v = o.get(field);
        return v instanceof JsonString s ? s.getString() : null;
    }

    @Test
    void an_episode_failing_its_first_attempt_shows_its_due_retry_and_is_retried_after_the_backoff_and_completes()
            throws Exception {
        String token = UUID.randomUUID().toString();
        JsonObject accepted = call("POST", "api/events", "{\"type\": \"it.retried\", \"id\": \"retry-" + token
                + "\", \"payload\": {\"token\": \"" + token + "\"}}", 202);
        String key = accepted.getJsonArray("matched").getJsonObject(0).getString("dedupeKey");

        String first = Await.until(WAIT, "the event's episode", () -> {
            try {
                HttpResponse<String> r = admin(base, "GET", "api/episodes?actor=it_actor&expectation=retried&limit=500", null);
                return json(r).asJsonArray().stream().map(JsonValue::asJsonObject)
                        .filter(o -> key.equals(o.getString("dedupeKey", ""))).map(o -> o.getString("id")).findFirst().orElse(null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // failed, and its retry decided just after the failure's commit: the due time shows
        JsonObject waiting = Await.until(WAIT, "the failed episode's next retry time", () -> {
            JsonObject d = episode(first);
            return "failed".equals(d.getJsonObject("episode").getString("status")) && text(d, "nextRetryAt") != null ? d : null;
        });
        LocalDateTime failedAt = LocalDateTime.parse(waiting.getJsonObject("episode").getString("finishedAt"));
        LocalDateTime dueAt = LocalDateTime.parse(text(waiting, "nextRetryAt"));
        assertThat(Duration.between(failedAt, dueAt)).as("the backoff: 10 s from the failure (decided just after its commit)")
                .isBetween(Duration.ofMillis(9_900), Duration.ofSeconds(15));
        assertThat(text(waiting, "retriedBy")).as("not retried yet").isNull();

        String retry = Await.until(WAIT, "the retry started", () -> text(episode(first), "retriedBy"));
        JsonObject done = Await.until(WAIT, "the retry done", () -> {
            JsonObject d = episode(retry);
            return "done".equals(d.getJsonObject("episode").getString("status")) ? d : null;
        });
        assertThat(done.getJsonObject("episode").getString("dedupeKey")).isEqualTo("retry:" + first + ":2");
        LocalDateTime retryStarted = LocalDateTime.parse(done.getJsonObject("episode").getString("startedAt"));
        assertThat(retryStarted).as("not before its due time").isAfterOrEqualTo(dueAt.minusNanos(50_000_000));
        JsonObject settled = episode(first);
        assertThat(text(settled, "nextRetryAt")).as("no longer waiting").isNull();
        assertThat(settled.getJsonArray("steps").stream().map(v -> v.asJsonObject().getString("kind")))
                .contains("retry_scheduled", "retry_started");
    }
}
