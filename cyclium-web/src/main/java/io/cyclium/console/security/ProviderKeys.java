package io.cyclium.console.security;

import io.cyclium.store.Jsons;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The provider's signing keys: its discovery document ({@code <issuer>/.well-known/openid-configuration})
 * names the key set ({@code jwks_uri}), read at the first token and kept. A token signed with a
 * {@code kid} the kept set lacks makes one fresh read (the provider rotated its keys), but at most
 * one per {@link #MIN_REFRESH}: tokens with invented kids cannot make the node hammer the provider.
 * The set is also read again once it is {@link #MAX_AGE} old, so a key the provider withdrew stops
 * counting within that time.
 *
 * <p>Reads of a known key take no lock (the kept set is an immutable snapshot in a volatile
 * field); refreshes are serialized, so a burst of tokens with a new kid makes one fetch, and the
 * ones that waited find the key in the snapshot it left.
 */
final class ProviderKeys {

    static final Duration MIN_REFRESH = Duration.ofSeconds(10);
    static final Duration MAX_AGE = Duration.ofHours(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record Snapshot(Map<String, PublicKey> keys, Instant fetchedAt) {
    }

    private final URI issuer;
    private final HttpClient http;
    private final Clock clock;
    private volatile Snapshot snapshot;

    ProviderKeys(URI issuer, Clock clock) {
        this.issuer = issuer;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /**
     * The key a token names ({@code kid}), or — for a token without one — the set's only key.
     *
     * @throws TokenRejected       the provider publishes no such key, even after a fresh read
     * @throws ProviderUnreachable the provider's documents could not be read
     */
    PublicKey key(String kid) throws TokenRejected {
        Snapshot seen = snapshot;
        if (seen != null && !isOld(seen)) {
            PublicKey key = pick(seen, kid);
            if (key != null) {
                return key;
            }
        }
        synchronized (this) {
            Snapshot now = snapshot;
            if (now == seen && (now == null || isOld(now) || mayRefresh(now))) {
                now = fetch();
                snapshot = now;
            }
            PublicKey key = pick(now, kid);
            if (key != null) {
                return key;
            }
            if (kid == null) {
                throw new TokenRejected("the bearer token names no key (no kid) and the provider publishes "
                        + now.keys().size() + " signing keys");
            }
            throw new TokenRejected("the bearer token is signed with a key the provider does not publish (kid "
                    + shorten(kid) + ")");
        }
    }

    private boolean isOld(Snapshot s) {
        return !s.fetchedAt().plus(MAX_AGE).isAfter(clock.instant());
    }

    private boolean mayRefresh(Snapshot s) {
        return !s.fetchedAt().plus(MIN_REFRESH).isAfter(clock.instant());
    }

    private static PublicKey pick(Snapshot s, String kid) {
        if (kid != null) {
            return s.keys().get(kid);
        }
        return s.keys().size() == 1 ? s.keys().values().iterator().next() : null;
    }

    private Snapshot fetch() {
        URI discovery = URI.create(issuer + "/.well-known/openid-configuration");
        JsonObject configuration = read(discovery, "discovery document");
        if (!(configuration.get("jwks_uri") instanceof JsonString jwks)) {
            throw new ProviderUnreachable("the provider's discovery document " + discovery + " names no jwks_uri", null);
        }
        URI keys;
        try {
            keys = discovery.resolve(jwks.getString());
        } catch (IllegalArgumentException e) {
            throw new ProviderUnreachable("the provider's jwks_uri is not a URL: " + shorten(jwks.getString()), e);
        }
        return new Snapshot(Map.copyOf(JsonWebKeys.signingKeys(read(keys, "key set"))), clock.instant());
    }

    private JsonObject read(URI uri, String what) {
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json").build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ProviderUnreachable("the provider's " + what + " " + uri + " could not be read: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderUnreachable("interrupted while reading the provider's " + what + " " + uri, e);
        }
        if (response.statusCode() != 200) {
            throw new ProviderUnreachable("the provider's " + what + " " + uri + " answered " + response.statusCode(), null);
        }
        try (JsonReader reader = Jsons.reader(response.body())) {
            return reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new ProviderUnreachable("the provider's " + what + " " + uri + " is not a JSON object", e);
        }
    }

    static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
