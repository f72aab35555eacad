package io.cyclium.console.security;

import jakarta.faces.FacesException;
import jakarta.faces.application.ProtectedViewException;
import jakarta.faces.context.ExceptionHandler;
import jakarta.faces.context.ExceptionHandlerWrapper;
import jakarta.faces.context.FacesContext;
import jakarta.faces.event.ExceptionQueuedEvent;
import java.io.IOException;
import java.util.Iterator;

/**
 * A protected view (faces-config.xml) opened without the session's token — a bookmark, a typed
 * URL, a forged link — is sent to the overview instead of failing as a server error (500): the
 * refusal is the CSRF guard working, not a fault. Everything else goes to the wrapped handler.
 */
public class UnlinkedEntryRedirect extends ExceptionHandlerWrapper {

    static final String LANDING = "/index.xhtml";

    public UnlinkedEntryRedirect(ExceptionHandler wrapped) {
        super(wrapped);
    }

    @Override
    public void handle() {
        Iterator<ExceptionQueuedEvent> events = getUnhandledExceptionQueuedEvents().iterator();
        while (events.hasNext()) {
            if (isUnlinkedEntry(events.next().getContext().getException())) {
                events.remove();
                FacesContext faces = FacesContext.getCurrentInstance();
                try {
                    faces.getExternalContext().redirect(faces.getExternalContext().getRequestContextPath() + LANDING);
                } catch (IOException e) {
                    throw new FacesException(e);
                }
                faces.responseComplete();
            }
        }
        super.handle();
    }

    private static boolean isUnlinkedEntry(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ProtectedViewException) {
                return true;
            }
        }
        return false;
    }
}
