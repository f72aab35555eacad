package io.cyclium.it;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The console identities of the Arquillian node: failsafe sets CYCLIUM_ADMIN_PASSWORD and
 * CYCLIUM_VIEWER_PASSWORD for the test JVM, which the Payara Micro process inherits.
 */
public final class ConsoleUsers {

    private ConsoleUsers() {
    }

    public static String adminPassword() {
        return required("CYCLIUM_ADMIN_PASSWORD");
    }

    public static String viewerPassword() {
        return required("CYCLIUM_VIEWER_PASSWORD");
    }

    /** {@code Authorization} header value for the admin. */
    public static String admin() {
        return basic("admin", adminPassword());
    }

    /** {@code Authorization} header value for the read-only viewer. */
    public static String viewer() {
        return basic("viewer", viewerPassword());
    }

    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String required(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(variable + " is not set: run the tests through Maven (failsafe sets it)");
        }
        return value;
    }
}
