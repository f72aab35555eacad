package io.cyclium.cluster.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.ClusterHarness;
import io.cyclium.cluster.ClusterNode;
import io.cyclium.cluster.HarnessDatabase;
import io.cyclium.cluster.HttpReply;
import io.cyclium.cluster.actors.ClusterActor;
import jakarta.json.JsonObject;
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
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
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
    private static final Pattern TOKEN = Pattern.compile("jakarta\\.faces\\.Token=([^&\"]+)");

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
                .jvmOption("-XX:TieredStopAtLevel=1")
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
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1400,1000",
                "--user-data-dir=" + Files.createTempDirectory("cyclium-chromium").toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            shot("last");
            browser.quit();
        }
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

        click("episodesForm:older");
        await(d -> text("episodesForm:pageNumber").equals("2"));
        List<String> second = rowIds(browser);
        assertThat(second).isNotEmpty().doesNotContainAnyElementsOf(first);
        assertThat(first.size() + second.size()).isGreaterThanOrEqualTo(13);
        shot("episodes-page-2");

        click("episodesForm:newer");
        await(d -> text("episodesForm:pageNumber").equals("1"));
        assertThat(rowIds(browser)).isEqualTo(first);
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

        HttpResponse<String> api = withBrowserSession(HttpRequest.newBuilder(URI.create(node.api() + "/mode"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString("{\"mode\":\"disabled\"}")));
        assertThat(api.statusCode()).isEqualTo(403);
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
        await(d -> d.findElement(By.id("episode:trigger")).getText().contains(script));
        assertThat(((JavascriptExecutor) browser).executeScript("return window.cycliumXss === undefined")).isEqualTo(true);
        assertThat(browser.getPageSource()).doesNotContain(script).contains("&lt;script&gt;window.cycliumXss=1&lt;/script&gt;");
    }

    // ---- helpers ------------------------------------------------------------------------

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

    /** Pages with actions are protected views: a direct URL needs the session's token, taken from a link. */
    private void openEpisode(String id) {
        Matcher token = TOKEN.matcher(browser.findElement(By.id("navActors")).getAttribute("href"));
        assertThat(token.find()).as("protected-view token in the actors link").isTrue();
        browser.get(base() + "episode.xhtml?id=" + enc(id) + "&jakarta.faces.Token=" + token.group(1));
        await(d -> !d.findElements(By.id("episode:status")).isEmpty());
    }

    private String awaitBlockedAdvisor() {
        long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < until) {
            List<String> ids = node.get("/episodes?actor=resource_advisor&status=blocked").jsonArray().stream()
                    .map(v -> ((JsonObject) v).getString("id")).collect(Collectors.toList());
            if (!ids.isEmpty()) {
                return ids.get(0);
            }
            pause();
        }
        throw new AssertionError("no blocked resource_advisor episode within 120 s (the demo seeds batch-worker over its limit)");
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
