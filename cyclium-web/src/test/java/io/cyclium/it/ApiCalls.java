package io.cyclium.it;

import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Plain HTTP calls from the test JVM to the Arquillian node, with or without a Basic header. */
final class ApiCalls {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ApiCalls() {
    }

    /** {@code path} is relative to the application (e.g. {@code api/episodes}); no redirect is followed. */
    static HttpResponse<String> send(URL base, String method, String path, String authorization, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                .header("Content-Type", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        b.method(method.toUpperCase(java.util.Locale.ROOT),
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> admin(URL base, String method, String path, String body) throws Exception {
        return send(base, method, path, ConsoleUsers.admin(), body);
    }

    /** An admin's call that must answer {@code status}; its JSON object (empty for an empty body). */
    static jakarta.json.JsonObject adminExpecting(URL base, String method, String path, String body, int status) throws Exception {
        HttpResponse<String> r = admin(base, method, path, body);
        org.assertj.core.api.Assertions.assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(status);
        return r.body().isBlank() ? jakarta.json.JsonValue.EMPTY_JSON_OBJECT : json(r).asJsonObject();
    }

    static JsonStructure json(HttpResponse<String> r) {
        return json(r.body());
    }

    static JsonStructure json(String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.read();
        }
    }

    static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** One path segment: like {@link #enc} but a space is %20. */
    static String segment(String value) {
        return enc(value).replace("+", "%20");
    }
}
