package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code cyclium.security.identity=oidc} against a real OpenID Connect provider: Keycloak (its
 * server distribution from Maven Central, dev mode) with a realm this test imports — alice has the
 * realm role cyclium-admin, bob cyclium-viewer, carol neither; a confidential client whose
 * {@code groups} claim carries the realm roles. A Payara Micro node in oidc mode sends a browser
 * without a session to Keycloak's login page; the test fills in Keycloak's own form, follows the
 * authorization-code flow back (the node exchanges the code with the client secret and checks the
 * ID token) and lands on the overview, logged in. The roles come from the provider: bob reads the
 * console but his forged action is refused and audited as refused, alice's is done and audited
 * under her name, carol gets 403. The API does not take the browser's session (401); it keeps HTTP
 * Basic with the built-in accounts.
 */
class OidcLoginIT {

    @Test
    void console_users_log_in_at_keycloak_and_their_realm_roles_decide_what_they_may_do() throws Exception {
        String alicePassword = "alice-" + UUID.randomUUID();
        String bobPassword = "bob-" + UUID.randomUUID();
        String carolPassword = "carol-" + UUID.randomUUID();
        String clientSecret = "secret-" + UUID.randomUUID();
        String realm = KeycloakServer.resource("/oidc/cyclium-realm.json")
                .replace("@ALICE_PASSWORD@", alicePassword).replace("@BOB_PASSWORD@", bobPassword)
                .replace("@CAROL_PASSWORD@", carolPassword).replace("@CLIENT_SECRET@", clientSecret);
        Path runDir = Path.of("target/cluster/oidc-" + UUID.randomUUID());
        // Keycloak boots while the node does: the node asks the provider nothing before the first login
        try (KeycloakServer keycloak = KeycloakServer.start("cyclium", realm, runDir);
             ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                     .war(ClusterHarness.productWarWith("cyclium-oidc-it.war"))
                     .env("CYCLIUM_DEMO_ENABLED", "true")
                     .env("CYCLIUM_SECURITY_IDENTITY", "oidc")
                     .env("CYCLIUM_SECURITY_OIDC_ISSUER", keycloak.issuer())
                     .env("CYCLIUM_SECURITY_OIDC_CLIENT_ID", "cyclium-console")
                     .env("CYCLIUM_SECURITY_OIDC_CLIENT_SECRET", clientSecret)
                     .env("CYCLIUM_SECURITY_OIDC_CLOCK_SKEW", "PT1S")
                     // the shipped default: bad bearer tokens are slowed down like wrong passwords
                     .env("CYCLIUM_SECURITY_FAILED_LOGINS_BEFORE_DELAY", "3")
                     .node("node-a")
                     .start()) {
            keycloak.awaitReady();
            ClusterNode node = cluster.node("node-a");
            String console = "http://127.0.0.1:" + node.port() + "/cyclium/";

            ProviderLoginBrowser bob = new ProviderLoginBrowser();
            HttpResponse<String> toProvider = bob.get(console + "actors.xhtml");
            assertThat(toProvider.statusCode()).as("a page without a session goes to the provider: " + toProvider.headers().map()
                    + " " + toProvider.body()).isEqualTo(302);
            String authorize = toProvider.headers().firstValue("Location").orElseThrow();
            assertThat(authorize).startsWith(keycloak.issuer() + "/protocol/openid-connect/auth?")
                    .contains("client_id=cyclium-console").contains("response_type=code").contains("state=");
            HttpResponse<String> landed = bob.logInAtProvider(authorize, "bob", bobPassword);
            assertThat(landed.uri().getPath()).as("the flow ends on the page first asked for").isEqualTo("/cyclium/actors.xhtml");
            assertThat(landed.statusCode()).isEqualTo(200);
            HttpResponse<String> actorsAsBob = bob.get(console + "actors.xhtml");
            assertThat(actorsAsBob.statusCode()).as("the session holds the login").isEqualTo(200);
            assertThat(actorsAsBob.body()).contains("id=\"session:user\">bob<").contains("id=\"session:role\">cyclium-viewer<")
                    .as("a viewer sees no switch").doesNotContain(":triggerOnly\"");

            // bob's session replays what an admin's click on the switch would send: refused, and audited as refused
            HttpResponse<String> forged = bob.facesAction(actorsAsBob, actorRowButton(actorsAsBob.body(), "resource_monitor"));
            assertThat(forged.statusCode()).isEqualTo(200);
            assertThat(node.get("/mode").jsonObject().getJsonObject("overrides")).isEmpty();
            assertThat(node.get("/audit?user=bob&action=actor.mode").jsonArray().getValuesAs(JsonObject.class))
                    .singleElement().satisfies(o -> {
                        assertThat(o.getString("outcome")).isEqualTo("refused");
                        assertThat(o.getString("reason")).isEqualTo("needs the role cyclium-admin");
                    });
            // the browser's session is no credential for the API, whoever made it
            assertThat(bob.put(node.api() + "/mode", "{\"mode\":\"disabled\"}").statusCode()).isEqualTo(401);

            ProviderLoginBrowser alice = new ProviderLoginBrowser();
            alice.logInAtProvider(alice.get(console + "actors.xhtml").headers().firstValue("Location").orElseThrow(), "alice", alicePassword);
            HttpResponse<String> actorsAsAlice = alice.get(console + "actors.xhtml");
            assertThat(actorsAsAlice.body()).contains("id=\"session:role\">cyclium-admin<").contains(":triggerOnly\"");
            HttpResponse<String> switched = alice.facesAction(actorsAsAlice, actorRowButton(actorsAsAlice.body(), "resource_monitor"));
            assertThat(switched.statusCode()).isEqualTo(200);
            assertThat(node.get("/mode").jsonObject().getJsonObject("overrides").getString("resource_monitor")).isEqualTo("trigger_only");
            assertThat(node.get("/audit?user=alice&action=actor.mode").jsonArray().getValuesAs(JsonObject.class))
                    .singleElement().satisfies(o -> assertThat(o.getString("outcome")).isEqualTo("ok"));

            ProviderLoginBrowser carol = new ProviderLoginBrowser();
            HttpResponse<String> asCarol = carol.logInAtProvider(
                    carol.get(console + "index.xhtml").headers().firstValue("Location").orElseThrow(), "carol", carolPassword);
            assertThat(asCarol.statusCode()).as("a provider user in neither group").isEqualTo(403);

            // a pasted link with a query (its "state" is the page's, not the provider's) opens after the provider's login
            ProviderLoginBrowser bobLater = new ProviderLoginBrowser();
            String link = console + "episodes.xhtml?status=failed&state=kept";
            HttpResponse<String> atProvider = bobLater.follow(bobLater.get(link));
            assertThat(atProvider.uri().toString()).startsWith(keycloak.issuer() + "/protocol/openid-connect/auth?");
            HttpResponse<String> opened = bobLater.follow(bobLater.submitLogin(atProvider, "bob", bobPassword));
            assertThat(opened.uri().toString()).as("after " + bobLater.hops).isEqualTo(link);
            assertThat(opened.statusCode()).isEqualTo(200);
            assertThat(opened.body()).contains("id=\"session:user\">bob<");
            assertThat(bobLater.get(console + "index.xhtml").uri().getPath()).as("only once: the overview stays the overview")
                    .isEqualTo("/cyclium/index.xhtml");
            aLinkOpensAfterTheProvidersLoginInChromium(link, bobPassword);

            ProviderLoginBrowser mallory = new ProviderLoginBrowser();
            HttpResponse<String> wrong = mallory.submitLogin(mallory.get(
                    mallory.get(console + "index.xhtml").headers().firstValue("Location").orElseThrow()), "bob", "not-" + bobPassword);
            assertThat(wrong.statusCode()).as("Keycloak shows its form again").isEqualTo(200);
            assertThat(wrong.body()).contains("Invalid username or password");
            assertThat(mallory.get(console + "index.xhtml").statusCode()).as("still no session at the node").isEqualTo(302);

            theApiTakesTheProvidersAccessTokens(keycloak, node, clientSecret, alicePassword, bobPassword);
        }
    }

    /**
     * The same in a real browser: headless Chromium through the whole chain (node, Keycloak's form,
     * the code flow back, the noted page), with cookies as Chromium keeps them (the note's
     * {@code SameSite=Lax} cookie must come back on the provider's redirect).
     */
    private static void aLinkOpensAfterTheProvidersLoginInChromium(String link, String bobPassword) throws Exception {
        org.openqa.selenium.chrome.ChromeDriver chrome = HeadlessChromium.start(Path.of("target", "oidc-chromium"), "oidc");
        try {
            chrome.get(link);
            awaitIn(chrome, "Keycloak's login form", d -> !d.findElements(org.openqa.selenium.By.id("kc-form-login")).isEmpty());
            chrome.findElement(org.openqa.selenium.By.id("username")).sendKeys("bob");
            chrome.findElement(org.openqa.selenium.By.id("password")).sendKeys(bobPassword);
            chrome.findElement(org.openqa.selenium.By.id("password")).submit();
            awaitIn(chrome, "back on " + link, d -> link.equals(d.getCurrentUrl()));
            assertThat(chrome.findElement(org.openqa.selenium.By.id("session:user")).getText()).isEqualTo("bob");
        } finally {
            chrome.quit();
        }
    }

    private static void awaitIn(org.openqa.selenium.WebDriver browser, String what,
            java.util.function.Function<org.openqa.selenium.WebDriver, Boolean> done) {
        try {
            new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(60)).until(done::apply);
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("Chromium: not " + what + " within 60 s; it shows " + browser.getCurrentUrl(), e);
        }
    }

    /**
     * {@code Authorization: Bearer} with Keycloak's access tokens (password grant): the roles come
     * from the token's groups, the audit trail names the provider's user; a changed token, one for
     * another client, an expired one and one signed by another key are each a 401 naming why, and
     * bad tokens are slowed down like wrong passwords.
     */
    private static void theApiTakesTheProvidersAccessTokens(KeycloakServer keycloak, ClusterNode node, String clientSecret,
            String alicePassword, String bobPassword) throws Exception {
        String asBob = keycloak.accessToken("cyclium-console", clientSecret, "bob", bobPassword);
        String asAlice = keycloak.accessToken("cyclium-console", clientSecret, "alice", alicePassword);
        HttpResponse<String> bobReads = api(node, "GET", "/episodes", asBob, null);
        assertThat(bobReads.statusCode()).as(bobReads.body()).isEqualTo(200);
        assertThat(bobReads.headers().firstValue("Set-Cookie")).as("no session for a token").isEmpty();
        HttpResponse<String> bobSwitches = api(node, "PUT", "/mode", asBob, "{\"mode\": \"full\"}");
        assertThat(bobSwitches.statusCode()).as(bobSwitches.body()).isEqualTo(403);
        assertThat(bobSwitches.body()).contains("cyclium-admin");
        assertThat(node.get("/audit?user=bob&action=node.mode").jsonArray().getValuesAs(JsonObject.class))
                .as("the viewer's refused switch is in the trail").singleElement().satisfies(o -> {
                    assertThat(o.getString("outcome")).isEqualTo("refused");
                    assertThat(o.getString("reason")).isEqualTo("needs the role cyclium-admin");
                });
        HttpResponse<String> aliceSwitches = api(node, "PUT", "/mode", asAlice, "{\"mode\": \"full\"}");
        assertThat(aliceSwitches.statusCode()).as(aliceSwitches.body()).isEqualTo(200);
        assertThat(node.get("/audit?user=alice&action=node.mode").jsonArray().getValuesAs(JsonObject.class))
                .singleElement().satisfies(o -> assertThat(o.getString("outcome")).isEqualTo("ok"));

        // another client's token that names this one as its audience is good — until it expires (2 s, skew 1 s)
        String shortLived = keycloak.accessToken("cyclium-short-lived", null, "alice", alicePassword);
        assertThat(api(node, "GET", "/episodes", shortLived, null).statusCode()).isEqualTo(200);
        String otherClient = keycloak.accessToken("other-app", null, "alice", alicePassword);
        String[] parts = asBob.split("\\.");
        String promoted = parts[0] + "." + b64(new String(java.util.Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("cyclium-viewer", "cyclium-admin").getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        String foreign = signedByAnotherKey(keycloak.issuer());
        Thread.sleep(3_500);

        assertRefused(node, promoted, "signature does not verify");
        assertRefused(node, otherClient, "for another client");
        assertRefused(node, shortLived, "expired at");
        HttpResponse<String> slowed = api(node, "GET", "/episodes", foreign, null);
        assertThat(slowed.statusCode()).as("three bad tokens from this address: wait " + slowed.body()).isEqualTo(429);
        assertThat(slowed.headers().firstValue("Retry-After")).hasValue("1");
        Thread.sleep(1_100);
        assertRefused(node, foreign, "key the provider does not publish");
        Thread.sleep(2_100);
        assertThat(api(node, "GET", "/episodes", asBob, null).statusCode()).as("a good token after the wait").isEqualTo(200);
    }

    private static void assertRefused(ClusterNode node, String token, String why) throws Exception {
        HttpResponse<String> r = api(node, "PUT", "/mode", token, "{\"mode\": \"full\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        assertThat(r.body()).contains(why);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(h ->
                assertThat(h).startsWith("Bearer realm=\"cyclium\", error=\"invalid_token\""));
    }

    /** A token with the realm's issuer and claims, signed by a key Keycloak never had. */
    private static String signedByAnotherKey(String issuer) throws Exception {
        java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        java.security.KeyPair key = g.generateKeyPair();
        long now = System.currentTimeMillis() / 1000;
        String input = b64("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"not-keycloaks\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64(("{\"iss\":\"" + issuer + "\",\"azp\":\"cyclium-console\",\"preferred_username\":\"alice\",\"exp\":"
                        + (now + 300) + ",\"groups\":[\"cyclium-admin\"]}").getBytes(StandardCharsets.UTF_8));
        java.security.Signature s = java.security.Signature.getInstance("SHA256withRSA");
        s.initSign(key.getPrivate());
        s.update(input.getBytes(StandardCharsets.US_ASCII));
        return input + "." + b64(s.sign());
    }

    private static String b64(byte[] b) {
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static HttpResponse<String> api(ClusterNode node, String method, String path, String token, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(node.api() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token);
        if (json == null) {
            b.GET();
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The client id of the "trigger_only" switch in the actors table's row of {@code actor}. */
    private static String actorRowButton(String page, String actor) {
        Matcher m = Pattern.compile("id=\"actorsForm:actors:(\\d+):actorId\">" + actor + "<").matcher(page);
        assertThat(m.find()).as("a row for " + actor).isTrue();
        return "actorsForm:actors:" + m.group(1) + ":triggerOnly";
    }
}
