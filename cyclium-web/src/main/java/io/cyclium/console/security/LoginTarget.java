package io.cyclium.console.security;

/**
 * Where the login page may send a caller afterwards: only a path inside this application, never
 * another host (an open redirect would let a crafted link hand a fresh login to someone else's page).
 */
public final class LoginTarget {

    static final String LANDING = "/index.xhtml";

    private LoginTarget() {
    }

    /** A path below the context root: starts with one slash, no scheme, no backslash, no control characters. */
    public static boolean isSafe(String next) {
        if (next == null || next.isEmpty() || next.length() > 2_000 || next.charAt(0) != '/' || next.startsWith("//")) {
            return false;
        }
        for (int i = 0; i < next.length(); i++) {
            char c = next.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') {
                return false;
            }
        }
        return !next.contains("/jakarta.faces.");
    }

    /** {@code next} when it is safe, the overview otherwise. */
    public static String orLanding(String next) {
        return isSafe(next) ? next : LANDING;
    }
}
