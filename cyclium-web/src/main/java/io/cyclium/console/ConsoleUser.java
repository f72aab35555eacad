package io.cyclium.console;

import io.cyclium.console.security.ConsoleRoles;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.servlet.http.HttpServletRequest;
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

    public String getName() {
        return request.getRemoteUser();
    }

    public boolean isAdmin() {
        return request.isUserInRole(ConsoleRoles.ADMIN);
    }

    public String getRole() {
        return isAdmin() ? ConsoleRoles.ADMIN : ConsoleRoles.VIEWER;
    }

    /** True for an admin; otherwise logs the attempt, shows why and returns false. */
    boolean mayAct(String action) {
        if (isAdmin()) {
            return true;
        }
        LOG.warning(() -> "refused console action \"" + action + "\" for " + getName() + ": not " + ConsoleRoles.ADMIN);
        ConsoleMessages.error("Refused: " + action + " needs the role " + ConsoleRoles.ADMIN + ".");
        return false;
    }
}
