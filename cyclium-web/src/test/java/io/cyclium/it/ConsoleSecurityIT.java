package io.cyclium.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes from outside: who gets in where, with which role, and what a refusal looks like. Also
 * runs {@link ApiProbes} (hostile input on every operation) against the same deployment.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleSecurityIT implements ApiProbes {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployment.productWar();
    }

    @ArquillianResource
    URL base;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String method, String path, String authorization, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                .header("Content-Type", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void an_api_request_without_credentials_is_refused_with_a_basic_challenge() throws Exception {
        HttpResponse<String> r = send("GET", "api/episodes", null, null);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        assertThat(send("POST", "api/events", null, "{}").statusCode()).isEqualTo(401);
    }

    @Test
    void a_wrong_password_is_refused_like_no_password() throws Exception {
        assertThat(send("GET", "api/episodes", ConsoleUsers.basic("admin", "not-the-password"), null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "api/episodes", ConsoleUsers.basic("nobody", ConsoleUsers.adminPassword()), null).statusCode()).isEqualTo(401);
    }

    @Test
    void a_page_without_a_session_redirects_to_the_login_page() throws Exception {
        HttpResponse<String> r = send("GET", "index.xhtml", null, null);
        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValueSatisfying(v -> assertThat(v).endsWith("/cyclium/login.xhtml?next=%2Findex.xhtml"));
        assertThat(r.body()).doesNotContain("arquillian-node-1");
    }

    @Test
    void the_composite_components_are_never_served_on_their_own() throws Exception {
        for (String component : new String[] {"time", "took", "badge", "json", "timeline"}) {
            String path = "resources/cy/" + component + ".xhtml";
            HttpResponse<String> anonymous = send("GET", path, null, null);
            assertThat(anonymous.statusCode()).as(path).isIn(302, 403);
            HttpResponse<String> admin = send("GET", path, ConsoleUsers.admin(), null);
            assertThat(admin.statusCode()).as(path + " as admin").isEqualTo(403);
            assertThat(admin.body()).doesNotContain("cc:interface");
        }
    }

    @Test
    void api_calls_with_basic_credentials_leave_no_http_session_behind() throws Exception {
        for (int i = 0; i < 12; i++) {
            HttpResponse<String> r = send("GET", i % 2 == 0 ? "api/episodes" : "api/nodes", i % 3 == 0 ? ConsoleUsers.viewer() : ConsoleUsers.admin(), null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().allValues("Set-Cookie")).as("call " + i + " set a cookie").isEmpty();
        }
        // a change is authenticated the same way, and leaves no session either
        HttpResponse<String> sweep = send("POST", "api/recovery/sweep", ConsoleUsers.admin(), "{}");
        assertThat(sweep.statusCode()).isLessThan(300);
        assertThat(sweep.headers().allValues("Set-Cookie")).isEmpty();
    }

    @Test
    void a_login_returns_to_the_page_asked_for_and_never_to_another_host() throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        HttpResponse<String> form = browser.send(HttpRequest.newBuilder(URI.create(base.toString())
                .resolve("episodes.xhtml?actor=nobody-here")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(form.uri().getPath()).endsWith("/login.xhtml");
        assertThat(form.uri().getRawQuery()).isEqualTo("next=%2Fepisodes.xhtml%3Factor%3Dnobody-here");
        Matcher state = VIEW_STATE.matcher(form.body());
        assertThat(state.find()).isTrue();
        HttpResponse<String> page = browser.send(post(form.uri(), state.group(1), "admin", ConsoleUsers.adminPassword(),
                "/episodes.xhtml?actor=nobody-here"), HttpResponse.BodyHandlers.ofString());
        assertThat(page.uri().getPath()).endsWith("/episodes.xhtml");
        assertThat(page.uri().getQuery()).isEqualTo("actor=nobody-here");
        assertThat(page.body()).contains("No episodes match");

        // a crafted next= naming another host lands on the overview instead
        HttpClient other = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        URI crafted = URI.create(base.toString()).resolve("login.xhtml?next=" + enc("//evil.example/x"));
        HttpResponse<String> craftedForm = other.send(HttpRequest.newBuilder(crafted).GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher craftedState = VIEW_STATE.matcher(craftedForm.body());
        assertThat(craftedState.find()).isTrue();
        HttpResponse<String> landed = other.send(post(crafted, craftedState.group(1), "admin", ConsoleUsers.adminPassword(),
                "//evil.example/x"), HttpResponse.BodyHandlers.ofString());
        assertThat(landed.statusCode()).isEqualTo(302);
        assertThat(landed.headers().firstValue("Location")).hasValueSatisfying(v -> assertThat(v).endsWith("/cyclium/index.xhtml"));
    }

    @Test
    void the_health_probe_is_open_and_says_nothing_else() throws Exception {
        HttpResponse<String> r = send("GET", "api/health", null, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"status\":\"up\"}");
    }

    @Test
    void a_viewer_reads_but_may_not_change_anything() throws Exception {
        assertThat(send("GET", "api/episodes", ConsoleUsers.viewer(), null).statusCode()).isEqualTo(200);
        assertThat(send("POST", "api/events", ConsoleUsers.viewer(), "{\"eventType\":\"x\"}").statusCode()).isEqualTo(403);
        assertThat(send("PUT", "api/mode", ConsoleUsers.viewer(), "{\"mode\":\"trigger_only\"}").statusCode()).isEqualTo(403);
        assertThat(send("POST", "api/recovery/sweep", ConsoleUsers.viewer(), "{}").statusCode()).isEqualTo(403);
        assertThat(send("GET", "api/mode", ConsoleUsers.admin(), null).body()).contains("\"full\"");
    }

    @Test
    void an_unknown_episode_is_a_json_404_naming_the_id() throws Exception {
        HttpResponse<String> r = send("GET", "api/episodes/no-such-episode-42", ConsoleUsers.admin(), null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).contains("json"));
        assertThat(r.body()).contains("no-such-episode-42").doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void the_login_form_opens_a_session_for_the_console() throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        URI login = URI.create(base.toString()).resolve("login.xhtml");
        HttpResponse<String> form = browser.send(HttpRequest.newBuilder(login).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(form.statusCode()).isEqualTo(200);
        Matcher state = VIEW_STATE.matcher(form.body());
        assertThat(state.find()).as("view state in the login form").isTrue();

        HttpResponse<String> wrong = browser.send(post(login, state.group(1), "admin", "wrong-password"), HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.body()).contains("Wrong user or password.").doesNotContain("arquillian-node-1");

        Matcher again = VIEW_STATE.matcher(wrong.body());
        assertThat(again.find()).isTrue();
        HttpResponse<String> page = browser.send(post(login, again.group(1), "admin", ConsoleUsers.adminPassword()),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.uri().getPath()).endsWith("/index.xhtml");
        assertThat(page.body()).contains("arquillian-node-1");
    }

    // ---- cross-site requests, refusals in JSON, what anonymous callers learn (issue 33) --------

    /** A form login in a cookie-keeping client, as a browser does it: the client, holding the session cookie. */
    private HttpClient loggedInBrowser() throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        URI login = URI.create(base.toString()).resolve("login.xhtml");
        HttpResponse<String> form = browser.send(HttpRequest.newBuilder(login).GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher state = VIEW_STATE.matcher(form.body());
        assertThat(state.find()).isTrue();
        HttpResponse<String> page = browser.send(post(login, state.group(1), "admin", ConsoleUsers.adminPassword()),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.uri().getPath()).endsWith("/index.xhtml");
        return browser;
    }

    private static void assertJsonRefusal(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).contains("application/json"));
        jakarta.json.JsonObject error = ApiCalls.json(r).asJsonObject();
        assertThat(error.getInt("status")).isEqualTo(status);
        assertThat(error.getString("error")).isNotBlank();
        assertThat(r.body()).doesNotContainIgnoringCase("payara").doesNotContain("<html");
    }

    @Test
    void the_console_session_cookie_alone_opens_no_api_call_and_a_cross_site_form_post_is_refused() throws Exception {
        HttpClient browser = loggedInBrowser();
        // the session is good for pages...
        assertThat(browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("index.xhtml")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).contains("arquillian-node-1");
        // ...but not for the API, not even for a read
        assertJsonRefusal(browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/nodes")).build(),
                HttpResponse.BodyHandlers.ofString()), 401);
        // nor for the API spelled another way (the container decodes the path it maps)
        HttpResponse<String> encoded = browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("%61pi/nodes")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(encoded.statusCode()).as(encoded.body()).isNotEqualTo(200);
        assertThat(encoded.body()).doesNotContain("arquillian-node-1");
        // what a form on another site sends: text/plain holding JSON, the cookie, a foreign Origin, no Authorization
        String type = "it.csrf-" + java.util.UUID.randomUUID();
        HttpResponse<String> forged = browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/events"))
                .header("Content-Type", "text/plain").header("Origin", "http://evil.example")
                .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"" + type + "\",\"pad\":\"=\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).as(forged.body()).isIn(401, 403);
        assertJsonRefusal(forged, forged.statusCode());
        assertThat(forged.body()).doesNotContain(type);
    }

    @Test
    void a_change_from_another_origin_is_refused_even_with_credentials() throws Exception {
        HttpResponse<String> foreign = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/events"))
                .header("Content-Type", "application/json").header("Authorization", ConsoleUsers.admin())
                .header("Origin", "http://evil.example")
                .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"it.nobody\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertJsonRefusal(foreign, 403);
        assertThat(ApiCalls.json(foreign).asJsonObject().getString("error")).contains("evil.example");
        HttpResponse<String> nullOrigin = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/mode"))
                .header("Content-Type", "application/json").header("Authorization", ConsoleUsers.admin()).header("Origin", "null")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"mode\":\"disabled\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertJsonRefusal(nullOrigin, 403);
        assertThat(send("GET", "api/mode", ConsoleUsers.admin(), null).body()).contains("\"full\"");
        // a read from another origin is not a change; the same change from this origin goes through
        HttpResponse<String> read = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/mode"))
                .header("Authorization", ConsoleUsers.admin()).header("Origin", "http://evil.example").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(read.statusCode()).isEqualTo(200);
        String own = base.getProtocol() + "://" + base.getHost() + ":" + base.getPort();
        HttpResponse<String> same = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/events"))
                .header("Content-Type", "application/json").header("Authorization", ConsoleUsers.admin()).header("Origin", own)
                .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"it.nobody\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(same.statusCode()).as("accepted (an event nobody listens to is a 200): " + same.body()).isEqualTo(200);
    }

    @Test
    void a_body_that_is_not_json_is_a_json_415_on_every_kind_of_endpoint() throws Exception {
        // the event intake servlet, a JAX-RS resource with a body, and one without
        String[][] calls = {{"POST", "api/events"}, {"PUT", "api/mode"}, {"POST", "api/recovery/sweep"},
            {"POST", "api/maintenance/retention"}};
        for (String contentType : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
            for (String[] call : calls) {
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve(call[1]))
                        .header("Content-Type", contentType).header("Authorization", ConsoleUsers.admin())
                        .method(call[0], HttpRequest.BodyPublishers.ofString("{\"type\":\"it.nobody\",\"mode\":\"disabled\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(call[0] + " " + call[1] + " as " + contentType + ": " + r.body()).isEqualTo(415);
                assertJsonRefusal(r, 415);
            }
        }
        // a body without any Content-Type is not JSON either
        HttpResponse<String> untyped = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/events"))
                .header("Authorization", ConsoleUsers.admin()).POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"it.nobody\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertJsonRefusal(untyped, 415);
        assertThat(send("GET", "api/mode", ConsoleUsers.admin(), null).body()).contains("\"full\"");
        // an operation without a body still needs no Content-Type (the command-line client sends none)
        HttpResponse<String> bare = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("api/recovery/sweep"))
                .header("Authorization", ConsoleUsers.admin()).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bare.statusCode()).as(bare.body()).isEqualTo(200);
    }

    @Test
    void a_401_and_a_403_from_the_api_are_the_apis_json_error_body() throws Exception {
        HttpResponse<String> anonymous = send("GET", "api/episodes", null, null);
        assertJsonRefusal(anonymous, 401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        assertJsonRefusal(send("POST", "api/events", ConsoleUsers.basic("admin", "not-the-password"), "{}"), 401);
        assertJsonRefusal(send("PUT", "api/mode", ConsoleUsers.viewer(), "{\"mode\":\"disabled\"}"), 403);
        assertJsonRefusal(send("POST", "api/events", ConsoleUsers.viewer(), "{\"type\":\"it.nobody\"}"), 403);
    }

    @Test
    void anonymous_readiness_says_up_or_down_per_check_without_naming_the_node_or_the_schema() throws Exception {
        HttpResponse<String> anonymous = send("GET", "api/health?probe=ready", null, null);
        assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(200);
        assertThat(anonymous.body()).contains("\"status\":\"up\"").contains("node-registered")
                .doesNotContain("arquillian-node-1").doesNotContain("reachable").doesNotContainPattern("at [0-9]");
        HttpResponse<String> mp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(mp.statusCode()).as(mp.body()).isEqualTo(200);
        assertThat(mp.body()).contains("cyclium-ready").doesNotContain("arquillian-node-1").doesNotContainPattern("at [0-9]");
        // a caller with credentials still sees which node answered and at which schema version
        HttpResponse<String> viewer = send("GET", "api/health?probe=ready", ConsoleUsers.viewer(), null);
        assertThat(viewer.body()).contains("arquillian-node-1").containsPattern("at [0-9]");
        // the console's session does not count as credentials here either
        HttpResponse<String> session = loggedInBrowser().send(HttpRequest.newBuilder(URI.create(base.toString())
                .resolve("api/health?probe=ready")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(session.body()).doesNotContain("arquillian-node-1");
    }

    @Test
    void payaras_own_openapi_document_is_switched_off_and_the_applications_needs_a_login() throws Exception {
        HttpResponse<String> payaras = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base.toString())
                .resolve("/openapi")).build(), HttpResponse.BodyHandlers.ofString());
        // 403 is what Payara answers when the service is disabled (a 404 would only mean "not built yet")
        assertThat(payaras.statusCode()).as("GET /openapi, %d characters", payaras.body().length()).isEqualTo(403);
        assertThat(payaras.body()).doesNotContain("/episodes");
        assertJsonRefusal(send("GET", "api/openapi", null, null), 401);
    }

    @Test
    void the_session_cookie_is_http_only_and_same_site_strict_and_pages_carry_the_security_headers() throws Exception {
        HttpResponse<String> login = send("GET", "login.xhtml", null, null);
        String cookie = login.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID=")).findFirst()
                .orElseThrow(() -> new AssertionError("no session cookie: " + login.headers().map()));
        assertThat(cookie).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict");
        assertThat(login.body()).doesNotContain(";jsessionid=");
        for (HttpResponse<String> r : java.util.List.of(login, send("GET", "index.xhtml", ConsoleUsers.viewer(), null),
                send("GET", "api/episodes", ConsoleUsers.viewer(), null))) {
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(r.uri().toString())
                    .hasValueSatisfying(v -> assertThat(v).contains("frame-ancestors 'none'").contains("default-src 'self'")
                            .contains("object-src 'none'"));
            assertThat(r.headers().firstValue("X-Content-Type-Options")).as(r.uri().toString()).hasValue("nosniff");
            assertThat(r.headers().firstValue("Referrer-Policy")).as(r.uri().toString()).hasValue("same-origin");
        }
    }

    private static HttpRequest post(URI login, String viewState, String user, String password) {
        return post(login, viewState, user, password, "");
    }

    private static HttpRequest post(URI login, String viewState, String user, String password, String next) {
        String form = "login=login&login%3Anext=" + enc(next) + "&login%3Ausername=" + enc(user) + "&login%3Apassword=" + enc(password)
                + "&login%3Asubmit=Log+in&jakarta.faces.ViewState=" + enc(viewState);
        return HttpRequest.newBuilder(login).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
