package io.cyclium.api;

import io.cyclium.problem.Problem;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Typed failures become JSON with their status and the field at fault. */
@Provider
public class ProblemMapper implements ExceptionMapper<Problem> {

    @Override
    public Response toResponse(Problem p) {
        return Response.status(p.status()).type(MediaType.APPLICATION_JSON)
                .entity(ApiErrors.of(p)).build();
    }
}
