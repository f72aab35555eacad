package io.cyclium.cluster.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.ClusterHarness;
import io.cyclium.cluster.ClusterNode;
import io.cyclium.cluster.HarnessDatabase;
import io.cyclium.cluster.HttpReply;
import io.cyclium.cluster.actors.ClusterActor;
import jakarta.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (Debian's Chromium, headless) against one Payara Micro node with
 * the demo actors on PostgreSQL: log in, read, approve, switch modes, and what a viewer may not do.
 * Screenshots land in {@code target/console-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String VIEWER_PASSWORD = "viewer-" + UUID.randomUUID();
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    /** Chromium's profile of each test, under target/ (not /tmp, where every run left fourteen). */
    private static final Path PROFILES = Path.of("target", "console-chromium");
    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");

    ClusterHarness cluster;
    ClusterNode node;
    WebDriver browser;
    String testName;

    @BeforeAll
    void start() throws IOException {
        cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .war(ClusterHarness.productWarWith("cyclium-console-it.war", ClusterActor.class))
                .env("CYCLIUM_DEMO_ENABLED", "true")
                .env("CYCLIUM_VIEWER_PASSWORD", VIEWER_PASSWORD)
                .node("console-1")
                .start();
        node = cluster.node("console-1");
        // where the cluster test actor's output adapter delivers (as in ClusterFailoverIT)
        try (java.sql.Connection c = cluster.database().connect()) {
            io.cyclium.cluster.actors.DeliveryLog.createTable(c);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void openBrowser(TestInfo info) throws IOException {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        ChromeDriver chrome = io.cyclium.cluster.HeadlessChromium.start(PROFILES, testName);
        // every page this tab opens records what its Content-Security-Policy blocked (closeBrowser reads it)
        chrome.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", java.util.Map.of("source", CSP_RECORDER));
        browser = chrome;
    }

    /** Keeps each CSP violation in the origin's sessionStorage, so it survives the page that caused it. */
    private static final String CSP_RECORDER = "document.addEventListener('securitypolicyviolation', function (e) {"
            + " try { var all = JSON.parse(sessionStorage.getItem('cycliumCsp') || '[]');"
            + " all.push(e.effectiveDirective + ' blocked ' + e.blockedURI + ' in ' + e.documentURI + ' at ' + e.sourceFile + ':' + e.lineNumber);"
            + " sessionStorage.setItem('cycliumCsp', JSON.stringify(all)); } catch (ignored) {} });";

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            shot("last");
            try {
                assertNoContentSecurityPolicyViolations();
            } finally {
                browser.quit();
            }
        }
    }

    /** The console under its own policy: nothing it needs (scripts, styles, the websocket, charts) was blocked. */
    private void assertNoContentSecurityPolicyViolations() {
        if (!browser.getCurrentUrl().startsWith(base())) {
            browser.get(base() + "login.xhtml"); // back to the console's origin, whose sessionStorage holds the record
        }
        Object recorded = ((JavascriptExecutor) browser).executeScript("return sessionStorage.getItem('cycliumCsp') || '[]'");
        assertThat(String.valueOf(recorded)).as("Content-Security-Policy violations on the console's pages").isEqualTo("[]");
    }

    // ---- scenarios ----------------------------------------------------------------------

    @Test
    void the_dashboard_shows_the_node_and_its_episodes_and_an_episode_shows_its_steps() {
        logIn("admin", adminPassword());
        await(d -> d.findElement(By.id("dashboard:nodes")).getText().contains("console-1"));
        assertThat(browser.findElement(By.id("dashboard:nodes")).getText()).contains("Running").contains("Queued");
        await(d -> d.findElement(By.id("dashboard:episodes")).getText().contains("resource_monitor"));
        assertThat(text("session:user")).isEqualTo("admin");
        shot("dashboard");

        browser.findElement(By.id("navEpisodes")).click();
        await(d -> d.findElement(By.id("episodesForm:list")).getText().contains("resource_monitor"));
        shot("episodes");
        browser.findElement(By.xpath("//tbody[@id='episodesForm:list_data']/tr[contains(., 'resource_monitor')][1]//a[text()='open']")).click();
        await(d -> d.findElement(By.id("episode:steps")).getText().contains("observation"));
        assertThat(text("episode:actor")).isEqualTo("resource_monitor");
        // the lease it ran under: this node, settled once the episode ended (or held while it runs)
        await(d -> !d.findElements(By.id("episode:claimOwner")).isEmpty());
        assertThat(text("episode:claimOwner")).isEqualTo("console-1");
        assertThat(text("episode:claimState")).isIn("claimed", "done");
        assertThat(Long.parseLong(text("episode:claimFence"))).isGreaterThanOrEqualTo(1);
        shot("episode");
    }

    @Test
    void the_dashboard_charts_episodes_per_minute_and_shows_this_nodes_claim_counts() {
        // the demo actors start an episode every 20 s: wait until the last hour has some
        long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (startedInTheLastHour() == 0 && System.nanoTime() < until) {
            pause();
        }
        assertThat(startedInTheLastHour()).as("episodes started in the last hour (API)").isPositive();
        logIn("admin", adminPassword());
        By canvas = By.cssSelector("[id='dashboard:throughput'] canvas");
        await(d -> !d.findElements(canvas).isEmpty());
        await(d -> chartedStarts() > 0);
        assertThat(browser.findElement(canvas).getSize().getHeight()).isGreaterThan(100);
        assertThat(text("dashboard:claimsNode")).isEqualTo("console-1");
        assertThat(Long.parseLong(text("dashboard:acquired"))).as("claims this node acquired").isPositive();
        assertThat(text("dashboard:steals")).matches("[0-9]+");
        assertThat(text("dashboard:busy")).matches("[0-9]+");
        shot("dashboard");

        JsonObject hour = node.get("/stats/throughput?minutes=60").jsonObject();
        assertThat(hour.getJsonArray("minutes")).hasSize(60);
        assertThat(node.get("/stats/throughput?minutes=100000").jsonObject().getJsonArray("minutes")).hasSize(1440);
        HttpReply bad = node.get("/stats/throughput?minutes=soon");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.jsonObject().getString("field")).isEqualTo("minutes");
        JsonObject claims = node.get("/stats/claims").jsonObject();
        assertThat(claims.getString("node")).isEqualTo("console-1");
        assertThat(claims.getJsonObject("outcomes").getJsonNumber("acquired").longValue()).isPositive();
    }

    @Test
    void the_claims_page_lists_the_live_claim_of_a_running_episode_for_a_viewer_too() throws Exception {
        HttpReply started = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_once\","
                + "\"payload\":{\"steps\":120,\"stepMs\":1000},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
        assertThat(started.status()).as(started.body()).isEqualTo(201);
        String id = started.jsonObject().getString("episodeId");
        String key = started.jsonObject().getString("dedupeKey");
        try {
            logIn("viewer", VIEWER_PASSWORD);
            browser.findElement(By.id("navClaims")).click();
            await(d -> !d.findElements(By.id("claimsForm:keyPrefix")).isEmpty());
            browser.findElement(By.id("claimsForm:keyPrefix")).sendKeys(key);
            click("claimsForm:apply");
            By row = By.xpath("//tbody[@id='claimsForm:list_data']/tr[contains(., '" + key + "')]");
            await(d -> !d.findElements(row).isEmpty() && d.findElement(row).getText().contains("claimed"));
            String text = browser.findElement(row).getText();
            assertThat(text).contains("console-1").contains("episode");
            long secondsLeft = Long.parseLong(browser.findElement(By.xpath("//tbody[@id='claimsForm:list_data']/tr[contains(., '"
                    + key + "')]/td[7]")).getText().trim());
            assertThat(secondsLeft).as("seconds left on the lease").isPositive();
            assertThat(browser.findElements(By.xpath("//form[@id='claimsForm']//button[contains(@id,'release') or contains(@id,'cancel')]")))
                    .isEmpty();
            shot("claims");

            HttpResponse<String> viewerRead = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(node.api() + "/claims?keyPrefix=" + enc(key)))
                    .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                            ("viewer:" + VIEWER_PASSWORD).getBytes(StandardCharsets.UTF_8))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(viewerRead.statusCode()).isEqualTo(200);
            JsonObject claim = new HttpReply(200, viewerRead.body()).jsonArray().getJsonObject(0);
            assertThat(claim.getString("key")).isEqualTo(key);
            assertThat(claim.getString("state")).isEqualTo("claimed");
            assertThat(claim.getString("owner")).isEqualTo("console-1");
            HttpReply badState = node.get("/claims?state=stolen");
            assertThat(badState.status()).isEqualTo(400);
            assertThat(badState.jsonObject().getString("field")).isEqualTo("state");
        } finally {
            node.post("/episodes/" + id + "/cancel", "");
        }
    }

    @Test
    void the_episodes_page_walks_to_older_pages_and_back_without_repeating_a_row() {
        String expectation = "long_once";
        for (int i = 0; i < 13; i++) {
            HttpReply r = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"" + expectation
                    + "\",\"payload\":{\"steps\":1,\"stepMs\":1},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
        }
        logIn("admin", adminPassword());
        browser.findElement(By.id("navEpisodes")).click();
        await(d -> !d.findElements(By.id("episodesForm:actor")).isEmpty());
        browser.findElement(By.id("episodesForm:actor")).sendKeys("cluster_actor");
        browser.findElement(By.id("episodesForm:expectation")).sendKeys(expectation);
        browser.findElement(By.cssSelector("[id='episodesForm:size'] .ui-selectonemenu-trigger")).click();
        By ten = By.xpath("//div[@id='episodesForm:size_panel']//li[@data-label='10']");
        await(d -> d.findElement(ten).isDisplayed());
        browser.findElement(ten).click();
        click("episodesForm:apply");
        await(d -> rowIds(d).size() == 10 && text("episodesForm:pageNumber").equals("1"));
        List<String> first = rowIds(browser);

        assertThat(browser.getCurrentUrl()).as("the filtered list has its own URL").contains("actor=cluster_actor")
                .contains("expectation=" + expectation).contains("size=10");

        click("episodesForm:older");
        await(d -> text("episodesForm:pageNumber").equals("2"));
        List<String> second = rowIds(browser);
        String secondPage = browser.getCurrentUrl();
        assertThat(secondPage).as("the older page is a URL of its own").contains("cursor=").contains("actor=cluster_actor");
        assertThat(second).isNotEmpty().doesNotContainAnyElementsOf(first);
        assertThat(first.size() + second.size()).isGreaterThanOrEqualTo(13);
        shot("episodes-page-2");

        click("episodesForm:newer");
        await(d -> text("episodesForm:pageNumber").equals("1"));
        assertThat(rowIds(browser)).isEqualTo(first);

        // pasted into a fresh page, the second page's URL shows the same rows
        browser.get(secondPage);
        await(d -> text("episodesForm:pageNumber").equals("2"));
        assertThat(rowIds(browser)).isEqualTo(second);
    }

    @Test
    void approving_a_blocked_demo_plan_lets_the_episode_finish() {
        String id = awaitBlockedAdvisor();
        logIn("admin", adminPassword());
        openEpisode(id);
        await(d -> !d.findElements(By.id("episode:plan")).isEmpty());
        assertThat(text("episode:plan")).contains("raise_limit");
        assertThat(text("episode:planHash")).isNotBlank();
        shot("approval");
        click("episode:approve");
        await(d -> d.findElement(By.cssSelector(".ui-confirmdialog-yes")).isDisplayed());
        browser.findElement(By.cssSelector(".ui-confirmdialog-yes")).click();
        await(d -> "done".equals(d.findElement(By.id("episode:status")).getText()));
        assertThat(node.get("/episodes/" + id).jsonObject().getJsonObject("episode").getString("status")).isEqualTo("done");
        assertThat(browser.findElement(By.id("episode:outputs")).getText()).contains("delivered");
    }

    @Test
    void an_actor_switched_to_trigger_only_and_back_from_the_actors_page() {
        logIn("admin", adminPassword());
        browser.findElement(By.id("navActors")).click();
        By triggerOnly = By.xpath("//tr[.//span[text()='resource_monitor']]//button[contains(@id,':triggerOnly')]");
        await(d -> !d.findElements(triggerOnly).isEmpty());
        browser.findElement(triggerOnly).click();
        await(d -> rowText(d, "resource_monitor").contains("trigger_only"));
        assertThat(node.get("/mode").jsonObject().getJsonObject("overrides").getString("resource_monitor")).isEqualTo("trigger_only");
        shot("actors");

        By follow = By.xpath("//tr[.//span[text()='resource_monitor']]//button[contains(@id,':follow')]");
        browser.findElement(follow).click();
        await(d -> !rowText(d, "resource_monitor").contains("override"));
        assertThat(node.get("/mode").jsonObject().getJsonObject("overrides").containsKey("resource_monitor")).isFalse();

        // both clicks are in the audit trail under the admin's name, and the Audit page links back to the actor
        assertThat(node.get("/audit?subject=resource_monitor&user=admin").jsonArray().getValuesAs(jakarta.json.JsonObject.class))
                .extracting(o -> o.getString("action") + " " + o.getString("outcome"))
                .containsExactly("actor.mode-clear ok", "actor.mode ok");
        browser.findElement(By.id("navAudit")).click();
        await(d -> !d.findElements(By.id("auditForm:list")).isEmpty());
        WebElement row = browser.findElement(By.xpath("//tr[.//span[text()='actor.mode'] and .//a[text()='resource_monitor']"
                + " and .//a[text()='admin']]"));
        assertThat(row.getText()).contains("admin").contains("resource_monitor").contains("trigger_only on console-1");
        assertThat(row.findElement(By.tagName("time")).getAttribute("title")).as("the exact instant on hover").isNotBlank();
        assertThat(row.findElement(By.xpath(".//a[contains(@id,':subject')]")).getAttribute("href"))
                .endsWith("actors.xhtml?actor=resource_monitor");
        shot("audit");
    }

    @Test
    void an_admin_pauses_an_actor_from_the_actors_page_sees_its_badge_and_resumes_it() {
        logIn("admin", adminPassword());
        browser.findElement(By.id("navActors")).click();
        By pause = By.xpath("//tr[.//span[text()='resource_monitor']]//button[contains(@id,':pause') and not(contains(@id,'Expectation'))]");
        By badge = By.xpath("//tr[.//span[text()='resource_monitor']]//span[contains(@id,':paused') and text()='paused']");
        await(d -> !d.findElements(pause).isEmpty());
        assertThat(browser.findElements(badge)).isEmpty();
        try {
            browser.findElement(pause).click();
            await(d -> !d.findElements(badge).isEmpty());
            assertThat(browser.findElement(pause).getText()).isEqualTo("Resume");
            assertThat(actorJson("resource_monitor").getBoolean("paused")).as("GET /actors says so too").isTrue();
            shot("actors-paused");

            browser.findElement(pause).click();
            await(d -> d.findElements(badge).isEmpty());
            assertThat(actorJson("resource_monitor").getBoolean("paused")).isFalse();
        } finally {
            if (actorJson("resource_monitor").getBoolean("paused")) {
                node.post("/actors/resource_monitor/resume", ""); // the other tests need it running
            }
        }
        assertThat(node.get("/audit?subject=resource_monitor&user=admin").jsonArray().getValuesAs(jakarta.json.JsonObject.class))
                .extracting(o -> o.getString("action") + " " + o.getString("outcome"))
                .startsWith("actor.resume ok", "actor.pause ok");
    }

    @Test
    void an_admin_previews_a_bulk_cancel_on_the_filtered_episodes_confirms_it_and_follows_its_per_item_results() {
        String from = java.time.Instant.now().minusSeconds(1).toString();
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HttpReply started = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_fail\","
                    + "\"payload\":{\"steps\":600,\"stepMs\":1000},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
            assertThat(started.status()).as(started.body()).isEqualTo(201);
            ids.add(started.jsonObject().getString("episodeId"));
        }
        logIn("admin", adminPassword());
        browser.get(base() + "episodes.xhtml");
        await(d -> !d.findElements(By.id("episodesForm:list")).isEmpty());
        assertThat(browser.findElements(By.id("episodesForm:bulk"))).as("no bulk action over every episode").isEmpty();

        browser.get(base() + "episodes.xhtml?actor=cluster_actor&expectation=long_fail&from=" + enc(from));
        click("episodesForm:bulkPreview");
        await(d -> !d.findElements(By.id("bulkCount")).isEmpty());
        assertThat(browser.findElement(By.id("bulkCount")).getText()).startsWith("3 episodes match");
        for (String id : ids) {
            assertThat(node.get("/episodes/" + id).jsonObject().getJsonObject("episode").getString("status"))
                    .as("the preview changes nothing").isEqualTo("running");
        }
        shot("bulk-preview");
        click("episodesForm:bulkStart");
        await(d -> d.findElement(By.cssSelector(".ui-confirmdialog-yes")).isDisplayed());
        assertThat(browser.findElement(By.xpath("//div[contains(@class,'ui-dialog') and .//button[contains(@class,'ui-confirmdialog-yes')]]")).getText())
                .contains("cancel exactly the 3 episodes previewed");
        browser.findElement(By.cssSelector(".ui-confirmdialog-yes")).click();

        await(d -> d.getCurrentUrl().contains("/bulk.xhtml?id="));
        await(d -> "done".equals(d.findElement(By.id("bulkForm:status")).getText()));
        assertThat(text("bulkForm:processed")).startsWith("3 of 3 episodes");
        assertThat(text("bulkForm:done")).isEqualTo("3 done");
        assertThat(text("bulkForm:skipped")).isEqualTo("0 skipped");
        assertThat(browser.findElement(By.id("bulkForm:items")).getText()).contains("cancel requested: it stops at its next step");
        assertRelativeTime(browser.findElement(By.cssSelector("#bulkForm\\:created")));
        shot("bulk-done");
        for (String id : ids) {
            awaitStatus(id, "canceled");
        }
        String actionId = browser.getCurrentUrl().replaceFirst(".*[?&]id=([^&]+).*", "$1");
        assertThat(node.get("/audit?action=bulk.start&subject=" + actionId).jsonArray().getValuesAs(JsonObject.class))
                .extracting(o -> o.getString("user") + " " + o.getString("outcome")).containsExactly("admin ok");
    }

    @Test
    void an_admin_cancels_a_running_bulk_action_from_its_page_and_the_rest_of_its_items_are_skipped() {
        // 5,000 finished episodes (rows, not runs): a bulk cancel records each as skipped at about 125 items/s,
        // so the action is still running while the browser logs in, opens it and cancels it
        String expectation = "bulk_fill_" + UUID.randomUUID().toString().substring(0, 8);
        int total = 5_000;
        try (java.sql.Connection c = cluster.database().connect();
                java.sql.PreparedStatement insert = c.prepareStatement("INSERT INTO cyclium_episodes (id, actor_id,"
                        + " expectation_id, trigger_type, status, started_at, finished_at, updated_at) SELECT"
                        + " md5(random()::text || g)::uuid::text, 'cluster_actor', ?, 'manual', 'done', now() - interval '1 hour',"
                        + " now() - interval '1 hour', now() - interval '1 hour' FROM generate_series(1, ?) g")) {
            insert.setString(1, expectation);
            insert.setInt(2, total);
            assertThat(insert.executeUpdate()).isEqualTo(total);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        HttpReply started = node.post("/bulk-actions", "{\"action\":\"cancel\",\"filter\":{\"actor\":\"cluster_actor\","
                + "\"expectation\":\"" + expectation + "\"},\"expectedCount\":" + total + "}");
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.jsonObject().getString("id");

        logIn("admin", adminPassword());
        browser.get(base() + "bulk.xhtml?id=" + enc(id));
        await(d -> !d.findElements(By.id("bulkForm:status")).isEmpty());
        assertThat(text("bulkForm:status")).as("still working through " + total + " items").isEqualTo("running");
        shot("bulk-running");
        click("bulkForm:cancel");
        await(d -> d.findElement(By.cssSelector(".ui-confirmdialog-yes")).isDisplayed());
        assertThat(browser.findElement(By.xpath("//div[contains(@class,'ui-dialog') and .//button[contains(@class,"
                + "'ui-confirmdialog-yes')]]")).getText()).contains("The items not yet processed are skipped");
        browser.findElement(By.cssSelector(".ui-confirmdialog-yes")).click();

        await(d -> "canceled".equals(d.findElement(By.id("bulkForm:status")).getText()));
        assertThat(browser.findElements(By.id("bulkForm:cancel"))).as("nothing left to cancel").isEmpty();
        shot("bulk-canceled");
        JsonObject action = node.get("/bulk-actions/" + id + "?result=skipped&limit=1").jsonObject().getJsonObject("action");
        assertThat(action.getString("status")).isEqualTo("canceled");
        assertThat(action.getInt("done") + action.getInt("skipped") + action.getInt("failed")).as(action.toString())
                .isEqualTo(total);
        // the items it had processed were skipped too (their episodes were already done), so count the
        // reason on the rows rather than in a page of items
        assertThat(node.get("/bulk-actions/" + id + "?result=skipped&limit=500").jsonObject().getJsonArray("items")
                .getValuesAs(JsonObject.class)).extracting(i -> i.getString("reason"))
                .allMatch(r -> r.equals("action canceled") || r.endsWith(" is already done"));
        long canceledItems = ((Number) cluster.database().query("SELECT COUNT(*) AS n FROM cyclium_bulk_items WHERE action_id = '"
                + id + "' AND reason = 'action canceled'").get(0).get("n")).longValue();
        assertThat(canceledItems).as("items left unprocessed by the cancel").isPositive();
        assertThat(node.get("/audit?action=bulk.cancel&subject=" + id).jsonArray().getValuesAs(JsonObject.class))
                .extracting(o -> o.getString("user") + " " + o.getString("outcome")).containsExactly("admin ok");
    }

    @Test
    void a_viewer_sees_a_paused_badge_on_actors_and_workflows_but_no_pause_button() {
        assertThat(node.post("/actors/resource_monitor/pause", "").status()).isEqualTo(200);
        String workflow = node.get("/workflows").jsonArray().getJsonObject(0).getString("id");
        assertThat(node.post("/workflows/" + workflow + "/pause", "").status()).isEqualTo(200);
        try {
            logIn("viewer", VIEWER_PASSWORD);
            browser.findElement(By.id("navActors")).click();
            await(d -> !d.findElements(By.id("actorsForm:actors")).isEmpty());
            assertThat(browser.findElements(By.xpath("//tr[.//span[text()='resource_monitor']]"
                    + "//span[contains(@id,':paused') and text()='paused']"))).hasSize(1);
            assertThat(browser.findElements(By.xpath("//button[contains(@id,':pause')]"))).isEmpty();
            browser.get(base() + "workflows.xhtml");
            await(d -> !d.findElements(By.id("workflowsForm:definitions")).isEmpty());
            assertThat(browser.findElements(By.xpath("//*[@id='workflowsForm:definitions']//td[1][starts-with(normalize-space(.),"
                    + " '" + workflow + " ')]//span[contains(@id,':paused') and text()='paused']"))).hasSize(1);
            assertThat(browser.findElements(By.xpath("//button[contains(@id,':pause')]"))).isEmpty();
            shot("viewer-workflows-paused");
        } finally {
            node.post("/actors/resource_monitor/resume", "");
            node.post("/workflows/" + workflow + "/resume", "");
        }
    }

    private jakarta.json.JsonObject actorJson(String id) {
        return node.get("/actors").jsonArray().getValuesAs(jakarta.json.JsonObject.class).stream()
                .filter(a -> a.getString("id").equals(id)).findFirst().orElseThrow();
    }

    @Test
    void a_viewer_sees_no_action_buttons_and_a_forged_action_changes_nothing() throws Exception {
        String id = awaitBlockedAdvisor();
        logIn("viewer", VIEWER_PASSWORD);
        assertThat(text("session:role")).isEqualTo("cyclium-viewer");
        openEpisode(id);
        await(d -> d.findElement(By.id("episode:status")).getText().equals("blocked"));
        assertThat(browser.findElements(By.id("episode:approve"))).isEmpty();
        assertThat(browser.findElements(By.id("episode:deny"))).isEmpty();
        assertThat(browser.findElements(By.id("episode:cancel"))).isEmpty();

        browser.findElement(By.id("navActors")).click();
        await(d -> !d.findElements(By.id("actorsForm:actors")).isEmpty());
        assertThat(browser.findElements(By.xpath("//button[contains(@id,':triggerOnly')]"))).isEmpty();
        assertThat(browser.findElements(By.id("actorsForm:start"))).isEmpty();
        assertThat(browser.findElements(By.id("actorsForm:sweep"))).isEmpty();
        shot("viewer-actors");

        // The viewer's own session replays what an admin's click on the switch would send.
        String viewState = browser.findElement(By.name("jakarta.faces.ViewState")).getAttribute("value");
        String source = "actorsForm:actors:0:triggerOnly";
        String form = "jakarta.faces.partial.ajax=true&jakarta.faces.source=" + enc(source)
                + "&jakarta.faces.partial.execute=" + enc(source) + "&jakarta.faces.partial.render=actorsForm"
                + "&" + enc(source) + "=" + enc(source) + "&actorsForm=actorsForm&jakarta.faces.ViewState=" + enc(viewState);
        HttpResponse<String> forged = withBrowserSession(HttpRequest.newBuilder(URI.create(browser.getCurrentUrl().replaceAll("\\?.*", "")))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Faces-Request", "partial/ajax")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
        assertThat(forged.statusCode()).isEqualTo(200);
        assertThat(node.get("/mode").jsonObject().getJsonObject("overrides")).isEmpty();
        // the forged click is in the audit trail as the viewer's refused action
        assertThat(node.get("/audit?user=viewer&action=actor.mode").jsonArray().getValuesAs(jakarta.json.JsonObject.class))
                .singleElement().satisfies(o -> {
                    assertThat(o.getString("outcome")).isEqualTo("refused");
                    assertThat(o.getString("reason")).isEqualTo("needs the role cyclium-admin");
                });

        HttpResponse<String> api = withBrowserSession(HttpRequest.newBuilder(URI.create(node.api() + "/mode"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString("{\"mode\":\"disabled\"}")));
        // the API does not take the console's session at all (issue 33): no credentials, whatever the role
        assertThat(api.statusCode()).isEqualTo(401);
        assertThat(node.get("/mode").jsonObject().getString("nodeMode")).isEqualTo("full");
        assertThat(node.get("/episodes/" + id).jsonObject().getJsonObject("episode").getString("status")).isEqualTo("blocked");
    }

    @Test
    void an_event_payload_holding_a_script_renders_as_text() {
        String script = "<script>window.cycliumXss=1</script>";
        HttpReply posted = node.post("/events", "{\"type\":\"resource.updated\",\"id\":\"xss-" + UUID.randomUUID()
                + "\",\"payload\":{\"resource\":\"" + script.replace("/", "\\/") + "\"}}");
        assertThat(posted.status()).as(posted.body()).isEqualTo(202);
        String dedupeKey = posted.jsonObject().getJsonArray("matched").getJsonObject(0).getString("dedupeKey");
        String id = awaitEpisode(dedupeKey);

        logIn("admin", adminPassword());
        openEpisode(id);
        WebElement trigger = browser.findElement(By.id("episode:triggerRef"));
        trigger.findElement(By.tagName("summary")).click();
        await(d -> trigger.findElement(By.tagName("pre")).getText().contains(script));
        assertThat(((JavascriptExecutor) browser).executeScript("return window.cycliumXss === undefined")).isEqualTo(true);
        assertThat(browser.getPageSource()).doesNotContain(script).contains("&lt;script&gt;window.cycliumXss=1&lt;/script&gt;");
    }

    @Test
    void a_pasted_episode_url_opens_after_the_login_with_relative_times_a_duration_and_json_to_open() {
        String id = startLongOnce(3, 150);
        awaitStatus(id, "done");
        String url = base() + "episode.xhtml?id=" + enc(id);
        browser.get(url);
        await(d -> d.getCurrentUrl().contains("/login.xhtml"));
        assertThat(browser.getCurrentUrl()).contains("next=");
        browser.findElement(By.id("login:username")).sendKeys("admin");
        browser.findElement(By.id("login:password")).sendKeys(adminPassword());
        browser.findElement(By.id("login:submit")).click();
        await(d -> d.getCurrentUrl().equals(url));
        await(d -> text("episode:status").equals("done"));
        assertThat(text("episode:episodeId")).isEqualTo(id);

        // "12 s ago", the exact UTC instant and the database clock on hover, the instant in place on a click
        WebElement started = browser.findElement(By.id("episode:startedAt"));
        assertThat(started.getText()).matches("just now|[0-9]+ (s|min) ago");
        assertThat(started.getAttribute("title")).matches("20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:.]{12} UTC · database clock.*");
        started.click();
        assertThat(browser.findElement(By.id("episode:startedAt")).getText()).matches("20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:.]{12} UTC");
        // three steps of 150 ms: the episode took at least 450 ms, and says so in words
        String took = text("episode:took");
        assertThat(took).matches("took [0-9.]+ (ms|s)");
        assertThat(millis(took.substring("took ".length()))).isBetween(450L, 60_000L);
        assertThat(browser.findElements(By.cssSelector("[id='episode:steps'] .dur")).stream().map(WebElement::getText)
                .filter(t -> t.matches("[0-9.]+ (ms|s)")).count()).as("step durations").isGreaterThanOrEqualTo(3);

        // the timeline: one row per journal entry, each with a bar on the axis
        int steps = browser.findElements(By.cssSelector("[id='episode:steps_data'] > tr")).size();
        assertThat(browser.findElements(By.cssSelector("[id='episode:timeline'] .tl-row .tl-bar"))).hasSizeGreaterThanOrEqualTo(steps);

        // a step's JSON detail: one line until opened, then indented, with a copy button
        WebElement json = browser.findElement(By.cssSelector("[id='episode:steps'] details.json"));
        WebElement pre = json.findElement(By.tagName("pre"));
        assertThat(pre.isDisplayed()).isFalse();
        json.findElement(By.tagName("summary")).click();
        await(d -> pre.isDisplayed());
        assertThat(pre.getText()).matches("(?s)\\{\\n\\s+\".*\\n\\}");
        json.findElement(By.cssSelector("button.copy")).click();
        await(d -> json.findElement(By.cssSelector("button.copy")).getText().equals("Copied"));
        shot("episode");
    }

    @Test
    void a_change_on_this_node_is_pushed_to_an_open_episode_page_without_a_reload() {
        logIn("admin", adminPassword());
        String id = startLongOnce(8, 1000);
        openEpisode(id);
        await(d -> "live".equals(d.findElement(By.id("liveState")).getText()));
        assertThat(text("episode:status")).isEqualTo("running");
        JavascriptExecutor js = (JavascriptExecutor) browser;
        js.executeScript("window.cycliumSamePage = 42;");
        long opened = System.nanoTime();
        await(d -> "done".equals(d.findElement(By.id("episode:status")).getText()));
        long seconds = Duration.ofNanos(System.nanoTime() - opened).toSeconds();
        assertThat(js.executeScript("return window.cycliumSamePage")).as("the page was not reloaded").isEqualTo(42L);
        assertThat(((Number) js.executeScript("return cyclium.live.pushes")).longValue()).as("messages pushed").isPositive();
        assertThat(js.executeScript("return cyclium.live.open")).as("the socket stayed open (no polling)").isEqualTo(true);
        // the safety refresh runs every 60 s; the episode's end arrived well before it could
        assertThat(seconds).isLessThan(45);
        assertThat(browser.findElement(By.id("episode:finishedAt")).getText()).matches("just now|[0-9]+ s ago");
        shot("pushed");
    }

    @Test
    void a_new_lease_and_each_journal_row_are_pushed_to_open_pages_while_the_episode_runs() {
        logIn("admin", adminPassword());
        JavascriptExecutor js = (JavascriptExecutor) browser;
        // the claims page, open before the episode exists: its lease appears without a reload
        browser.get(base() + "claims.xhtml");
        await(d -> "live".equals(d.findElement(By.id("liveState")).getText()));
        js.executeScript("window.cycliumSamePage = 'claims';");
        HttpReply started = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_once\","
                + "\"payload\":{\"steps\":8,\"stepMs\":1500},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
        assertThat(started.status()).as(started.body()).isEqualTo(201);
        String id = started.jsonObject().getString("episodeId");
        String key = started.jsonObject().getString("dedupeKey");
        By claimRow = By.xpath("//tbody[@id='claimsForm:list_data']/tr[contains(., '" + key + "')]");
        await(d -> !d.findElements(claimRow).isEmpty());
        assertThat(js.executeScript("return window.cycliumSamePage")).as("the claims page was not reloaded").isEqualTo("claims");
        assertThat(((Number) js.executeScript("return cyclium.live.kinds.claim || 0")).longValue()).as("claim messages").isPositive();
        shot("claim-pushed");

        // the episode's page: journal rows arrive one by one while it still runs, not only at its end
        openEpisode(id);
        await(d -> "live".equals(d.findElement(By.id("liveState")).getText()));
        js.executeScript("window.cycliumSamePage = 'episode';");
        By stepRows = By.cssSelector("[id='episode:steps_data'] > tr:not(.ui-datatable-empty-message)");
        int rowsAtOpen = browser.findElements(stepRows).size();
        await(d -> d.findElements(stepRows).size() >= rowsAtOpen + 2);
        assertThat(text("episode:status")).as("more rows shown while it runs").isEqualTo("running");
        assertThat(js.executeScript("return window.cycliumSamePage")).as("the episode page was not reloaded").isEqualTo("episode");
        assertThat(((Number) js.executeScript("return cyclium.live.kinds.step || 0")).longValue()).as("step messages").isPositive();
        assertThat(text("episode:claimOwner")).isEqualTo("console-1");
        shot("steps-pushed");
        // its end settles the lease: the page shows it done, pushed too
        await(d -> "done".equals(d.findElement(By.id("episode:status")).getText()));
        await(d -> "done".equals(d.findElement(By.id("episode:claimState")).getText()));
        assertThat(js.executeScript("return window.cycliumSamePage")).isEqualTo("episode");
        assertThat(js.executeScript("return cyclium.live.open")).as("the socket stayed open (no polling)").isEqualTo(true);
    }

    @Test
    void no_page_scrolls_sideways_at_1280_px() {
        String id = startLongOnce(2, 10);
        String instance = startFanout("sideways");
        awaitStatus(id, "done");
        awaitInstance(instance, "completed");
        logIn("admin", adminPassword());
        assertThat(((Number) ((JavascriptExecutor) browser).executeScript("return window.innerWidth")).intValue()).isLessThanOrEqualTo(1280);
        for (String page : List.of("index.xhtml", "episodes.xhtml", "episodes.xhtml?actor=cluster_actor&size=200",
                "episode.xhtml?id=" + enc(id), "findings.xhtml", "findings.xhtml?status=cleared", "actors.xhtml",
                "trigger-requests.xhtml", "workflows.xhtml", "workflow.xhtml?id=" + enc(instance), "claims.xhtml",
                "claims.xhtml?keyPrefix=nothing-starts-like-this", "audit.xhtml")) {
            browser.get(base() + page);
            await(d -> !d.findElements(By.id("thisNode")).isEmpty());
            assertNoSidewaysOverflow(page);
        }
        // every page with view parameters was built: none put its <f:metadata> where Faces cannot use it
        try (var lines = Files.lines(node.log())) {
            assertThat(lines.filter(l -> l.contains("JSF1103")).toList()).as("JSF1103 warnings in the node's log").isEmpty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        // the episode's dedupe key is shown whole, inside the window
        browser.get(base() + "episode.xhtml?id=" + enc(id));
        WebElement key = browser.findElement(By.id("episode:dedupeKey"));
        assertThat(key.getText()).isEqualTo(node.get("/episodes/" + id).jsonObject().getJsonObject("episode").getString("dedupeKey"));
        shot("episode-1280");
    }

    // ---- workflows --------------------------------------------------------------------

    @Test
    void the_workflows_list_counts_instances_per_status_and_an_instance_page_draws_its_dag_with_relative_times() {
        String id = startFanout("list");
        awaitInstance(id, "completed");
        logIn("admin", adminPassword());
        browser.findElement(By.id("navWorkflows")).click();
        await(d -> d.findElement(By.id("workflowsForm:definitions")).getText().contains("cluster_fanout"));

        // instances by status in words, one badge each: "3 completed", never the map's "{completed=3}" or "{}"
        WebElement fanout = definitionRow("cluster_fanout");
        assertThat(fanout.findElements(By.cssSelector(".counts .badge")).stream().map(WebElement::getText))
                .isNotEmpty().allMatch(t -> t.matches("[0-9]+ (pending|running|blocked|completed|failed|canceled)"))
                .anyMatch(t -> t.matches("[0-9]+ completed"));
        assertThat(fanout.findElement(By.cssSelector(".counts .badge.tone-ok")).getText()).endsWith("completed");
        assertThat(definitionRow("defaults_flow").findElement(By.className("counts")).getText()).isEqualTo("none yet");
        assertThat(browser.findElement(By.id("workflowsForm:definitions")).getText()).doesNotContain("{").doesNotContain("}");
        // the instance's row: started "12 s ago" with the instant on hover, took in words
        WebElement row = instanceRow(id);
        assertRelativeTime(row.findElement(By.cssSelector("time.rel")));
        assertThat(row.findElement(By.cssSelector(".dur")).getText()).matches("[0-9.]+ (ms|s|min)( [0-9]+ s)?");
        assertThat(headers("workflowsForm:instances")).contains("Started", "Took").noneMatch(h -> h.contains("UTC") || h.contains(" ms"));
        assertNoRawTimestamps("the workflows page");
        shot("workflows");

        row.findElement(By.linkText(id)).click();
        await(d -> "completed".equals(d.findElement(By.id("instance:status")).getText()));
        assertDagDrawn(List.of("start", "a", "b", "c", "join", "end"), 7);
        assertThat(dagStates()).allMatch(s -> s.equals("completed"));
        assertThat(browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='join'] rect")).getAttribute("fill"))
                .isEqualTo("#bbf7d0");
        assertThat(browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='join']")).getText()).contains("attempt 1/3");
        // "started 40 s ago, finished 38 s ago, took 2.1 s": the instants on hover, as on every other page
        assertRelativeTime(browser.findElement(By.id("instance:startedAt")));
        assertRelativeTime(browser.findElement(By.id("instance:finishedAt")));
        assertThat(text("instance:took")).matches("took [0-9.]+ (ms|s|min)( [0-9]+ s)?");
        assertThat(headers("instance:steps")).contains("Next retry", "Took").noneMatch(h -> h.contains("UTC") || h.contains(" ms"));
        assertThat(headers("instance:transitions")).contains("At").noneMatch(h -> h.contains("UTC"));
        assertThat(browser.findElements(By.cssSelector("[id='instance:transitions'] time.rel"))).hasSizeGreaterThanOrEqualTo(6);
        assertNoRawTimestamps("the instance page");
        shot("instance");
        // a box opens its step's episode
        browser.findElement(By.cssSelector("svg.workflow-dag a g.step[data-step='end']")).click();
        await(d -> !d.findElements(By.id("episode:status")).isEmpty());
        assertThat(text("episode:status")).isEqualTo("done");
    }

    @Test
    void a_step_waiting_for_its_retry_is_drawn_orange_and_its_next_attempt_is_said_as_in_so_many_seconds() {
        HttpReply r = node.post("/workflows/cluster_retry/instances", "{\"payload\": {\"subject\": \"retry-" + UUID.randomUUID() + "\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.jsonObject().getString("id");
        logIn("admin", adminPassword());
        browser.get(base() + "workflow.xhtml?id=" + enc(id));
        // the only step fails its first attempt; its second is due 20 s later
        By flaky = By.cssSelector("svg.workflow-dag g.step[data-step='flaky']");
        await(d -> d.findElement(flaky).getText().contains("(retry)"));
        assertThat(browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='flaky'] rect")).getAttribute("fill"))
                .isEqualTo("#fed7aa");
        // the box says when, as the table does: "retry in 18 s", not a clock time
        assertThat(browser.findElements(By.cssSelector("svg.workflow-dag g.step[data-step='flaky'] text")).stream()
                .map(WebElement::getText)).anyMatch(t -> t.matches("retry (in [0-9]+ s|due just now|due [0-9]+ s ago)"))
                .noneMatch(t -> t.contains("UTC"));
        WebElement next = browser.findElement(By.cssSelector("[id='instance:steps'] time.rel"));
        assertThat(next.getText()).matches("in [0-9]+ s|just now");
        assertThat(next.getAttribute("title")).matches("20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:.]{12} UTC · database clock.*");
        assertThat(browser.findElement(By.cssSelector("[id='instance:steps'] .badge")).getText()).isEqualTo("failed");
        assertNoRawTimestamps("the instance page with a retry waiting");
        shot("retry-waiting");
        // the page polls while the instance is in flight: the retry's success arrives without a reload
        await(d -> "completed".equals(d.findElement(By.id("instance:status")).getText()));
        assertThat(dagStates()).containsExactly("completed");
        assertThat(browser.findElement(flaky).getText()).contains("attempt 2/3");
    }

    @Test
    void a_keyed_step_names_its_concurrency_key_in_the_dag_and_the_one_waiting_for_it_says_so() {
        String wf = "console_keyed_" + UUID.randomUUID().toString().substring(0, 8);
        HttpReply put = node.put("/workflows/" + wf, "{\"id\": \"" + wf + "\", \"subjectKey\": \"subject\", \"steps\": ["
                + "{\"id\": \"work\", \"actor\": \"cluster_actor\", \"expectation\": \"long_fail\","
                + " \"concurrencyKey\": \"$.tenant\", \"concurrencyLimit\": 1}]}");
        assertThat(put.status()).as(put.body()).isEqualTo(200);
        List<String> instances = new java.util.ArrayList<>();
        try {
            // each step runs ten minutes: one acme step runs, the other waits for the key
            for (int i = 1; i <= 2; i++) {
                HttpReply r = node.post("/workflows/" + wf + "/instances", "{\"payload\": {\"subject\": \"" + wf + "-" + i
                        + "\", \"tenant\": \"acme\", \"steps\": 600, \"stepMs\": 1000}}");
                assertThat(r.status()).as(r.body()).isEqualTo(201);
                instances.add(r.jsonObject().getString("id"));
            }
            // [running instance, waiting instance] once one step runs and the other's episode waits for the key
            List<String> roles = io.cyclium.it.Await.until(WAIT, "one acme step running, the other waiting for its key", () -> {
                String running = null;
                String waiting = null;
                for (String i : instances) {
                    JsonObject step = node.get("/workflow-instances/" + i).jsonObject().getJsonArray("steps").getJsonObject(0);
                    if ("running".equals(step.getString("state"))) {
                        running = i;
                    } else if ("queued".equals(step.getString("state")) && !step.isNull("queuedBecause")
                            && step.getString("queuedBecause", "").endsWith("at limit 1/1")) {
                        waiting = i;
                    }
                }
                return running != null && waiting != null ? List.of(running, waiting) : null;
            });
            String running = roles.get(0);
            String waiting = roles.get(1);
            logIn("admin", adminPassword());

            browser.get(base() + "workflow.xhtml?id=" + enc(running));
            By work = By.cssSelector("svg.workflow-dag g.step[data-step='work']");
            await(d -> d.findElement(work).getText().contains("key $.tenant, 1 at once"));
            assertThat(browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='work'] title"))
                    .getAttribute("textContent")).endsWith("concurrency key $.tenant, 1 at once per key");
            shot("keyed-running");

            browser.get(base() + "workflow.xhtml?id=" + enc(waiting));
            await(d -> d.findElement(work).getText().contains("waits for key $.tenant"));
            assertThat(browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='work'] title"))
                    .getAttribute("textContent")).contains("waits: step " + wf + "/work key acme at limit 1/1");
            assertThat(text("instance:steps")).contains("$.tenant (1 at once per key)");
            shot("keyed-waiting");
        } finally {
            for (String i : instances) {
                node.post("/workflow-instances/" + i + "/cancel", "");
            }
        }
    }

    /** The episode an event of type timers.sleep with this id stored (the sleeper expectation of the cluster actor). */
    private String sleeperEpisode(String eventId, String payload) {
        HttpReply r = node.post("/events", "{\"type\":\"timers.sleep\",\"id\":\"" + eventId + "\",\"payload\":" + payload + "}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String key = r.jsonObject().getJsonArray("matched").getJsonObject(0).getString("dedupeKey");
        return io.cyclium.it.Await.until(WAIT, "the sleeper's episode", () -> cluster.database()
                .query("SELECT id FROM cyclium_episodes WHERE dedupe_key = ?", key).stream()
                .map(row -> (String) row.get("id")).findFirst().orElse(null));
    }

    @Test
    void an_episode_page_says_how_long_an_episode_sleeps_or_waits_and_an_admin_signals_it_from_there() {
        String sleeping = sleeperEpisode("console-sleep-" + UUID.randomUUID(), "{\"sleepMs\": 600000}");
        String waiting = sleeperEpisode("console-wait-" + UUID.randomUUID(),
                "{\"sleepMs\": 1, \"signal\": \"go\", \"timeoutMs\": 600000}");
        logIn("admin", adminPassword());

        openEpisode(sleeping);
        await(d -> !d.findElements(By.id("waiting")).isEmpty());
        assertThat(text("waiting")).startsWith("sleeping until ").containsPattern("\\(in (9|10) min");

        openEpisode(waiting);
        await(d -> {
            d.navigate().refresh();
            return !d.findElements(By.id("waiting")).isEmpty() && d.findElement(By.id("waiting")).getText().contains("signal");
        });
        assertThat(text("waiting")).startsWith("waiting for signal go, times out in ").containsPattern("in (9|10) min");
        shot("waiting-for-signal");
        assertThat(browser.findElement(By.id("episode:signalName")).getAttribute("value")).as("the form names the wait")
                .isEqualTo("go");
        browser.findElement(By.id("episode:signalPayload")).sendKeys("{\"from\": \"console\"}");
        click("episode:sendSignal");
        await(d -> "done".equals(d.findElement(By.id("episode:status")).getText()));
        assertThat(node.get("/episodes/" + waiting).jsonObject().getJsonObject("episode").getString("summary"))
                .isEqualTo("waited: {\"from\":\"console\"}");
        assertThat(cluster.database().query("SELECT action, outcome FROM cyclium_audit WHERE subject_id = ?", waiting))
                .extracting(row -> row.get("action") + " " + row.get("outcome")).contains("episode.signal ok");
    }

    @Test
    void an_admin_starts_a_workflow_from_the_console_and_watches_its_instance_run_to_completed() {
        logIn("admin", adminPassword());
        browser.get(base() + "workflows.xhtml");
        await(d -> !d.findElements(By.id("workflowsForm:start")).isEmpty());
        click("workflowsForm:startWorkflow");
        clickXpath("//ul[@id='workflowsForm:startWorkflow_items']/li[@data-label='cluster_fanout']");
        await(d -> d.findElement(By.id("workflowsForm:startWorkflow_label")).getText().equals("cluster_fanout"));
        String subject = "console-" + UUID.randomUUID();
        WebElement payload = browser.findElement(By.id("workflowsForm:payload"));
        payload.clear();
        payload.sendKeys("{\"subject\": \"" + subject + "\", \"steps\": 2, \"stepMs\": 300}");
        click("workflowsForm:start");
        // the start answers with the instance's own page, which follows it live to its end
        await(d -> d.getCurrentUrl().contains("/workflow.xhtml?id="));
        String id = browser.getCurrentUrl().replaceAll(".*[?&]id=([^&]+).*", "$1");
        assertThat(node.get("/workflow-instances/" + id).jsonObject().getJsonObject("instance").getString("subject"))
                .isEqualTo(subject);
        assertDagDrawn(List.of("start", "a", "b", "c", "join", "end"), 7);
        await(d -> "completed".equals(d.findElement(By.id("instance:status")).getText()));
        await(d -> dagStates().stream().allMatch("completed"::equals));
        shot("started-in-console");
        // and the list shows it, completed
        browser.findElement(By.id("navWorkflows")).click();
        await(d -> instanceRow(id).findElement(By.cssSelector(".badge")).getText().equals("completed"));
    }

    @Test
    void a_workflow_started_with_the_command_line_client_shows_in_the_console() throws Exception {
        String subject = "cli-" + UUID.randomUUID();
        File script = new File(System.getProperty("cyclium.config.dir", "../server-config"), "bin/cyclium");
        ProcessBuilder cli = new ProcessBuilder(script.getAbsolutePath(), "workflow", "start", "cluster_fanout", "--payload",
                "{\"subject\": \"" + subject + "\", \"steps\": 2, \"stepMs\": 300}");
        cli.environment().put("CYCLIUM_URL", base().replaceAll("/$", ""));
        cli.environment().put("CYCLIUM_USER", "admin");
        cli.environment().put("CYCLIUM_PASSWORD", adminPassword());
        Process p = cli.redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("the client finished").isTrue();
        assertThat(p.exitValue()).as("the client's exit status; it said: " + out).isZero();
        String id = jakarta.json.Json.createReader(new java.io.StringReader(out)).readObject().getString("id");

        logIn("viewer", VIEWER_PASSWORD);
        browser.get(base() + "workflows.xhtml");
        await(d -> !d.findElements(By.linkText(id)).isEmpty());
        instanceRow(id).findElement(By.linkText(id)).click();
        await(d -> "completed".equals(d.findElement(By.id("instance:status")).getText()));
        assertThat(browser.findElement(By.cssSelector("[id='instance'] .note")).getText()).contains(subject);
        assertDagDrawn(List.of("start", "a", "b", "c", "join", "end"), 7);
        assertThat(dagStates()).allMatch("completed"::equals);
        assertThat(browser.findElements(By.id("instance:cancel"))).as("a viewer gets no actions").isEmpty();
        shot("started-from-cli");
    }

    @Test
    void the_top_bar_is_one_line_at_1280_by_800_on_every_page() {
        String id = startFanout("topbar");
        awaitInstance(id, "completed");
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 800));
        logIn("admin", adminPassword());
        for (String page : List.of("index.xhtml", "episodes.xhtml", "workflows.xhtml", "workflow.xhtml?id=" + enc(id),
                "trigger-requests.xhtml", "audit.xhtml")) {
            browser.get(base() + page);
            await(d -> !d.findElements(By.id("thisNode")).isEmpty());
            @SuppressWarnings("unchecked")
            java.util.Map<String, Object> m = (java.util.Map<String, Object>) ((JavascriptExecutor) browser).executeScript(
                    "var bar = document.querySelector('header.topbar'), nav = bar.querySelector('nav'), link = nav.querySelector('a');"
                            + "var tops = Array.prototype.map.call(bar.children, function (c) { return c.getBoundingClientRect().top; });"
                            + "var bottoms = Array.prototype.map.call(bar.children, function (c) { return c.getBoundingClientRect().bottom; });"
                            + "var cs = getComputedStyle(bar);"
                            + "return {nav: nav.getBoundingClientRect().height, link: link.getBoundingClientRect().height,"
                            + " bar: bar.getBoundingClientRect().height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom),"
                            + " lowestTop: Math.max.apply(null, tops), highestBottom: Math.min.apply(null, bottoms),"
                            + " width: document.documentElement.clientWidth};");
            double link = ((Number) m.get("link")).doubleValue();
            assertThat(((Number) m.get("nav")).doubleValue()).as(page + ": the sections' height at width " + m.get("width"))
                    .isCloseTo(link, org.assertj.core.data.Offset.offset(1.0));
            assertThat(((Number) m.get("bar")).doubleValue()).as(page + ": the top bar's inner height, one line is " + link)
                    .isLessThan(link * 1.5);
            assertThat(((Number) m.get("lowestTop")).doubleValue()).as(page + ": brand, sections and who share one line")
                    .isLessThan(((Number) m.get("highestBottom")).doubleValue());
        }
        shot("topbar-1280");
        // the bar's last item still works: logging out leads back to the login page
        click("session:logout");
        await(d -> d.getCurrentUrl().contains("/login.xhtml"));
        browser.get(base() + "workflows.xhtml");
        await(d -> d.getCurrentUrl().contains("/login.xhtml"));
    }

    @Test
    void an_action_replayed_from_another_sessions_page_is_refused() throws Exception {
        logIn("admin", adminPassword());
        browser.get(base() + "actors.xhtml");
        await(d -> !d.findElements(By.id("actorsForm:actors")).isEmpty());
        String viewState = browser.findElement(By.name("jakarta.faces.ViewState")).getAttribute("value");
        int row = actorRow("resource_monitor");
        String source = "actorsForm:actors:" + row + ":triggerOnly";
        String form = "jakarta.faces.partial.ajax=true&jakarta.faces.source=" + enc(source)
                + "&jakarta.faces.partial.execute=" + enc(source) + "&jakarta.faces.partial.render=actorsForm"
                + "&" + enc(source) + "=" + enc(source) + "&actorsForm=actorsForm&jakarta.faces.ViewState=" + enc(viewState);
        URI actors = URI.create(base() + "actors.xhtml");

        // another admin session (its own login, its own cookie) posts the first session's form
        String other = formLogin("admin", adminPassword());
        HttpResponse<String> replayed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(actors)
                .header("Content-Type", "application/x-www-form-urlencoded").header("Faces-Request", "partial/ajax")
                .header("Cookie", other).POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(replayed.body()).contains("ViewExpiredException");
        assertThat(node.get("/mode").jsonObject().getJsonObject("overrides")).as("after the replay").isEmpty();

        // no session at all: sent to the login page, nothing changes
        HttpResponse<String> anonymous = HttpClient.newHttpClient().send(HttpRequest.newBuilder(actors)
                .header("Content-Type", "application/x-www-form-urlencoded").header("Faces-Request", "partial/ajax")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(302);
        assertThat(node.get("/mode").jsonObject().getJsonObject("overrides")).as("after the anonymous post").isEmpty();

        // the same request from the session that owns the page does act: the refusal above was the guard
        HttpResponse<String> own = withBrowserSession(HttpRequest.newBuilder(actors)
                .header("Content-Type", "application/x-www-form-urlencoded").header("Faces-Request", "partial/ajax")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
        assertThat(own.body()).doesNotContain("ViewExpiredException");
        try {
            assertThat(node.get("/mode").jsonObject().getJsonObject("overrides").getString("resource_monitor")).isEqualTo("trigger_only");
        } finally {
            node.delete("/mode/actors/resource_monitor");
        }
    }

    @Test
    void api_calls_with_basic_credentials_set_no_session_cookie() throws Exception {
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString(("admin:" + adminPassword()).getBytes(StandardCharsets.UTF_8));
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.api() + (i % 2 == 0 ? "/episodes?limit=5" : "/nodes")))
                    .header("Authorization", basic).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().allValues("Set-Cookie")).as("call " + i).isEmpty();
        }
        // the console's form login does keep a session
        assertThat(formLogin("admin", adminPassword())).contains("JSESSIONID");
    }

    @Test
    void a_page_on_another_origin_cannot_make_a_logged_in_browser_post_an_event_and_the_console_still_works() throws Exception {
        logIn("admin", adminPassword());
        String marker = "csrf-" + UUID.randomUUID();
        // text/plain sends "name=value": the name opens the JSON, the value closes it; the browser
        // adds the session cookie (another port of 127.0.0.1 is the same site, so SameSite lets it go)
        String opening = "{\"type\":\"resource.updated\",\"id\":\"" + marker + "\",\"payload\":{\"resource\":\"" + marker + "\",\"pad\":\"";
        String page = "<!DOCTYPE html><html><head><title>You won</title></head><body>"
                + "<form id='prize' method='post' enctype='text/plain' action='" + base() + "api/events'>"
                + "<input type='hidden' name='" + opening + "' value='\"}}'></form>"
                + "<script>document.getElementById('prize').submit();</script></body></html>";
        com.sun.net.httpserver.HttpServer otherSite = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        otherSite.createContext("/", exchange -> {
            byte[] body = page.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        otherSite.start();
        try {
            browser.get("http://127.0.0.1:" + otherSite.getAddress().getPort() + "/prize.html");
            // the form went: the tab now shows the API's answer to it
            await(d -> d.getCurrentUrl().startsWith(base() + "api/events"));
            await(d -> !d.findElements(By.tagName("body")).isEmpty() && d.findElement(By.tagName("body")).getText().contains("{"));
            String answer = browser.findElement(By.tagName("body")).getText();
            shot("cross-site-answer");
            assertThat(answer).as("the API's answer to the cross-site form").containsPattern("\"status\":\\s*40[13]")
                    .doesNotContain("matched");
        } finally {
            otherSite.stop(0);
        }
        // nothing was stored: no episode carries the event's id (an accepted event's episodes are committed before the 202)
        assertThat(cluster.database().query("SELECT id FROM cyclium_episodes WHERE trigger_ref LIKE ?", "%" + marker + "%"))
                .as("episodes started by the cross-site event").isEmpty();
        assertThat(node.get("/episodes?actor=resource_monitor&limit=500").body()).doesNotContain(marker);

        // the console in the same browser, same session, still works under its headers
        browser.get(base() + "index.xhtml");
        await(d -> d.findElement(By.id("dashboard:nodes")).getText().contains("console-1"));
        assertThat(text("session:user")).isEqualTo("admin");

        // the browser enforces the policy, and closeBrowser's record sees it: an image from elsewhere is blocked
        JavascriptExecutor console = (JavascriptExecutor) browser;
        console.executeScript("var i = document.createElement('img'); i.src = 'http://127.0.0.1:9/elsewhere.png'; document.body.appendChild(i);");
        await(d -> String.valueOf(console.executeScript("return sessionStorage.getItem('cycliumCsp') || ''")).contains("img-src"));
        console.executeScript("sessionStorage.removeItem('cycliumCsp')");
    }

    // ---- helpers ------------------------------------------------------------------------

    /** Starts the cluster test actor's long_once episode: {@code steps} steps of {@code stepMs} each. */
    private String startLongOnce(int steps, int stepMs) {
        HttpReply r = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_once\",\"payload\":{\"steps\":"
                + steps + ",\"stepMs\":" + stepMs + "},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.jsonObject().getString("episodeId");
    }

    private void awaitStatus(String id, String status) {
        awaitApiStatus("/episodes/" + id, "episode", status);
    }

    private void awaitInstance(String id, String status) {
        awaitApiStatus("/workflow-instances/" + id, "instance", status);
    }

    /** Polls the API until {@code path}'s {@code object} has this status. */
    private void awaitApiStatus(String path, String object, String status) {
        long until = System.nanoTime() + WAIT.toNanos();
        while (!status.equals(node.get(path).jsonObject().getJsonObject(object).getString("status"))) {
            if (System.nanoTime() > until) {
                throw new AssertionError(path + " not " + status + " within " + WAIT);
            }
            pause();
        }
    }

    /** Starts the cluster tests' six-step DAG (two 100 ms units per step) through the API; returns the instance id. */
    private String startFanout(String what) {
        HttpReply r = node.post("/workflows/cluster_fanout/instances", "{\"payload\": {\"subject\": \"" + what + "-"
                + UUID.randomUUID() + "\", \"steps\": 2, \"stepMs\": 100}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.jsonObject().getString("id");
    }

    private WebElement definitionRow(String workflow) {
        return browser.findElement(By.xpath("//tbody[@id='workflowsForm:definitions_data']/tr[td[1][normalize-space()='"
                + workflow + "']]"));
    }

    private WebElement instanceRow(String id) {
        return browser.findElement(By.xpath("//tbody[@id='workflowsForm:instances_data']/tr[.//a[text()='" + id + "']]"));
    }

    private List<String> headers(String table) {
        return browser.findElements(By.cssSelector("[id='" + table + "'] thead th")).stream().map(WebElement::getText)
                .map(String::strip).collect(Collectors.toList());
    }

    /** The DAG's picture has a box per step, named, and an arrow per dependency. */
    private void assertDagDrawn(List<String> steps, int arrows) {
        await(d -> d.findElements(By.cssSelector("svg.workflow-dag g.step")).size() == steps.size());
        assertThat(browser.findElements(By.cssSelector("svg.workflow-dag g.step")).stream().map(g -> g.getAttribute("data-step")))
                .containsExactlyInAnyOrderElementsOf(steps);
        for (String step : steps) {
            WebElement box = browser.findElement(By.cssSelector("svg.workflow-dag g.step[data-step='" + step + "']"));
            assertThat(box.findElement(By.tagName("rect")).getSize().getWidth()).as("the box of " + step).isGreaterThan(100);
            assertThat(box.getText()).as("the box of " + step).startsWith(step);
        }
        assertThat(browser.findElements(By.cssSelector("svg.workflow-dag line.edge"))).hasSize(arrows);
    }

    /** Each box's state as drawn (its class {@code step-<state>}), in the picture's order. */
    private List<String> dagStates() {
        return browser.findElements(By.cssSelector("svg.workflow-dag g.step")).stream()
                .map(g -> g.getAttribute("class").replaceAll(".*\\bstep-([a-z_]+).*", "$1")).collect(Collectors.toList());
    }

    /** "12 s ago" (or "in 3 s"), the exact UTC instant and the clock on hover: how every page shows a time. */
    private static void assertRelativeTime(WebElement time) {
        assertThat(time.getText()).matches("just now|[0-9]+ (s|min|h) ago|in [0-9]+ (s|min|h)");
        assertThat(time.getAttribute("title")).matches("20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:.]{12} UTC · database clock.*");
    }

    /** No "2026-12-05T01:04:13.217897" nor "2026-12-05 01:04:13" printed as text on the page (hover titles aside). */
    private void assertNoRawTimestamps(String page) {
        String shown = browser.findElement(By.tagName("main")).getText();
        assertThat(shown).as(page + " prints a raw timestamp").doesNotContainPattern("20[0-9]{2}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}");
    }

    /** "30 ms", "1.2 s", "42 s" as milliseconds. */
    private static long millis(String duration) {
        String[] parts = duration.trim().split(" ");
        double n = Double.parseDouble(parts[0]);
        return Math.round(switch (parts[1]) {
            case "ms" -> n;
            case "s" -> n * 1000;
            case "min" -> n * 60_000;
            default -> throw new AssertionError("unexpected unit in " + duration);
        });
    }

    /** Fails naming the page and the widest visible element when anything reaches past the window's right edge. */
    private void assertNoSidewaysOverflow(String page) {
        JavascriptExecutor js = (JavascriptExecutor) browser;
        Object overflow = js.executeScript(
                "var w = document.documentElement.clientWidth, worst = null;"
                        + "document.querySelectorAll('body *').forEach(function (el) {"
                        + "  var r = el.getBoundingClientRect(); var cs = getComputedStyle(el);"
                        + "  if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || cs.display === 'none') { return; }"
                        + "  if (r.right > w + 1 && (worst === null || r.right > worst.right)) {"
                        + "    worst = {right: r.right, what: el.tagName + '#' + el.id + '.' + el.className + ' ' + (el.textContent || '').slice(0, 60)}; }"
                        + "});"
                        + "return {scroll: document.documentElement.scrollWidth, client: w, worst: worst ? worst.what + ' right=' + worst.right : ''};");
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> o = (java.util.Map<String, Object>) overflow;
        long scroll = ((Number) o.get("scroll")).longValue();
        long client = ((Number) o.get("client")).longValue();
        assertThat(scroll).as(page + ": page width " + scroll + " > window " + client + "; widest: " + o.get("worst")).isLessThanOrEqualTo(client);
        assertThat((String) o.get("worst")).as(page + ": an element reaches past the window").isEmpty();
    }

    /** The row index of an actor in the actors table. */
    private int actorRow(String actor) {
        List<WebElement> ids = browser.findElements(By.xpath("//tbody[@id='actorsForm:actors_data']/tr//span[contains(@id,':actorId')]"));
        for (int i = 0; i < ids.size(); i++) {
            if (ids.get(i).getText().equals(actor)) {
                return i;
            }
        }
        throw new AssertionError("no row for " + actor);
    }

    /** Logs in through the form with a plain HTTP client; returns its session cookie header. */
    private String formLogin(String user, String password) throws Exception {
        java.net.CookieManager cookies = new java.net.CookieManager();
        HttpClient http = HttpClient.newBuilder().cookieHandler(cookies).followRedirects(HttpClient.Redirect.NEVER).build();
        URI login = URI.create(base() + "login.xhtml");
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(login).build(), HttpResponse.BodyHandlers.ofString());
        Matcher state = VIEW_STATE.matcher(form.body());
        assertThat(state.find()).as("view state on the login page").isTrue();
        String body = "login=login&login%3Anext=&login%3Ausername=" + enc(user) + "&login%3Apassword=" + enc(password)
                + "&login%3Asubmit=Log+in&jakarta.faces.ViewState=" + enc(state.group(1));
        HttpResponse<String> done = http.send(HttpRequest.newBuilder(login).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(done.statusCode()).as("login redirects onwards").isEqualTo(302);
        String header = cookies.getCookieStore().getCookies().stream().map(c -> c.getName() + "=" + c.getValue())
                .collect(Collectors.joining("; "));
        HttpResponse<String> in = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "index.xhtml"))
                .header("Cookie", header).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(in.statusCode()).as("the second session is logged in").isEqualTo(200);
        return header;
    }

    /** The episode ids of the episodes table, in page order (from each row's "open" link). */
    private static List<String> rowIds(WebDriver d) {
        return d.findElements(By.xpath("//tbody[@id='episodesForm:list_data']/tr//a[text()='open']")).stream()
                .map(a -> a.getAttribute("href").replaceAll(".*[?&]id=([^&]+).*", "$1")).collect(Collectors.toList());
    }

    private long startedInTheLastHour() {
        return node.get("/stats/throughput?minutes=60").jsonObject().getJsonArray("minutes").stream()
                .mapToLong(m -> ((JsonObject) m).getJsonNumber("started").longValue()).sum();
    }

    /** What the chart on the page holds: the sum of its "episodes started" series (-1: no chart yet). */
    private long chartedStarts() {
        Object sum = ((JavascriptExecutor) browser).executeScript(
                "var c = document.querySelector(\"[id='dashboard:throughput'] canvas\");"
                        + "var chart = c && window.Chart && Chart.getChart(c);"
                        + "return chart ? chart.data.datasets[0].data.reduce(function (a, b) { return a + b; }, 0) : -1;");
        return ((Number) sum).longValue();
    }

    private String adminPassword() {
        return node.environment().get("CYCLIUM_ADMIN_PASSWORD");
    }

    private String base() {
        return "http://127.0.0.1:" + node.port() + "/cyclium/";
    }

    private void logIn(String user, String password) {
        browser.get(base() + "login.xhtml");
        browser.findElement(By.id("login:username")).sendKeys(user);
        browser.findElement(By.id("login:password")).sendKeys(password);
        browser.findElement(By.id("login:submit")).click();
        await(d -> d.getCurrentUrl().contains("/index.xhtml"));
    }

    /** Every page opens from its URL: an episode's is {@code episode.xhtml?id=…}, nothing else. */
    private void openEpisode(String id) {
        browser.get(base() + "episode.xhtml?id=" + enc(id));
        await(d -> !d.findElements(By.id("episode:status")).isEmpty());
    }

    /**
     * A blocked resource_advisor episode. The demo's load is a random walk, so the test does not wait
     * for it to cross a limit: it takes batch-worker well under its limit (the monitor clears the
     * finding), then far over it (the monitor raises it anew, the advisor observes the breach and asks
     * for approval). The walk moves one resource by at most 25 every 20 s, which keeps 10 under and
     * 150 over the limit of 85.
     */
    private String awaitBlockedAdvisor() {
        // A tick of the walk can race one cycle (it read batch-worker before our write and writes its
        // own value after it), so a cycle that did not end blocked is tried again.
        for (int cycle = 1; cycle <= 3; cycle++) {
            List<String> blocked = blockedAdvisors();
            if (!blocked.isEmpty()) {
                return blocked.get(0);
            }
            setBatchWorkerUsage(10);
            within(Duration.ofSeconds(30), () -> !batchWorkerBreached());
            setBatchWorkerUsage(150);
            if (within(Duration.ofSeconds(30), this::batchWorkerBreached)
                    && within(Duration.ofSeconds(60), () -> !blockedAdvisors().isEmpty())) {
                return blockedAdvisors().get(0);
            }
        }
        throw new AssertionError("no blocked resource_advisor episode after three cycles of batch-worker going to 150 of 85");
    }

    private boolean batchWorkerBreached() {
        return node.get("/findings?status=active&class=limit_breach").jsonArray().stream()
                .anyMatch(v -> "limit_breach:batch-worker".equals(((JsonObject) v).getString("findingKey", "")));
    }

    private static boolean within(Duration limit, java.util.function.BooleanSupplier condition) {
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until) {
            if (condition.getAsBoolean()) {
                return true;
            }
            pause();
        }
        return false;
    }

    private List<String> blockedAdvisors() {
        return node.get("/episodes?actor=resource_advisor&status=blocked").jsonArray().stream()
                .map(v -> ((JsonObject) v).getString("id")).collect(Collectors.toList());
    }

    /** Writes the demo resource's usage as the demo load does and announces it. */
    private void setBatchWorkerUsage(int usage) {
        try (java.sql.Connection c = cluster.database().connect();
                java.sql.PreparedStatement update = c.prepareStatement(
                        "UPDATE cyclium_demo_resources SET usage_value = ?, version = version + 1 WHERE resource_id = 'batch-worker'")) {
            update.setInt(1, usage);
            assertThat(update.executeUpdate()).as("the demo seeded batch-worker").isEqualTo(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        HttpReply posted = node.post("/events", "{\"type\":\"resource.updated\",\"id\":\"test-" + UUID.randomUUID()
                + "\",\"payload\":{\"resource\":\"batch-worker\",\"usage\":" + usage + "}}");
        assertThat(posted.status()).as(posted.body()).isEqualTo(202);
    }

    private String awaitEpisode(String dedupeKey) {
        long until = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < until) {
            for (var v : node.get("/episodes?actor=resource_monitor&limit=500").jsonArray()) {
                JsonObject e = (JsonObject) v;
                if (dedupeKey.equals(e.getString("dedupeKey", ""))) {
                    return e.getString("id");
                }
            }
            pause();
        }
        throw new AssertionError("no episode with dedupe key " + dedupeKey);
    }

    private static void pause() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String rowText(WebDriver d, String actor) {
        return d.findElement(By.xpath("//tr[.//span[text()='" + actor + "']]")).getText();
    }

    /** Waits; the pages poll and re-render, so a vanished element means "look again". */
    private void await(java.util.function.Function<WebDriver, Boolean> condition) {
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.NoSuchElementException.class).until(condition::apply);
    }

    private void click(String id) {
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.elementToBeClickable(By.id(id))).click();
    }

    private void clickXpath(String xpath) {
        new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.elementToBeClickable(By.xpath(xpath))).click();
    }

    private String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private HttpResponse<String> withBrowserSession(HttpRequest.Builder request) throws Exception {
        String cookies = browser.manage().getCookies().stream().map(c -> c.getName() + "=" + c.getValue())
                .collect(Collectors.joining("; "));
        return HttpClient.newHttpClient().send(request.header("Cookie", cookies).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void shot(String name) {
        try {
            Path file = SHOTS.resolve(testName + "-" + name + ".png");
            Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException ignored) {
            // a screenshot is evidence, not a result: a browser that is already gone must not hide the real failure
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
