package io.cyclium.console.security;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The signing keys of a JSON Web Key Set (RFC 7517) as JDK public keys, by {@code kid}: RSA keys
 * ({@code n}, {@code e}) and EC keys on P-256, P-384 and P-521 ({@code x}, {@code y}). Keys marked
 * for encryption ({@code "use": "enc"}, Keycloak publishes one), of other types, or that do not
 * decode are left out, not fatal: the set stays usable for the keys that are there.
 */
final class JsonWebKeys {

    private static final Map<String, String> CURVES = Map.of("P-256", "secp256r1", "P-384", "secp384r1", "P-521", "secp521r1");

    private JsonWebKeys() {
    }

    /** The set's signing keys by kid; a key without a kid is listed under the empty string. */
    static Map<String, PublicKey> signingKeys(JsonObject set) {
        Map<String, PublicKey> keys = new LinkedHashMap<>();
        if (!(set.get("keys") instanceof jakarta.json.JsonArray array)) {
            return keys;
        }
        for (JsonValue v : array) {
            if (!(v instanceof JsonObject jwk) || "enc".equals(text(jwk, "use"))) {
                continue;
            }
            try {
                PublicKey key = switch (String.valueOf(text(jwk, "kty"))) {
                    case "RSA" -> rsa(jwk);
                    case "EC" -> ec(jwk);
                    default -> null;
                };
                if (key != null) {
                    keys.putIfAbsent(text(jwk, "kid") == null ? "" : text(jwk, "kid"), key);
                }
            } catch (GeneralSecurityException | IllegalArgumentException | NullPointerException malformed) {
                // a key this JDK cannot read (or a broken entry): the others still count
            }
        }
        return keys;
    }

    private static PublicKey rsa(JsonObject jwk) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(number(jwk, "n"), number(jwk, "e")));
    }

    private static PublicKey ec(JsonObject jwk) throws GeneralSecurityException {
        String curve = CURVES.get(text(jwk, "crv"));
        if (curve == null) {
            return null;
        }
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
        parameters.init(new ECGenParameterSpec(curve));
        ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
        return KeyFactory.getInstance("EC").generatePublic(
                new ECPublicKeySpec(new ECPoint(number(jwk, "x"), number(jwk, "y")), spec));
    }

    private static BigInteger number(JsonObject jwk, String member) {
        return new BigInteger(1, Base64.getUrlDecoder().decode(text(jwk, member)));
    }

    private static String text(JsonObject o, String member) {
        return o.get(member) instanceof JsonString s ? s.getString() : null;
    }
}
