package io.cyclium.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One full application server (Payara Server domain or WildFly standalone instance) for a test,
 * set up, started, stopped and deployed to only through the scripts in {@code server-config/} —
 * the commands docs/deploying/ gives an operator. Every listener is on 127.0.0.1; the server's own log
 * is capped and rotated by those scripts. {@link #close()} kills the server's process if it still
 * runs (also from a JVM shutdown hook, so an aborted run leaves no server behind).
 */
abstract class FullServer implements AutoCloseable {

    static final String BIND = "127.0.0.1";
    /**
     * The servers' JVMs (and asadmin's) compile with C1 only: a boot costs about half the CPU (C2
     * compiles code a server that lives for a minute never runs hot), and on two cores the matrix
     * is mostly boots. Set the way an operator passes JVM options: Micro's command line, WildFly's
     * PREPEND_JAVA_OPTS, Payara Server's CYCLIUM_JVM_OPTIONS (create-domain.sh) and AS_EXTRA_JAVA_OPTS.
     */
    static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");

    protected final String name;
    protected final Path dir;
    protected final Path configDir;
    protected final Map<String, String> env = new HashMap<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Thread killer = new Thread(this::killQuietly);

    protected FullServer(String name, Path dir, Map<String, String> environment) {
        this.name = name;
        this.dir = dir.toAbsolutePath();
        this.configDir = Path.of(System.getProperty("cyclium.config.dir", "../server-config")).toAbsolutePath().normalize();
        this.env.putAll(environment);
        this.env.put("CYCLIUM_BIND_ADDRESS", BIND);
        this.env.put("CYCLIUM_NODE_IDENTITY", name);
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /** Creates and configures the server, starts it and deploys {@code ear}; returns when the app answers. */
    abstract void install(Path ear);

    /**
     * A user of the server's own realm in {@code group}, for {@code cyclium.security.identity=server};
     * call before {@link #install}. Servers without one here say so.
     */
    void addRealmUser(String user, String password, String group) {
        throw new UnsupportedOperationException(this + ": no realm users in this test harness");
    }

    abstract void deploy(Path ear);

    /** Graceful stop through the script; returns when the process has ended. */
    abstract void stop();

    /** Starts the stopped server again (the EAR stays deployed); returns when the app answers. */
    abstract void start();

    abstract int httpPort();

    abstract Path serverLog();

    /** The server's Java process id, -1 when it is not running. */
    abstract long pid();

    /**
     * Where the server writes Cyclium's series in Prometheus text: MicroProfile Metrics' application
     * scope on Payara, Micrometer's Prometheus registry on WildFly's management interface.
     */
    abstract URI metrics();

    /**
     * Whether server-config sets the server's batch job repository up in the Cyclium database (the
     * JBeret tables JOB_INSTANCE, JOB_EXECUTION, ... on WildFly), so every node sees every node's
     * batch executions.
     */
    boolean keepsBatchJobsInTheDatabase() {
        return completedBatchExecutionSql().isPresent();
    }

    /**
     * Where the server keeps its batch jobs in the Cyclium database: a count of the completed
     * {@code cyclium-retention} executions with the id bound at {@code ?} (1 when it is there).
     */
    java.util.Optional<String> completedBatchExecutionSql() {
        return java.util.Optional.empty();
    }

    /**
     * Whether {@link #deploy} replaces the application in the running server. Payara Micro cannot:
     * its "redeploy" is a stop and a start with the archive, which the drain step already does.
     */
    boolean redeploysInPlace() {
        return true;
    }

    /** Whether the drain's summary reaches the server log as a JUL INFO record (not on Micro: see EpisodeDrainer). */
    boolean drainSummaryIsJul() {
        return true;
    }

    URI app() {
        return URI.create("http://" + BIND + ":" + httpPort() + "/cyclium/");
    }

    String name() {
        return name;
    }

    /** Runs a server-config script with this server's environment; fails with its output's tail. */
    protected void script(String path, Map<String, String> extra) {
        Path log = dir.resolve("scripts.log");
        try {
            Files.createDirectories(dir);
            Files.writeString(log, "\n=== " + path + " " + java.time.Instant.now() + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            ProcessBuilder pb = new ProcessBuilder("bash", configDir.resolve(path).toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            // nothing of the test JVM's own CYCLIUM_* reaches a server
            pb.environment().keySet().removeIf(k -> k.startsWith("CYCLIUM_"));
            pb.environment().putAll(env);
            pb.environment().putAll(extra);
            long t0 = System.nanoTime();
            Process p = pb.start();
            if (!p.waitFor(12, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError(path + " did not finish within 12 min. " + tail(log, 40));
            }
            System.out.printf("[%s] %s: exit %d after %.1f s%n", name, path, p.exitValue(), (System.nanoTime() - t0) / 1e9);
            if (p.exitValue() != 0) {
                throw new AssertionError(path + " failed with exit " + p.exitValue() + ". " + tail(log, 40)
                        + "\nServer log: " + tail(serverLog(), 60));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(app().resolve(path)).GET());
    }

    HttpResponse<String> post(String path, String json) {
        return post(path, json, Map.of());
    }

    /** With more headers (a {@code traceparent}). */
    HttpResponse<String> post(String path, String json, Map<String, String> headers) {
        HttpRequest.Builder r = HttpRequest.newBuilder(app().resolve(path)).header("Content-Type", "application/json");
        headers.forEach(r::header);
        return send(r.POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** {@link #metrics()} as the operator's scraper sees it (anonymous, unless the server locks it). */
    HttpReplyText scrape() {
        return HttpReplyText.get(metrics());
    }

    HttpResponse<String> getUnauthenticated(URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code method} on {@code path} of the application as {@code user} (HTTP Basic); a JSON body when not null. */
    HttpResponse<String> callAs(String user, String password, String method, String path, String json) {
        HttpRequest.Builder r = HttpRequest.newBuilder(app().resolve(path));
        if (json != null) {
            r.header("Content-Type", "application/json");
        }
        return send(r.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json)),
                user, password);
    }

    /** {@code method} on {@code path} of the application with an OpenID Connect access token. */
    HttpResponse<String> callWithToken(String token, String method, String path, String json) {
        HttpRequest.Builder r = HttpRequest.newBuilder(app().resolve(path)).header("Authorization", "Bearer " + token);
        if (json != null) {
            r.header("Content-Type", "application/json");
        }
        try {
            return http.send(r.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        return send(request, "admin", env.get("CYCLIUM_ADMIN_PASSWORD"));
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String user, String password) {
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        try {
            return http.send(request.header("Authorization", "Basic " + basic).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The console's form login as a browser does it: the login page renders with its view state,
     * the form is posted, the session lands on the dashboard. Returns the dashboard page.
     */
    HttpResponse<String> formLogin() {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        URI login = app().resolve("login.xhtml");
        try {
            HttpResponse<String> form = browser.send(HttpRequest.newBuilder(login).GET().build(), HttpResponse.BodyHandlers.ofString());
            Matcher state = VIEW_STATE.matcher(form.body());
            if (form.statusCode() != 200 || !state.find()) {
                throw new AssertionError("login page " + login + " answered " + form.statusCode() + " without a form: " + form.body());
            }
            String body = "login=login&login%3Ausername=admin&login%3Apassword="
                    + URLEncoder.encode(env.get("CYCLIUM_ADMIN_PASSWORD"), StandardCharsets.UTF_8)
                    + "&login%3Asubmit=Log+in&jakarta.faces.ViewState=" + URLEncoder.encode(state.group(1), StandardCharsets.UTF_8);
            return browser.send(HttpRequest.newBuilder(login).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls the one open API path until the application answers (servers start it after they say "started"). */
    void awaitApp(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (getUnauthenticated(app().resolve("api/health")).statusCode() == 200) {
                    return;
                }
            } catch (UncheckedIOException notYet) {
                // not listening yet
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError(name + ": " + app() + "api/health did not answer within " + timeout.toSeconds() + " s. "
                + tail(serverLog(), 60));
    }

    /** The process id in a server's pid file if that process runs, else -1. */
    static long livePid(Path pidFile) {
        try {
            if (!Files.exists(pidFile)) {
                return -1;
            }
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent() ? pid : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** SIGKILL: the server vanishes without any shutdown. */
    void kill9() {
        long pid = pid();
        if (pid > 0) {
            ProcessHandle.of(pid).ifPresent(p -> {
                p.destroyForcibly();
                p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
            });
        }
    }

    protected void awaitExit(long pid, Duration timeout) {
        ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(timeout.toSeconds(), TimeUnit.SECONDS).join());
    }

    @Override
    public void close() {
        killQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs now and does the same
        }
    }

    private void killQuietly() {
        try {
            kill9();
        } catch (RuntimeException e) {
            System.err.println("[" + name + "] could not kill the server: " + e);
        }
    }

    static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file + ")";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return "Last lines of " + file + ":\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    String logText() {
        try {
            return Files.exists(serverLog()) ? Files.readString(serverLog(), StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Ports handed out in this JVM: servers set up side by side (TwoNodesIT's pair, EarSmokeIT's
     * concurrent cells) must not pick the same port before either has bound it — across kinds too,
     * where one server's block overlaps another kind's (a Micro port inside a Payara block).
     */
    private static final java.util.Set<Integer> GIVEN = new java.util.HashSet<>();

    /**
     * A block of ports free now: {@code base + offset} for every offset is unbound on 127.0.0.1,
     * and none of them was handed to another server of this JVM. Callers keep every port below 32768:
     * above it Linux hands out ephemeral ports, and one taken between this check and the server's
     * bind failed a WildFly start (BindException on its management port).
     */
    static synchronized int freeBlock(int from, int to, int step, int... offsets) {
        List<Integer> bases = new ArrayList<>();
        for (int b = from; b < to; b += step) {
            bases.add(b);
        }
        java.util.Collections.shuffle(bases);
        for (int base : bases) {
            boolean free = true;
            for (int o : offsets) {
                if (GIVEN.contains(base + o)) {
                    free = false;
                    break;
                }
                try (ServerSocket s = new ServerSocket(base + o, 1, InetAddress.getByName(BIND))) {
                    s.setReuseAddress(true);
                } catch (IOException taken) {
                    free = false;
                    break;
                }
            }
            if (free) {
                for (int o : offsets) {
                    GIVEN.add(base + o);
                }
                return base;
            }
        }
        throw new IllegalStateException("no free port block between " + from + " and " + to);
    }
}
