package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.ConsoleRoles;
import io.cyclium.console.security.OperatorRequest;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Who is looking at the page, and the server-side gate of every console action: buttons are only
 * rendered for admins, but a forged post from a viewer must still change nothing.
 */
@Named("user")
@RequestScoped
public class ConsoleUser {

    private static final Logger LOG = Logger.getLogger(ConsoleUser.class.getName());

    @Inject
    HttpServletRequest request;

    @Inject
    OperatorRequest operator;

    public String getName() {
        return request.getRemoteUser();
    }

    public boolean isAdmin() {
        return request.isUserInRole(ConsoleRoles.ADMIN);
    }

    public String getRole() {
        return isAdmin() ? ConsoleRoles.ADMIN : ConsoleRoles.VIEWER;
    }

    /**
     * Runs {@code work} as this user's {@code action} on {@code subjectId}, through the audit trail,
     * when they are an admin, and answers what it returned; a refusal it meets is shown and answers
     * null. A viewer (a forged post: the buttons are not rendered for them) changes nothing: the
     * refusal is logged, recorded in the audit trail and shown, and the answer is null.
     */
    <T> T act(String what, AuditAction action, String subjectId, Supplier<T> work) {
        if (!isAdmin()) {
            LOG.warning(() -> "refused console action \"" + what + "\" for " + getName() + ": not " + ConsoleRoles.ADMIN);
            operator.refuse(action, subjectId, "needs the role " + ConsoleRoles.ADMIN);
            ConsoleMessages.error("Refused: " + what + " needs the role " + ConsoleRoles.ADMIN + ".");
            return null;
        }
        return ConsoleMessages.attempt(() -> operator.perform(action, subjectId, work));
    }

    /** As {@link #act} for an action that answers nothing: true when it ran without a refusal. */
    boolean act(String what, AuditAction action, String subjectId, Runnable work) {
        return act(what, action, subjectId, () -> {
            work.run();
            return Boolean.TRUE;
        }) != null;
    }
}
