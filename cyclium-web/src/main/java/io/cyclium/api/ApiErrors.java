package io.cyclium.api;

import io.cyclium.problem.Problem;
import jakarta.ejb.EJBException;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The API's answer to a failure, wherever the request was handled (a JAX-RS resource or the event
 * intake servlet): a {@link Problem} keeps its status and field; anything else is a bug, logged
 * with an id, and the caller gets only the id, never a stack trace.
 */
final class ApiErrors {

    private static final Logger LOG = Logger.getLogger(ApiErrors.class.getName());

    private ApiErrors() {
    }

    /** What {@code t} is about: EJB calls wrap what they throw. */
    static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while (cause instanceof EJBException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The answer to {@code t}: its problem's, or a 500 with an id for a bug. */
    static ApiError answer(Throwable t) {
        return unwrap(t) instanceof Problem p ? of(p) : internal(t);
    }

    static ApiError of(Problem p) {
        return new ApiError(p.status(), p.getMessage(), p.field(), null);
    }

    /** A 500 for a bug: logged here under a new id, which is all the caller is told. */
    static ApiError internal(Throwable t) {
        String id = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "API error " + id, t);
        return new ApiError(500, "internal error; the server log has the details under this id", null, id);
    }
}
