package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.output.OutputOutcome;
import io.cyclium.output.OutputRetryRefusedException;
import io.cyclium.output.OutputView;
import io.cyclium.output.Outputs;
import io.cyclium.output.UnknownOutputException;
import io.cyclium.problem.Problem;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Outputs: read one, and retry a failed delivery explicitly (exactly one retry runs at a time). */
@Path("outputs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class OutputResource {

    @Inject
    OperatorRequest operator;

    @Inject
    Outputs outputs;

    @GET
    @Path("{id}")
    public OutputView get(@PathParam("id") String id) {
        return outputs.find(id).orElseThrow(() -> Problem.notFound("no output " + shorten(id)));
    }

    @POST
    @Path("{id}/retry")
    public OutputOutcome retry(@PathParam("id") String id) {
        try {
            return operator.perform(AuditAction.OUTPUT_RETRY, id, () -> outputs.retry(id));
        } catch (EJBException e) {
            throw translate(e.getCause() == null ? e : e.getCause(), id);
        } catch (RuntimeException e) {
            throw translate(e, id);
        }
    }

    private static RuntimeException translate(Throwable e, String id) {
        if (e instanceof UnknownOutputException) {
            return Problem.notFound("no output " + shorten(id));
        }
        if (e instanceof OutputRetryRefusedException r) {
            return Problem.conflict(r.getMessage());
        }
        return e instanceof RuntimeException re ? re : new IllegalStateException(e);
    }

    private static String shorten(String id) {
        return id == null ? "" : id.length() > 64 ? id.substring(0, 64) + "…" : id;
    }
}
