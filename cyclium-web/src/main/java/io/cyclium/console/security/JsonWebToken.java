package io.cyclium.console.security;

import io.cyclium.store.Jsons;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A JSON Web Token in compact serialization ({@code header.payload.signature}, each base64url),
 * split and decoded but not yet trusted: {@link BearerTokenCheck} verifies the signature over
 * {@link #signingInput()} before any claim is believed.
 */
record JsonWebToken(JsonObject header, JsonObject claims, byte[] signingInput, byte[] signature) {

    /** Longer than any access token a provider issues; a bigger header is refused unread. */
    static final int MAX_LENGTH = 16 * 1024;

    static JsonWebToken parse(String compact) throws TokenRejected {
        if (compact.isEmpty()) {
            throw new TokenRejected("the bearer token is empty");
        }
        if (compact.length() > MAX_LENGTH) {
            throw new TokenRejected("the bearer token is longer than " + MAX_LENGTH + " characters");
        }
        String[] parts = compact.split("\\.", -1);
        if (parts.length != 3) {
            throw new TokenRejected("the bearer token is not a signed JWT (header.payload.signature): it has "
                    + parts.length + " part" + (parts.length == 1 ? "" : "s"));
        }
        JsonObject header = object(parts[0], "header");
        JsonObject claims = object(parts[1], "payload");
        byte[] signature = decode(parts[2], "signature");
        byte[] signingInput = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        return new JsonWebToken(header, claims, signingInput, signature);
    }

    /** A string member of the header, or null. */
    String headerText(String name) {
        return header.get(name) instanceof jakarta.json.JsonString s ? s.getString() : null;
    }

    /** A string claim, or null (also when the claim is not a string). */
    String text(String name) {
        return claims.get(name) instanceof jakarta.json.JsonString s ? s.getString() : null;
    }

    private static JsonObject object(String part, String what) throws TokenRejected {
        String json = new String(decode(part, what), StandardCharsets.UTF_8);
        try (JsonReader reader = Jsons.reader(json)) {
            return reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new TokenRejected("the bearer token's " + what + " is not a JSON object");
        }
    }

    private static byte[] decode(String part, String what) throws TokenRejected {
        try {
            return Base64.getUrlDecoder().decode(part);
        } catch (IllegalArgumentException e) {
            throw new TokenRejected("the bearer token's " + what + " is not base64url");
        }
    }
}
