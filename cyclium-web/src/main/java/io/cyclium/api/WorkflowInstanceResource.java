package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.audit.PendingAudit;
import io.cyclium.problem.Problem;
import io.cyclium.workflow.InstanceDetail;
import io.cyclium.workflow.InstanceView;
import io.cyclium.workflow.WorkflowQueries;
import io.cyclium.workflow.Workflows;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Workflow instances: list (filters, newest first, keyset-paged like episodes), read one with its
 * steps, transition journal and statistics, and the admin actions: cancel, resume a blocked
 * instance, retry a failed step, approve a gated step.
 */
@Path("workflow-instances")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class WorkflowInstanceResource {

    @Inject
    OperatorRequest operator;

    static final int MAX_PAGE = 200;

    @Inject
    Workflows workflows;

    @Context
    SecurityContext security;

    /** {@code cursor} is the X-Next-Cursor of the previous page: {@code <startedAt>~<id>}. */
    @GET
    public Response list(@QueryParam("workflow") String workflow, @QueryParam("status") String status,
            @QueryParam("stack") String stack, @QueryParam("env") String env, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor, @Context UriInfo uri) {
        int size = PageLimit.parse(limit, MAX_PAGE);
        LocalDateTime before = null;
        String beforeId = null;
        if (cursor != null && !cursor.isBlank()) {
            int at = cursor.indexOf('~');
            try {
                before = LocalDateTime.parse(cursor.substring(0, Math.max(0, at)));
                beforeId = cursor.substring(at + 1);
            } catch (DateTimeParseException | StringIndexOutOfBoundsException e) {
                throw Problem.invalid("cursor", "cursor \"" + cursor + "\" is not a cursor this list handed out");
            }
        }
        if (status != null && !List.of("pending", "running", "blocked", "completed", "failed", "canceled").contains(status)) {
            throw Problem.invalid("status", "status \"" + status + "\" is not one of pending, running, blocked, completed,"
                    + " failed, canceled");
        }
        List<InstanceView> page = workflows.instances(new WorkflowQueries.InstanceFilter(blankToNull(workflow), status,
                blankToNull(stack), blankToNull(env), before, beforeId), size + 1);
        String next = null;
        if (page.size() > size) {
            page = page.subList(0, size);
            InstanceView last = page.get(size - 1);
            next = last.startedAt() + "~" + last.id();
        }
        return QueryParams.page(page, next, uri);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    @GET
    @Path("{id}")
    public InstanceDetail get(@PathParam("id") String id) {
        return workflows.detail(id);
    }

    @POST
    @Path("{id}/cancel")
    public InstanceDetail cancel(@PathParam("id") String id) {
        return operator.perform(AuditAction.INSTANCE_CANCEL, id, () -> workflows.cancel(id, caller()));
    }

    @POST
    @Path("{id}/resume")
    public InstanceDetail resume(@PathParam("id") String id) {
        return operator.perform(AuditAction.INSTANCE_RESUME, id, () -> workflows.resume(id, caller()));
    }

    @POST
    @Path("{id}/steps/{step}/retry")
    public InstanceDetail retry(@PathParam("id") String id, @PathParam("step") String step) {
        return operator.perform(AuditAction.INSTANCE_STEP_RETRY, id, () -> {
            PendingAudit.detail("step " + step);
            return workflows.retryStep(id, step, caller());
        });
    }

    @POST
    @Path("{id}/steps/{step}/approve")
    public InstanceDetail approve(@PathParam("id") String id, @PathParam("step") String step) {
        return operator.perform(AuditAction.INSTANCE_STEP_APPROVE, id, () -> {
            PendingAudit.detail("step " + step);
            return workflows.approve(id, step, caller());
        });
    }

    /**
     * A signal for an instance ({@code {"payload": <any JSON value>}}): opens the signal gates of
     * that name among its steps that have not started; 409 when none waits for it.
     */
    @POST
    @Path("{id}/signals/{name}")
    @jakarta.ws.rs.Consumes(MediaType.APPLICATION_JSON)
    public InstanceDetail signal(@PathParam("id") String id, @PathParam("name") String name, String body) {
        return operator.perform(AuditAction.INSTANCE_SIGNAL, id, () -> {
            PendingAudit.detail("signal " + name);
            return workflows.signal(id, name, JsonBodies.signalPayload(body), caller());
        });
    }

    private String caller() {
        return security.getUserPrincipal() == null ? "api" : security.getUserPrincipal().getName();
    }
}
