package io.cyclium.console.security;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.Operator;
import io.cyclium.operations.AuditTrail;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Supplier;

/**
 * The operator behind this request — the authenticated user and the client address the server saw
 * — and the one way the console and the API run an action for them: through the audit trail.
 */
@RequestScoped
public class OperatorRequest {

    @Inject
    HttpServletRequest request;

    @Inject
    AuditTrail audit;

    public Operator operator() {
        return new Operator(request.getRemoteUser(), request.getRemoteAddr());
    }

    /** Runs {@code work} as this operator's {@code action} on {@code subjectId}, with its audit row. */
    public <T> T perform(AuditAction action, String subjectId, Supplier<T> work) {
        return audit.perform(operator(), action, subjectId, work);
    }

    /** As {@link #perform} for an action that answers nothing. */
    public void run(AuditAction action, String subjectId, Runnable work) {
        audit.perform(operator(), action, subjectId, () -> {
            work.run();
            return null;
        });
    }

    /** Records that this operator's {@code action} was refused before it ran. */
    public void refuse(AuditAction action, String subjectId, String reason) {
        audit.refuse(operator(), action, subjectId, reason);
    }
}
