package io.cyclium.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Payara Micro process of a {@link ClusterHarness}: its port, identity, environment and log,
 * a small REST client for {@code /cyclium/api}, and process control. A node keeps its port and
 * environment across restarts; each start appends to the same log after a marker line.
 */
public final class ClusterNode {

    /** Log lines that mean the application will not come up, whatever Micro prints later ("ready"). */
    private static final List<Pattern> FAILURES = List.of(
            Pattern.compile("Boot Command .* failed"),
            Pattern.compile("Exception while (loading|deploying) the app"),
            Pattern.compile("Error occurred during deployment"),
            Pattern.compile("(?i)deployment failed"));
    private static final Pattern RUNTIME_DIR = Pattern.compile("Payara Micro Runtime directory is located at (\\S+)");
    private static final Pattern STACK_FRAME = Pattern.compile("\\s+(at |\\.\\.\\. \\d+ more)");
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final int port;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private final HttpClient http;
    private final List<Path> runtimeDirs = new ArrayList<>();

    private volatile Process process;
    private volatile Instant startedAt;
    private volatile Instant exitedAt;
    private volatile Duration lastBoot;
    private volatile String lastProbe = "no answer yet";
    private long startOffset;
    private long scanOffset;
    private int starts;

    ClusterNode(String name, int port, List<String> command, Map<String, String> environment, Path log) {
        this.name = name;
        this.port = port;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = log;
        // A client per node, on HTTP/1.1: the default (HTTP/2) upgrades to h2c, which Payara accepts,
        // and then sends every request to the node over one multiplexed connection; a start once
        // ran into a probe that never got an answer that way (cause not pinned down).
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    /** {@code http://127.0.0.1:<port>/cyclium/api}. */
    public URI api() {
        return URI.create("http://127.0.0.1:" + port + "/cyclium/api");
    }

    /** The environment this node's process gets on top of the harness JVM's (minus CYCLIUM_*). */
    public Map<String, String> environment() {
        return environment;
    }

    // ---- REST ------------------------------------------------------------------------------

    /** {@code POST /cyclium/api<path>} with a JSON body. */
    public HttpReply post(String path, String json) {
        return post(path, json, Map.of());
    }

    /** {@code POST /cyclium/api<path>} with a JSON body and more headers (a {@code traceparent}). */
    public HttpReply post(String path, String json, Map<String, String> headers) {
        HttpRequest.Builder r = request(path).timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json");
        headers.forEach(r::header);
        return send(r.POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** {@code PUT /cyclium/api<path>} with a JSON body. */
    public HttpReply put(String path, String json) {
        return send(request(path).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** {@code DELETE /cyclium/api<path>}. */
    public HttpReply delete(String path) {
        return send(request(path).timeout(REQUEST_TIMEOUT).DELETE().build());
    }

    /** {@code GET /cyclium/api<path>}. */
    public HttpReply get(String path) {
        return send(request(path).timeout(REQUEST_TIMEOUT).GET().build());
    }

    /** A request to {@code /cyclium/api<path>} as the console's admin (HTTP Basic, the node's own password). */
    private HttpRequest.Builder request(String path) {
        return requestAs(path, "admin", adminPassword().orElse(""));
    }

    /** A request to {@code /cyclium/api<path>} with the given HTTP Basic credentials. */
    HttpRequest.Builder requestAs(String path, String user, String password) {
        String credentials = user + ":" + password;
        return HttpRequest.newBuilder(resolve(path)).header("Authorization",
                "Basic " + java.util.Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code GET /cyclium/api<path>} as {@code user}. */
    public HttpReply getAs(String path, String user, String password) {
        return send(requestAs(path, user, password).timeout(REQUEST_TIMEOUT).GET().build());
    }

    /** What this start printed as its generated password; null until found (reset by {@link #start}). */
    private java.util.Optional<String> generated;

    private static final java.util.regex.Pattern GENERATED =
            java.util.regex.Pattern.compile("log in as user admin with the generated password (\\S+)");

    /**
     * The admin password: the configured one, or — for a node started with it blank — the one the
     * node generated and printed in this start's log (empty until it has).
     */
    public java.util.Optional<String> adminPassword() {
        String configured = environment.get("CYCLIUM_ADMIN_PASSWORD");
        return configured != null && !configured.isBlank() ? java.util.Optional.of(configured) : generatedPassword();
    }

    /** The password this start of the node generated and printed, if it did (read once per start). */
    public synchronized java.util.Optional<String> generatedPassword() {
        if (generated != null) {
            return generated;
        }
        try {
            byte[] all = Files.readAllBytes(log);
            String sinceStart = new String(all, (int) Math.min(startOffset, all.length), (int) Math.max(0, all.length - startOffset),
                    StandardCharsets.UTF_8);
            java.util.regex.Matcher m = GENERATED.matcher(sinceStart);
            if (!m.find()) {
                return java.util.Optional.empty(); // not printed yet: look again next time
            }
            generated = java.util.Optional.of(m.group(1));
            return generated;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private URI resolve(String path) {
        return URI.create(api() + (path.startsWith("/") ? path : "/" + path));
    }

    private HttpReply send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new HttpReply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": " + request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + request.uri(), e);
        }
    }

    // ---- process ---------------------------------------------------------------------------

    /** At most this many bytes of a node's output per start reach its log; the rest is read and dropped. */
    static final long LOG_CAP = 64L * 1024 * 1024;

    static void copyCapped(java.io.InputStream out, Path log, long cap, String name) {
        Thread copier = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            long written = 0;
            try (java.io.OutputStream file = Files.newOutputStream(log, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND)) {
                int n;
                while ((n = out.read(buffer)) >= 0) {
                    if (written < cap) {
                        int keep = (int) Math.min(n, cap - written);
                        file.write(buffer, 0, keep);
                        file.flush();
                        written += keep;
                        if (written >= cap) {
                            file.write(("\n==== cluster harness: log capped at " + cap + " bytes; the rest is dropped\n")
                                    .getBytes(StandardCharsets.UTF_8));
                            file.flush();
                        }
                    }
                }
            } catch (IOException e) {
                // the process is gone or the file cannot be written: nothing more to copy
            }
        }, "log-" + name);
        copier.setDaemon(true);
        copier.start();
    }

    synchronized void start() {
        if (isAlive()) {
            throw new IllegalStateException(name + " is still running (pid " + process.pid() + ")");
        }
        starts++;
        generated = null;
        try {
            Files.writeString(log, (starts == 1 ? "" : "\n") + "==== cluster harness: start #" + starts + " of " + name
                            + " at " + Instant.now() + ": " + String.join(" ", command) + "\n",
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            startOffset = Files.size(log);
            scanOffset = startOffset;
            // the output goes through a copier that stops writing at LOG_CAP: a runaway node cannot fill the disk
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.PIPE);
            // The failsafe JVM carries the Arquillian node's CYCLIUM_* settings: none of them may leak in.
            pb.environment().keySet().removeIf(k -> k.startsWith("CYCLIUM_"));
            pb.environment().putAll(environment);
            exitedAt = null;
            lastBoot = null;
            startedAt = Instant.now();
            Process p = pb.start();
            process = p;
            copyCapped(p.getInputStream(), log, LOG_CAP, name);
            // the reaper thread notices the exit as it happens: a better time than whoever polls next
            p.onExit().thenRun(() -> exitedAt = Instant.now());
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command, e);
        }
    }

    /**
     * True once {@code GET /nodes/self} answers 200 with this node's identity. Throws, with the
     * first error of the log, when the process has exited or the log shows a deployment failure.
     */
    synchronized boolean checkReady() {
        scanLog();
        if (!isAlive()) {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + " during start-up. " + firstError());
        }
        HttpReply self;
        try {
            self = send(request("/nodes/self").timeout(Duration.ofSeconds(5)).GET().build());
        } catch (UncheckedIOException notYet) {
            // refused, reset or timed out while Micro starts: exit and log decide what is fatal
            lastProbe = String.valueOf(notYet.getCause());
            return false;
        }
        lastProbe = self.toString();
        if (self.status() == 200 && self.body().contains("\"nodeIdentity\":\"" + environment.get("CYCLIUM_NODE_IDENTITY") + "\"")) {
            lastBoot = Duration.between(startedAt, Instant.now());
            return true;
        }
        return false;
    }

    /** Reads what the log gained since the last look: runtime directory and deployment failures. */
    private void scanLog() {
        String added;
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            long length = f.length();
            if (length <= scanOffset) {
                return;
            }
            // whole lines only: a line still being written is read next time
            byte[] bytes = new byte[(int) Math.min(length - scanOffset, 4 * 1024 * 1024)];
            f.seek(scanOffset);
            f.readFully(bytes);
            int lastNewline = lastIndexOf(bytes, (byte) '\n');
            if (lastNewline < 0) {
                return;
            }
            added = new String(bytes, 0, lastNewline + 1, StandardCharsets.UTF_8);
            scanOffset += lastNewline + 1;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + log, e);
        }
        Matcher dir = RUNTIME_DIR.matcher(added);
        while (dir.find()) {
            runtimeDirs.add(Path.of(dir.group(1)));
        }
        for (Pattern failure : FAILURES) {
            Matcher m = failure.matcher(added);
            if (m.find()) {
                throw new IllegalStateException(name + ": the log shows a failed start (\"" + m.group() + "\"). " + firstError());
            }
        }
    }

    private static int lastIndexOf(byte[] bytes, byte b) {
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** The last 60 lines of this node's log since its last start, for failure messages. */
    public String tail() {
        List<String> lines = linesOfThisStart();
        return "Last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    /**
     * From the first SEVERE entry (or failure line) of this start on, 40 lines without stack
     * frames: the cause (for example a configuration problem naming the property) sits there, not
     * at the end of the log.
     */
    private String firstError() {
        List<String> lines = linesOfThisStart();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.contains("SEVERE") || FAILURES.stream().anyMatch(f -> f.matcher(line).find())) {
                List<String> messages = lines.subList(i, lines.size()).stream()
                        .filter(l -> !STACK_FRAME.matcher(l).lookingAt()).limit(40).toList();
                return "From " + log + " (stack frames left out):\n" + String.join("\n", messages);
            }
        }
        return tail();
    }

    /** Everything this start of the node has logged so far (colour codes removed). */
    public String logOfThisStart() {
        return String.join("\n", linesOfThisStart());
    }

    private List<String> linesOfThisStart() {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            byte[] bytes = new byte[(int) Math.min(f.length() - startOffset, 16 * 1024 * 1024)];
            f.seek(startOffset);
            f.readFully(bytes);
            // Payara colours its level names: keep messages readable
            return new String(bytes, StandardCharsets.UTF_8).replaceAll("\u001B\\[[0-9;]*m", "").lines().toList();
        } catch (IOException e) {
            return List.of("(log " + log + " unreadable: " + e.getMessage() + ")");
        }
    }

    private static final Pattern LOG_STAMP = Pattern.compile("^\\[(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}[+-]\\d{4})\\]");

    /**
     * How far this node's own clock is from the harness's: the stamp of the first Payara log line of
     * this start minus the moment the process was started. The line was written during the boot,
     * so for a node whose clock is right this lies between 0 and {@link #lastBoot()}.
     */
    public Duration clockOffsetSeenInLog() {
        java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");
        for (String line : linesOfThisStart()) {
            Matcher m = LOG_STAMP.matcher(line);
            if (m.find()) {
                return Duration.between(startedAt, java.time.OffsetDateTime.parse(m.group(1), f).toInstant());
            }
        }
        throw new AssertionError(name + " wrote no stamped log line yet. " + tail());
    }

    /** What the last readiness probe saw (an answer or an exception), for timeout messages. */
    String lastProbe() {
        return lastProbe;
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The names of the node's live threads, from a thread dump (jcmd of the JDK running the test). */
    public java.util.List<String> threadNames() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(pid()), "Thread.print").redirectErrorStream(true).start();
            String dump = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!jcmd.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                throw new IllegalStateException("jcmd Thread.print of " + name + " failed: " + dump);
            }
            return dump.lines().filter(l -> l.startsWith("\"")).map(l -> l.substring(1, l.indexOf('"', 1))).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Time from process start to the first good answer of the last (re)start; null before that. */
    public Duration lastBoot() {
        return lastBoot;
    }

    /** SIGTERM ({@link Process#destroy()} on Linux): Payara runs its shutdown (and the drain). */
    Instant sigterm() {
        Instant sent = Instant.now();
        process.destroy();
        return sent;
    }

    /** SIGKILL ({@link Process#destroyForcibly()}): no shutdown at all. */
    Instant kill9() {
        Instant sent = Instant.now();
        process.destroyForcibly();
        return sent;
    }

    /** Waits for the process to end; returns when it ended (as seen by the JDK's reaper). */
    Instant waitForExit(Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(name + " (pid " + process.pid() + ") still runs after " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
        // onExit() completes and the exit-time callback runs on the same reaper thread, in either order
        Instant exited = exitedAt;
        return exited != null ? exited : Instant.now();
    }

    /** 143 after SIGTERM, 137 after SIGKILL. */
    public int exitCode() {
        return process.exitValue();
    }

    /**
     * Deletes the runtime directories Micro announced in this node's log and left behind (it
     * removes its own on SIGTERM, not after SIGKILL). Only directories under the system temp
     * folder named {@code payaramicro-rt*} are touched.
     */
    synchronized void deleteRuntimeDirs() {
        scanLog0();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        for (Path dir : runtimeDirs) {
            if (!dir.toAbsolutePath().startsWith(tmp) || !dir.getFileName().toString().startsWith("payaramicro-rt")
                    || !Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                System.err.println("[cluster] could not delete " + dir + ": " + e.getMessage());
            }
        }
    }

    /** scanLog without failing: at cleanup a failure in the log is no longer news. */
    private void scanLog0() {
        try {
            scanLog();
        } catch (IllegalStateException ignored) {
            // the runtime directory line comes first in the log, so it was recorded already
        }
    }

    @Override
    public String toString() {
        Process p = process;
        return name + " (port " + port + (p == null ? "" : ", pid " + p.pid()) + ")";
    }
}
