package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.operations.PauseCommands;
import io.cyclium.operations.PauseView;
import io.cyclium.problem.Problem;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.workflow.DefinitionVersionView;
import io.cyclium.workflow.InstanceView;
import io.cyclium.workflow.WorkflowView;
import io.cyclium.workflow.Workflows;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Workflow definitions: list and read them (with instance counts and success rate), their stored
 * versions ({@code GET /workflows/{id}/versions}), store one as JSON ({@code PUT /workflows/{id}}:
 * 400 naming the field when it is invalid; a changed document becomes the next version), enable or disable,
 * and start an instance ({@code POST /workflows/{id}/instances {"outcome", "payload", "subject"}}:
 * the whole DAG, or the outcome's target step with exactly its transitive dependencies; 409 when
 * the workflow has an instance in flight for the subject).
 */
@Path("workflows")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class WorkflowResource {

    @Inject
    OperatorRequest operator;

    @Inject
    Workflows workflows;

    @Inject
    PauseCommands pauses;

    @Context
    SecurityContext security;

    @GET
    public List<WorkflowView> list() {
        return workflows.workflows();
    }

    @GET
    @Path("{id}")
    public WorkflowView get(@PathParam("id") String id) {
        return workflows.workflow(id);
    }

    @GET
    @Path("{id}/versions")
    public List<DefinitionVersionView> versions(@PathParam("id") String id) {
        return workflows.versions(id);
    }

    @PUT
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public WorkflowView put(@PathParam("id") String id, String body) {
        return operator.perform(AuditAction.WORKFLOW_PUT, id, () -> workflows.put(id, JsonBodies.object(body)));
    }

    @POST
    @Path("{id}/enable")
    public WorkflowView enable(@PathParam("id") String id) {
        return operator.perform(AuditAction.WORKFLOW_ENABLE, id, () -> workflows.setEnabled(id, true));
    }

    @POST
    @Path("{id}/disable")
    public WorkflowView disable(@PathParam("id") String id) {
        return operator.perform(AuditAction.WORKFLOW_DISABLE, id, () -> workflows.setEnabled(id, false));
    }

    /** Pauses the workflow cluster-wide: instances stay in flight, no new step episode starts (admin only). */
    @POST
    @Path("{id}/pause")
    public PauseView pause(@PathParam("id") String id) {
        return operator.perform(AuditAction.WORKFLOW_PAUSE, id, () -> pauses.pauseWorkflow(id, true, caller()));
    }

    /** Resumes it: the queued steps start (on this node at once, on the others with their next reconcile). */
    @POST
    @Path("{id}/resume")
    public PauseView resume(@PathParam("id") String id) {
        return operator.perform(AuditAction.WORKFLOW_RESUME, id, () -> pauses.pauseWorkflow(id, false, caller()));
    }

    @POST
    @Path("{id}/instances")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response start(@PathParam("id") String id, String body) {
        JsonValue value = body == null || body.isBlank() ? JsonValue.EMPTY_JSON_OBJECT
                : JsonBodies.value(body, "a JSON object (one instance) or an array of them");
        if (value instanceof JsonArray list) {
            // a list: every instance stored in one transaction, or none (one audit row for the request)
            List<Workflows.StartRequest> requests = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof JsonObject o)) {
                    throw Problem.invalid("[" + i + "]", "item " + i + " of the list must be a JSON object, not "
                            + list.get(i).getValueType().name().toLowerCase());
                }
                requests.add(startRequest(o, "[" + i + "]."));
            }
            List<InstanceView> started = operator.perform(AuditAction.WORKFLOW_START, id, () -> workflows.startAll(id, requests,
                    caller()));
            return Response.status(Response.Status.CREATED).entity(started).build();
        }
        if (!(value instanceof JsonObject o)) {
            throw Problem.invalid(null, "the request body must be a JSON object (one instance) or an array of them, not "
                    + value.getValueType().name().toLowerCase());
        }
        Workflows.StartRequest request = startRequest(o, "");
        InstanceView started = operator.perform(AuditAction.WORKFLOW_START, id, () -> workflows.start(id, request.outcome(),
                request.payload(), request.subject(), caller()));
        return Response.status(Response.Status.CREATED).entity(started).build();
    }

    /** One instance of a start request; {@code at} names its place in a list in error messages ("[3]."). */
    private static Workflows.StartRequest startRequest(JsonObject o, String at) {
        try {
            return new Workflows.StartRequest(JsonBodies.optionalString(o, "outcome"), JsonBodies.optionalObject(o, "payload"),
                    JsonBodies.optionalString(o, "subject"));
        } catch (Problem p) {
            throw at.isEmpty() ? p : Problem.invalid(at + p.field(), "item " + at.substring(1, at.length() - 2) + ": " + p.getMessage());
        }
    }

    private String caller() {
        return security.getUserPrincipal() == null ? "api" : security.getUserPrincipal().getName();
    }
}
