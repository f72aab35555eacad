package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.operations.PauseCommands;
import io.cyclium.operations.PauseView;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorView;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;

/**
 * {@code GET /cyclium/api/actors}: every deployed actor, whether it runs here (and why not), its
 * mode, slots and breakers, and whether it is paused. {@code POST /actors/{id}/pause|resume} and
 * {@code POST /actors/{id}/expectations/{expectation}/pause|resume} pause and resume it (or one
 * expectation) cluster-wide: work not started yet waits, running episodes finish (admin only).
 */
@Path("actors")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ActorResource {

    @Inject
    ActorHost host;

    @Inject
    OperatorRequest operator;

    @Inject
    PauseCommands pauses;

    @Context
    SecurityContext security;

    @GET
    public List<ActorView> list() {
        return host.views();
    }

    @POST
    @Path("{id}/pause")
    public PauseView pause(@PathParam("id") String id) {
        return operator.perform(AuditAction.ACTOR_PAUSE, id, () -> pauses.pauseActor(id, true, caller()));
    }

    @POST
    @Path("{id}/resume")
    public PauseView resume(@PathParam("id") String id) {
        return operator.perform(AuditAction.ACTOR_RESUME, id, () -> pauses.pauseActor(id, false, caller()));
    }

    @POST
    @Path("{id}/expectations/{expectation}/pause")
    public PauseView pauseExpectation(@PathParam("id") String id, @PathParam("expectation") String expectation) {
        return operator.perform(AuditAction.EXPECTATION_PAUSE, id + "/" + expectation,
                () -> pauses.pauseExpectation(id, expectation, true, caller()));
    }

    @POST
    @Path("{id}/expectations/{expectation}/resume")
    public PauseView resumeExpectation(@PathParam("id") String id, @PathParam("expectation") String expectation) {
        return operator.perform(AuditAction.EXPECTATION_RESUME, id + "/" + expectation,
                () -> pauses.pauseExpectation(id, expectation, false, caller()));
    }

    private String caller() {
        return security.getUserPrincipal() == null ? "api" : security.getUserPrincipal().getName();
    }
}
