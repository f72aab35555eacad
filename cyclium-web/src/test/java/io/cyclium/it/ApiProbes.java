package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.enc;
import static io.cyclium.it.ApiCalls.json;
import static io.cyclium.it.ApiCalls.segment;
import static io.cyclium.it.ApiCalls.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.ApiOperations.Operation;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.Test;

/**
 * Probes of the API and the console from outside, with hostile input. An interface so that
 * {@link ConsoleSecurityIT} runs these against its deployment (the product WAR as shipped)
 * instead of booting another server; every operation comes from {@link ApiOperations}, so a new
 * endpoint is probed without being listed here.
 */
interface ApiProbes {

    /** Values that break a query built by concatenation, or match too much under LIKE. */
    List<String> HOSTILE = List.of("' OR '1'='1", "%", "_", "\\", ";--", "\"", "ünï©ødé ✓", "%_\\", ") OR 1=1 --", "*", "a'b");

    String NODE = "arquillian-node-1";

    private static void assertJsonError(HttpResponse<String> r, int status, String what) {
        assertThat(r.statusCode()).as(what + ": " + r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).as(what).hasValueSatisfying(v -> assertThat(v).contains("json"));
        JsonObject error = json(r).asJsonObject();
        assertThat(error.getInt("status")).as(what).isEqualTo(status);
        assertThat(error.getString("error")).as(what).isNotBlank();
        assertThat(r.body()).as(what).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("SQL");
    }

    private static void assertNamesField(HttpResponse<String> r, String field, String what) {
        assertJsonError(r, 400, what);
        assertThat(json(r).asJsonObject().getString("field", null)).as(what + ": " + r.body()).isEqualTo(field);
    }

    private static JsonArray list(URL base, String path) throws Exception {
        HttpResponse<String> r = admin(base, "GET", path, null);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return json(r).asJsonArray();
    }

    /** An episode row that exists, so a leak on a refused request would show its data. */
    private static String anyEpisodeId() throws Exception {
        return ProbeRows.episode("probe-any", "probe-any", "done", null, 0);
    }

    /** One row per hostile value, made by {@code insert}; the ids in {@link #HOSTILE}'s order. */
    private static List<String> rowPerHostileValue(ThrowingInsert insert) throws Exception {
        List<String> ids = new ArrayList<>();
        for (String hostile : HOSTILE) {
            ids.add(insert.row(hostile));
        }
        return ids;
    }

    /** Inserts the row for one hostile value and returns its id. */
    interface ThrowingInsert {
        String row(String hostile) throws Exception;
    }

    private static List<String> ids(JsonArray rows) {
        return rows.stream().map(v -> v.asJsonObject().getString("id")).toList();
    }

    // ---- who gets in ---------------------------------------------------------------------------

    @Test
    default void every_api_operation_refuses_callers_without_valid_credentials(@ArquillianResource URL base) throws Exception {
        String existing = anyEpisodeId();
        String wrong = ConsoleUsers.basic("admin", "not-the-password");
        for (Operation op : ApiOperations.all()) {
            if (op.path().equals("/health")) {
                continue;
            }
            String path = "api" + op.pathWith(existing);
            String body = op.takesBody() ? "{}" : null;
            for (String authorization : new String[] {null, wrong}) {
                HttpResponse<String> r = send(base, op.method(), path, authorization, body);
                assertThat(r.statusCode()).as(op + (authorization == null ? " without credentials" : " with a wrong password"))
                        .isEqualTo(401);
                assertThat(r.body()).as(op.toString()).doesNotContain(existing).doesNotContain(NODE);
            }
            if (op.toString().equals("POST /bulk-actions/preview")) {
                // a POST that changes nothing: viewers may send it (its empty filter is a 400, not a 403)
                assertThat(send(base, op.method(), path, ConsoleUsers.viewer(), body).statusCode())
                        .as(op + " by a viewer").isEqualTo(400);
            } else if (!op.method().equals("get")) {
                assertThat(send(base, op.method(), path, ConsoleUsers.viewer(), body).statusCode())
                        .as(op + " by a viewer").isEqualTo(403);
            }
        }
    }

    @Test
    default void every_console_page_sends_a_caller_without_a_session_to_the_login_page(@ArquillianResource URL base)
            throws Exception {
        File[] pages = new File("src/main/webapp").listFiles((d, name) -> name.endsWith(".xhtml"));
        assertThat(pages).as("console pages under src/main/webapp").isNotNull().hasSizeGreaterThan(5);
        List<String> paths = new ArrayList<>(List.of("", "WEB-INF/templates/console.xhtml"));
        for (File page : pages) {
            if (!Set.of("login.xhtml", "error.xhtml").contains(page.getName())) {
                paths.add(page.getName());
                paths.add(page.getName() + "?id=" + enc("' OR '1'='1"));
            }
        }
        for (String path : paths) {
            HttpResponse<String> r = send(base, "GET", path, null, null);
            assertThat(r.statusCode()).as(path + ": " + r.body()).isIn(302, 303, 404);
            if (r.statusCode() != 404) {
                // the login page, naming the page asked for (inside this application) so a pasted link opens after the login
                assertThat(r.headers().firstValue("Location")).as(path)
                        .hasValueSatisfying(v -> assertThat(v).matches(".*/cyclium/login\\.xhtml(\\?next=%2F[^&:]*)?"));
            }
            assertThat(r.body()).as(path).doesNotContain(NODE);
        }
    }

    @Test
    default void the_openapi_document_is_served_to_readers_and_lists_every_resource_method(@ArquillianResource URL base)
            throws Exception {
        HttpResponse<String> r = send(base, "GET", "api/openapi", ConsoleUsers.viewer(), null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonObject doc = json(r).asJsonObject();
        assertThat(doc.getString("openapi")).startsWith("3.");
        assertThat(doc.getJsonArray("servers").getJsonObject(0).getString("url")).isEqualTo("/cyclium/api");
        JsonObject paths = doc.getJsonObject("paths");
        for (Operation op : ApiOperations.all()) {
            assertThat(paths.containsKey(op.path()) && paths.getJsonObject(op.path()).containsKey(op.method()))
                    .as(op + " in the served document").isTrue();
        }
        JsonObject error = doc.getJsonObject("components").getJsonObject("schemas").getJsonObject("ApiError");
        assertThat(error.getJsonObject("properties").keySet()).contains("status", "error", "field");
        assertThat(doc.getJsonObject("components").getJsonObject("responses").getJsonObject("BadRequest").toString())
                .contains("#/components/schemas/ApiError");
    }

    // ---- hostile filters -----------------------------------------------------------------------

    @Test
    default void sql_metacharacters_in_episode_filters_match_literally_and_nothing_else(@ArquillianResource URL base)
            throws Exception {
        String tag = "probe-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> inserted = rowPerHostileValue(h -> ProbeRows.episode(tag + h, tag + "-exp" + h, "done", null, 0));
        for (int i = 0; i < HOSTILE.size(); i++) {
            String hostile = HOSTILE.get(i);
            assertThat(ids(list(base, "api/episodes?limit=500&actor=" + enc(tag + hostile)))).as("actor " + hostile)
                    .containsExactly(inserted.get(i));
            assertThat(ids(list(base, "api/episodes?limit=500&expectation=" + enc(tag + "-exp" + hostile))))
                    .as("expectation " + hostile).containsExactly(inserted.get(i));
            assertThat(list(base, "api/episodes?actor=" + enc(hostile))).as("actor = " + hostile + " alone").isEmpty();
            assertThat(list(base, "api/episodes?actor=it_actor&expectation=" + enc(hostile))).as("expectation " + hostile)
                    .isEmpty();
            assertNamesField(admin(base, "GET", "api/episodes?status=" + enc(hostile), null), "status", "status " + hostile);
        }
        assertThat(list(base, "api/episodes?actor=" + enc(tag))).as("an actor filter is not a prefix").isEmpty();
    }

    @Test
    default void sql_metacharacters_in_finding_and_trigger_request_filters_match_literally(@ArquillianResource URL base)
            throws Exception {
        String tag = "probe-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> inserted = rowPerHostileValue(h -> ProbeRows.finding(tag + h, tag + "-env" + h));
        for (int i = 0; i < HOSTILE.size(); i++) {
            String hostile = HOSTILE.get(i);
            assertThat(ids(list(base, "api/findings?limit=500&class=" + enc(tag + hostile)))).as("class " + hostile)
                    .containsExactly(inserted.get(i));
            assertThat(ids(list(base, "api/findings?limit=500&env=" + enc(tag + "-env" + hostile)))).as("env " + hostile)
                    .containsExactly(inserted.get(i));
            assertThat(list(base, "api/findings?class=" + enc(hostile))).as("class = " + hostile + " alone").isEmpty();
            assertThat(list(base, "api/findings?env=" + enc(hostile))).as("env = " + hostile + " alone").isEmpty();
            assertNamesField(admin(base, "GET", "api/findings?status=" + enc(hostile), null), "status", "finding status " + hostile);
            assertNamesField(admin(base, "GET", "api/trigger-requests?status=" + enc(hostile), null), "status",
                    "request status " + hostile);
        }
        assertThat(list(base, "api/findings?class=" + enc(tag))).as("a class filter is not a prefix").isEmpty();
    }

    @Test
    default void hostile_values_in_the_keyset_list_filters_match_nothing_and_malformed_ones_are_400s_naming_them(
            @ArquillianResource URL base) throws Exception {
        String tag = "probe-claim-" + UUID.randomUUID() + ":";
        List<String> keys = new ArrayList<>();
        for (String hostile : HOSTILE) {
            keys.add(tag + hostile);
            ProbeRows.claim(tag + hostile);
        }
        for (String hostile : HOSTILE) {
            String prefix = tag + hostile;
            List<String> expected = keys.stream().filter(k -> k.startsWith(prefix)).sorted().toList();
            assertThat(list(base, "api/claims?keyPrefix=" + enc(prefix)).stream().map(v -> v.asJsonObject().getString("key")).toList())
                    .as("keyPrefix " + prefix + " matches literally").containsExactlyInAnyOrderElementsOf(expected);
        }
        for (String hostile : HOSTILE) {
            for (String field : List.of("stack", "env")) {
                assertThat(list(base, "api/episodes?" + field + "=" + enc("probe" + hostile))).as(field + " " + hostile).isEmpty();
            }
            for (String field : List.of("owner", "workType")) {
                assertThat(list(base, "api/claims?" + field + "=" + enc("probe" + hostile))).as(field + " " + hostile).isEmpty();
            }
            // % and _ would match every key in a LIKE that did not escape them
            assertThat(list(base, "api/claims?keyPrefix=" + enc(hostile))).as("keyPrefix " + hostile).isEmpty();
            assertNamesField(admin(base, "GET", "api/claims?state=" + enc(hostile), null), "state", "claim state " + hostile);
            for (String field : List.of("from", "to", "cursor")) {
                assertNamesField(admin(base, "GET", "api/episodes?" + field + "=" + enc(hostile), null), field, field + " " + hostile);
            }
            assertNamesField(admin(base, "GET", "api/claims?cursor=" + enc(hostile), null), "cursor", "claim cursor " + hostile);
            assertNamesField(admin(base, "GET", "api/stats/throughput?minutes=" + enc(hostile), null), "minutes",
                    "minutes " + hostile);
        }
    }

    @Test
    default void page_sizes_are_capped_or_rejected_naming_the_limit(@ArquillianResource URL base) throws Exception {
        for (Operation op : ApiOperations.all()) {
            // a page of one thing (GET /bulk-actions/{id}: its items) is probed where it is tested (BulkActionApiTests)
            if (!op.queryParams().contains("limit") || op.path().contains("{")) {
                continue;
            }
            String path = "api" + op.path();
            for (String huge : List.of("1000000", "99999999999", "000000000000000000000000000000000000000007", "")) {
                assertThat(list(base, path + "?limit=" + huge).size()).as(op + " limit=" + huge).isLessThanOrEqualTo(500);
            }
            for (String bad : List.of("-1", "0", "000", "abc", "1e3", "+5", "10; DROP TABLE cyclium_episodes", "½", "\u0661\u0662")) {
                assertNamesField(admin(base, "GET", path + "?limit=" + enc(bad), null), "limit", op + " limit=" + bad);
            }
        }
    }

    // ---- unknown ids and broken bodies ---------------------------------------------------------

    @Test
    default void unknown_ids_are_json_404s_on_every_operation_that_takes_one(@ArquillianResource URL base) throws Exception {
        List<String> unknown = List.of(UUID.randomUUID().toString(), "no-such-thing", "' OR '1'='1", "%_", ";--", "ünï");
        int probed = 0;
        for (Operation op : ApiOperations.all()) {
            // PUT /workflows/{id} creates the workflow it names: an unknown id is not an error there
            if (!op.path().contains("{") || op.toString().equals("PUT /workflows/{id}")) {
                continue;
            }
            for (String id : unknown) {
                // a well-formed body, so the id is the only thing wrong
                // (a signal's body takes its payload and nothing else)
                String body = !op.takesBody() ? null : op.path().contains("/signals/") ? "{\"payload\":1}"
                        : "{\"mode\":\"full\",\"planHash\":\"x\",\"reference\":\"r\",\"value\":1}";
                // the id is what is unknown; a signal's name stays a well-formed one
                String path = op.path().replace("{name}", "probe-signal");
                HttpResponse<String> r = admin(base, op.method(), "api" + new ApiOperations.Operation(op.method(), path,
                        op.queryParams(), op.takesBody()).pathWith(segment(id)), body);
                assertJsonError(r, 404, op + " " + id);
                probed++;
            }
        }
        assertThat(probed).as("operations with an id").isGreaterThanOrEqualTo(8 * unknown.size());
    }

    @Test
    default void malformed_bodies_are_400s_saying_what_is_wrong_on_every_operation_that_reads_one(
            @ArquillianResource URL base) throws Exception {
        List<String> broken = List.of("{", "{\"a\":}", "[1, 2]", "\"just a string\"", "nul", "{\"a\": 1} trailing", "\u0000");
        String existing = anyEpisodeId();
        int probed = 0;
        for (Operation op : ApiOperations.all()) {
            if (!op.takesBody()) {
                continue;
            }
            String path = "api" + op.pathWith(op.path().startsWith("/mode") ? "it_actor" : existing);
            for (String body : broken) {
                HttpResponse<String> r = admin(base, op.method(), path, body);
                assertJsonError(r, 400, op + " with " + body);
                assertThat(json(r).asJsonObject().getString("error").toLowerCase(Locale.ROOT)).as(op + " with " + body)
                        .containsAnyOf("json", "body");
            }
            probed++;
        }
        assertThat(probed).as("operations with a body").isGreaterThanOrEqualTo(7);
        assertNamesField(admin(base, "POST", "api/events", "{\"type\": 5}"), "type", "a number for a string");
        assertNamesField(admin(base, "POST", "api/events", "{\"type\": \"x\", \"payload\": [1]}"), "payload", "an array for an object");
        assertNamesField(admin(base, "POST", "api/episodes", "{\"actor\": \"it_actor\"}"), "expectation", "a missing field");
        assertNamesField(admin(base, "POST", "api/recovery/sweep", "{\"env\": 7}"), "env", "a number for the env");
        assertNamesField(admin(base, "PUT", "api/mode", "{\"mode\": null}"), "mode", "a null mode");
    }

    @Test
    default void the_event_intake_answers_other_methods_with_a_json_405_and_reads_bodies_in_their_charset_up_to_the_limit(
            @ArquillianResource URL base) throws Exception {
        for (String method : List.of("GET", "PUT", "DELETE")) {
            HttpResponse<String> r = admin(base, method, "api/events", "GET".equals(method) ? null : "{\"type\": \"x\"}");
            assertJsonError(r, 405, method + " api/events");
            assertThat(r.headers().firstValue("Allow")).as(method).hasValue("POST, OPTIONS");
        }
        // a body far over the limit is refused after reading one byte past it, naming the limit
        String huge = "{\"type\": \"it.nobody\", \"payload\": {\"pad\": \"" + "a".repeat(1_048_577) + "\"}}";
        HttpResponse<String> tooLong = admin(base, "POST", "api/events", huge);
        assertJsonError(tooLong, 400, "a body of over 1 MB");
        assertThat(json(tooLong).asJsonObject().getString("error")).contains("at most 262144 characters");
        // the request's charset decodes the body; an unknown one is named
        byte[] latin1 = "{\"type\": \"it.nobody\", \"id\": \"café-1\"}".getBytes(StandardCharsets.ISO_8859_1);
        HttpResponse<String> read = eventsWithContentType(base, "application/json; charset=ISO-8859-1", latin1);
        assertThat(read.statusCode()).as("read, and matched by nobody: " + read.body()).isEqualTo(200);
        assertThat(json(read).asJsonObject().getString("id")).isEqualTo("café-1");
        HttpResponse<String> unknown = eventsWithContentType(base, "application/json; charset=x-no-such-charset", latin1);
        assertJsonError(unknown, 400, "an unknown charset");
        assertThat(json(unknown).asJsonObject().getString("error")).contains("x-no-such-charset");
    }

    private static HttpResponse<String> eventsWithContentType(URL base, String contentType, byte[] body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/events"))
                .header("Content-Type", contentType).header("Authorization", ConsoleUsers.admin())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    // ---- the console with hostile query parameters -----------------------------------------------

    @Test
    default void console_pages_take_hostile_query_parameters_without_an_error_page_or_a_leak(@ArquillianResource URL base)
            throws Exception {
        File[] pages = new File("src/main/webapp").listFiles((d, name) -> name.endsWith(".xhtml"));
        for (File page : pages) {
            for (String hostile : HOSTILE) {
                String path = page.getName() + "?id=" + enc(hostile) + "&actor=" + enc(hostile) + "&status=" + enc(hostile);
                HttpResponse<String> r = admin(base, "GET", path, null);
                assertThat(r.statusCode()).as(path).isIn(200, 302);
                assertThat(r.body()).as(path).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("SQLState");
            }
        }
        // an episode page is opened by its URL alone (no token): a hostile id is a "no episode" message, nothing more
        for (String hostile : HOSTILE) {
            HttpResponse<String> r = admin(base, "GET", "episode.xhtml?id=" + enc(hostile), null);
            assertThat(r.statusCode()).as("episode.xhtml?id=" + hostile).isEqualTo(200);
            assertThat(r.body()).as("episode.xhtml?id=" + hostile).contains("no episode").doesNotContain("Exception")
                    .doesNotContain("probe row");
        }
    }
}
