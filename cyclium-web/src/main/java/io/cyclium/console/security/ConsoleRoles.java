package io.cyclium.console.security;

/** The two console roles; the identity store hands them out as groups of the same name. */
public final class ConsoleRoles {

    /** May act: start, cancel, approve, deny, retry, switch modes, run the sweep. */
    public static final String ADMIN = "cyclium-admin";

    /** May read everything, change nothing. */
    public static final String VIEWER = "cyclium-viewer";

    private ConsoleRoles() {
    }
}
