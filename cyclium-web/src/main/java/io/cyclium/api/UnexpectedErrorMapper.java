package io.cyclium.api;

import io.cyclium.problem.Problem;
import jakarta.ejb.EJBException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Everything else: JAX-RS's own errors keep their status (404 for unknown paths, 405, 415) with a
 * JSON body; a bug is logged with an id and the caller gets only the id — never a stack trace.
 */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = Logger.getLogger(UnexpectedErrorMapper.class.getName());

    @Override
    public Response toResponse(Throwable t) {
        Throwable cause = t;
        while (cause instanceof EJBException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Problem p) {
            return new ProblemMapper().toResponse(p);
        }
        if (cause instanceof WebApplicationException w) {
            int status = w.getResponse().getStatus();
            return Response.status(status).type(MediaType.APPLICATION_JSON)
                    .entity(new ApiError(status, w.getResponse().getStatusInfo().getReasonPhrase(), null, null)).build();
        }
        String id = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "API error " + id, t);
        return Response.serverError().type(MediaType.APPLICATION_JSON)
                .entity(new ApiError(500, "internal error; the server log has the details under this id", null, id)).build();
    }
}
