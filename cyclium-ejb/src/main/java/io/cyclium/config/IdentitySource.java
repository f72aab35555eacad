package io.cyclium.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where the console and the API take users and roles from ({@code cyclium.security.identity}).
 */
public enum IdentitySource {
    /** the two accounts of the quick start: admin and (with a password) viewer */
    BUILTIN("builtin"),
    /**
     * the server's own realm (Payara: the default realm — file, LDAP, JDBC, certificate; WildFly:
     * the security domain of the application): the server checks the password, its groups
     * cyclium-admin and cyclium-viewer are the roles
     */
    SERVER("server"),
    /**
     * an OpenID Connect provider (Keycloak, Entra ID, …): the console's pages log in through the
     * provider's login page (authorization-code flow), its groups claim cyclium-admin and
     * cyclium-viewer are the roles; the API keeps HTTP Basic with the built-in accounts
     */
    OIDC("oidc");

    private final String wire;

    IdentitySource(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<IdentitySource> parse(String raw) {
        String v = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.wire.equals(v)).findFirst();
    }

    public static String allowed() {
        return Arrays.stream(values()).map(IdentitySource::wire).collect(Collectors.joining(", "));
    }
}
