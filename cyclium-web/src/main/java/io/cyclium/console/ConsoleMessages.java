package io.cyclium.console;

import io.cyclium.problem.Problem;
import jakarta.ejb.EJBException;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import java.util.function.Supplier;

/** Page messages, and how an action's typed failure becomes one (anything else propagates to error.xhtml). */
final class ConsoleMessages {

    private ConsoleMessages() {
    }

    static void info(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, text, null));
    }

    static void error(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, text, null));
    }

    /** Runs an action; a {@link Problem} (also inside an EJBException) is shown as its message. */
    static <T> T attempt(Supplier<T> action) {
        try {
            return action.get();
        } catch (EJBException e) {
            if (e.getCause() instanceof Problem p) {
                error(p.getMessage());
                return null;
            }
            throw e;
        } catch (Problem p) {
            error(p.getMessage());
            return null;
        }
    }
}
