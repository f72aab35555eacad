package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.runtime.ActorHost;
import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeModes;
import io.cyclium.problem.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * This node's mode and per-actor overrides: {@code GET /mode}, {@code PUT /mode {"mode": "..."}},
 * {@code PUT /mode/actors/{actor} {"mode": "..."}}, {@code DELETE /mode/actors/{actor}}.
 */
@Path("mode")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ModeResource {

    @Inject
    OperatorRequest operator;

    @Inject
    NodeModes modes;

    @Inject
    ActorHost host;

    @GET
    public NodeModes.Status status() {
        return modes.status();
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public NodeModes.Status setNode(String body) {
        operator.run(AuditAction.NODE_MODE, modes.status().nodeIdentity(), () -> modes.setNodeMode(mode(body)));
        return modes.status();
    }

    @PUT
    @Path("actors/{actor}")
    @Consumes(MediaType.APPLICATION_JSON)
    public NodeModes.Status setActor(@PathParam("actor") String actor, String body) {
        operator.run(AuditAction.ACTOR_MODE, actor, () -> {
            NodeMode mode = mode(body);
            knownActor(actor);
            modes.setActorOverride(actor, mode);
        });
        return modes.status();
    }

    @DELETE
    @Path("actors/{actor}")
    public NodeModes.Status clearActor(@PathParam("actor") String actor) {
        operator.run(AuditAction.ACTOR_MODE_CLEAR, actor, () -> {
            knownActor(actor);
            modes.clearActorOverride(actor);
        });
        return modes.status();
    }

    private void knownActor(String actor) {
        if (host.definition(actor).isEmpty()) {
            throw Problem.notFound("no actor \"" + (actor.length() > 64 ? actor.substring(0, 64) + "…" : actor) + "\" is deployed");
        }
    }

    static NodeMode mode(String body) {
        JsonObject o = JsonBodies.object(body);
        String raw = JsonBodies.optionalString(o, "mode");
        if (raw == null || raw.isBlank()) {
            throw Problem.invalid("mode", "\"mode\" is required: one of " + NodeMode.allowed());
        }
        return NodeMode.parse(raw).orElseThrow(() -> Problem.invalid("mode", "\"mode\" = \""
                + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "\" is not one of " + NodeMode.allowed()));
    }
}
