package io.cyclium.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Everything else: JAX-RS's own errors keep their status (404 for unknown paths, 405, 415) with a
 * JSON body; a bug is logged with an id and the caller gets only the id — never a stack trace.
 */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Throwable> {

    @Override
    public Response toResponse(Throwable t) {
        if (ApiErrors.unwrap(t) instanceof WebApplicationException w) {
            int status = w.getResponse().getStatus();
            return Response.status(status).type(MediaType.APPLICATION_JSON)
                    .entity(new ApiError(status, w.getResponse().getStatusInfo().getReasonPhrase(), null, null)).build();
        }
        ApiError error = ApiErrors.answer(t);
        return Response.status(error.status()).type(MediaType.APPLICATION_JSON).entity(error).build();
    }
}
