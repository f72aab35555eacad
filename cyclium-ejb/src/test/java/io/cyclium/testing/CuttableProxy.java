package io.cyclium.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay between a test's JDBC connections and a real database server, which the
 * test can cut the way networks and servers fail: {@link #down()} drops every connection and refuses
 * new ones (the database is unreachable) until {@link #up()}; {@link #loseNextCommitAnswer()} lets
 * the next {@code COMMIT} through to the server and then drops that connection before the server's
 * answer comes back (the commit happened; the client cannot know).
 *
 * <p>Only the bytes the client sends are looked at: the PostgreSQL driver sends a commit as the
 * text {@code COMMIT} in its message, which is what is matched.
 */
public final class CuttableProxy implements AutoCloseable {

    private static final byte[] COMMIT = "COMMIT".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean down;
    private final AtomicInteger commitsToLose = new AtomicInteger();
    private final AtomicInteger commitsLost = new AtomicInteger();
    private volatile boolean closed;

    private CuttableProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "cuttable-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A relay on a free loopback port to {@code host:port} (a loopback address). */
    public static CuttableProxy to(String host, int port) {
        try {
            return new CuttableProxy(host, port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a loopback relay", e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The database is unreachable from now on: open connections break, new ones are refused. */
    public void down() {
        down = true;
        open.forEach(CuttableProxy::closeQuietly);
        open.clear();
    }

    /** Reachable again. */
    public void up() {
        down = false;
    }

    /** The next COMMIT reaches the server, and its connection breaks before the answer comes back. */
    public void loseNextCommitAnswer() {
        commitsToLose.incrementAndGet();
    }

    /** How many commits' answers were lost so far. */
    public int commitAnswersLost() {
        return commitsLost.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (down) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket(targetHost, targetPort);
                open.add(client);
                open.add(upstream);
                java.util.concurrent.atomic.AtomicBoolean swallow = new java.util.concurrent.atomic.AtomicBoolean();
                pump(client, upstream, true, swallow);
                pump(upstream, client, false, swallow);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    /** {@code swallow}: set by the client side before a commit whose answer is to be lost; the server side then relays nothing more. */
    private void pump(Socket from, Socket to, boolean clientSide, java.util.concurrent.atomic.AtomicBoolean swallow) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    boolean loseAnswer = clientSide && contains(buf, n, COMMIT)
                            && commitsToLose.getAndUpdate(c -> Math.max(0, c - 1)) > 0;
                    if (loseAnswer) {
                        commitsLost.incrementAndGet();
                        swallow.set(true);
                    }
                    if (!clientSide && swallow.get()) {
                        return; // the commit's answer, dropped; the finally breaks the line
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    if (loseAnswer) {
                        // give the server the time to carry the commit out, then break the line
                        Thread.sleep(200);
                        closeQuietly(from);
                        closeQuietly(to);
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // a cut or a close: the other direction ends too
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "cuttable-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static boolean contains(byte[] buf, int n, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= n; i++) {
            for (int j = 0; j < what.length; j++) {
                if (buf[i + j] != what[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() {
        closed = true;
        down();
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
