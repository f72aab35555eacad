package io.cyclium.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TCP sockets a process listens on, as {@code ss -ltnp} (iproute2) reports them: the kernel's
 * view, so a listener the server opened on its own (a data grid, an embedded database's port)
 * shows up whether or not any configuration mentions it. Used by the cluster harness and the server
 * smoke tests.
 */
public final class ListeningSockets {

    /** {@code LISTEN 0 4096 [::ffff:127.0.0.1]:8080 *:* users:(("java",pid=123,fd=4))}: the local address. */
    private static final Pattern LINE = Pattern.compile("^LISTEN\\s+\\d+\\s+\\d+\\s+(\\S+)\\s+\\S+\\s+users:(.*)$");

    private ListeningSockets() {
    }

    /** Local addresses ({@code host:port}) of every TCP socket process {@code pid} listens on. */
    public static List<String> of(long pid) {
        try {
            Process ss = new ProcessBuilder("ss", "-Hltnp").redirectErrorStream(true).start();
            String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ss.waitFor(30, TimeUnit.SECONDS) || ss.exitValue() != 0) {
                throw new IllegalStateException("ss -Hltnp failed: " + out);
            }
            String owner = "pid=" + pid + ",";
            return out.lines().map(LINE::matcher).filter(Matcher::matches)
                    .filter(m -> m.group(2).contains(owner)).map(m -> m.group(1)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether a local address from {@link #of} is on {@code address} (IPv4, or IPv4 mapped into IPv6). */
    public static boolean on(String local, String address) {
        return local.startsWith(address + ":") || local.startsWith("[::ffff:" + address + "]:");
    }
}
