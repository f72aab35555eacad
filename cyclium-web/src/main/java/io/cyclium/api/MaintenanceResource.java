package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.retention.RetentionOperations;
import io.cyclium.retention.RetentionQueries;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * Retention: {@code GET /maintenance/retention} the configured windows, {@code POST
 * /maintenance/retention} runs the job now on this node (admins; 409 while a run holds the day's
 * claim), {@code GET /maintenance/executions} every node's runs, newest first.
 */
@Path("maintenance")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class MaintenanceResource {

    @Inject
    OperatorRequest operator;

    @Inject
    RetentionOperations retention;

    @GET
    @Path("retention")
    public RetentionOperations.Windows windows() {
        return retention.windows();
    }

    @POST
    @Path("retention")
    public Response runNow() {
        return Response.status(Response.Status.ACCEPTED)
                .entity(operator.perform(AuditAction.RETENTION_RUN, null, () -> retention.runNow(operator.operator().user()))).build();
    }

    @GET
    @Path("executions")
    public List<RetentionQueries.Execution> executions(@QueryParam("limit") String limit) {
        return retention.executions(PageLimit.parse(limit, RetentionQueries.MAX_RUNS));
    }
}
