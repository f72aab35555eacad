package io.cyclium.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A status and a body: what a scrape of /metrics answered. */
record HttpReplyText(int status, String body) {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static HttpReplyText get(URI uri) {
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build());
    }

    /**
     * GET with HTTP Digest (RFC 7616, MD5, qop=auth), as a Prometheus scraper configured with
     * {@code digest} credentials would: the first answer must be a 401 with the challenge; the
     * second request answers it. (The JDK's own Digest support no longer accepts MD5 by default.)
     */
    static HttpReplyText digestGet(URI uri, String user, String password) {
        HttpResponse<String> first = sendRaw(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build());
        String header = first.headers().allValues("WWW-Authenticate").stream().filter(h -> h.startsWith("Digest "))
                .findFirst().orElse(null);
        if (first.statusCode() != 401 || header == null) {
            throw new AssertionError("no Digest challenge from " + uri + ": " + first.statusCode() + " " + first.headers().map());
        }
        String realm = param(header, "realm");
        String nonce = param(header, "nonce");
        String opaque = param(header, "opaque");
        String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String cnonce = UUID.randomUUID().toString().replace("-", "");
        String nc = "00000001";
        String ha1 = md5(user + ":" + realm + ":" + password);
        String ha2 = md5("GET:" + path);
        String response = md5(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + ha2);
        String authorization = "Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + nonce + "\", uri=\"" + path
                + "\", qop=auth, nc=" + nc + ", cnonce=\"" + cnonce + "\", response=\"" + response + "\", algorithm=MD5"
                + (opaque == null ? "" : ", opaque=\"" + opaque + "\"");
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).header("Authorization", authorization).GET().build());
    }

    private static String param(String header, String name) {
        Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(header);
        return m.find() ? m.group(1) : null;
    }

    private static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static HttpReplyText send(HttpRequest request) {
        HttpResponse<String> r = sendRaw(request);
        return new HttpReplyText(r.statusCode(), r.body());
    }

    private static HttpResponse<String> sendRaw(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
