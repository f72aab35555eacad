package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.runtime.FireResult;
import io.cyclium.config.CycliumConfig;
import io.cyclium.operations.EpisodeDetail;
import io.cyclium.operations.EpisodeFilter;
import io.cyclium.operations.EpisodeListing;
import io.cyclium.operations.EpisodePage;
import io.cyclium.operations.EpisodeService;
import io.cyclium.operations.EpisodeView;
import io.cyclium.operations.Signals;
import io.cyclium.problem.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/** Episodes: start by hand, list, read with journal, cancel, approve or deny a plan. */
@Path("episodes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class EpisodeResource {

    @Inject
    OperatorRequest operator;

    @Inject
    EpisodeService episodes;

    @Inject
    CycliumConfig config;

    @Inject
    Signals signals;

    public record Started(String result, String episodeId, String dedupeKey) {
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response start(String body) {
        FireResult r = operator.perform(AuditAction.EPISODE_START, null, () -> startFrom(body));
        Started started = new Started(r.kind().name().toLowerCase(), r.episodeId(), r.dedupeKey());
        return switch (r.kind()) {
            case STARTED, QUEUED -> Response.status(Response.Status.CREATED).entity(started).build();
            case DEFERRED -> Response.accepted(started).build();
            case DUPLICATE -> Response.ok(started).build();
            default -> Response.status(Response.Status.CONFLICT).entity(started).build();
        };
    }

    private FireResult startFrom(String body) {
        JsonObject o = JsonBodies.object(body);
        String actor = JsonBodies.requiredName(o, "actor");
        String expectation = JsonBodies.requiredName(o, "expectation");
        JsonObject payload = JsonBodies.optionalObject(o, "payload");
        String idempotencyKey = JsonBodies.optionalString(o, "idempotencyKey");
        Integer priority = JsonBodies.optionalInt(o, "priority", -1_000_000, 1_000_000);
        // Per-call override: "env"/"stack" present (null = the unset one) stamps another world.
        ActorRuntime.Scope scope = null;
        if (o.containsKey("env") || o.containsKey("stack")) {
            scope = new ActorRuntime.Scope(slugOrNull(o, "stack", config.stackSlug()), slugOrNull(o, "env", config.env()));
        }
        return episodes.startManual(actor, expectation, payload, idempotencyKey, scope, priority);
    }

    private static String slugOrNull(JsonObject o, String field, String fallback) {
        if (!o.containsKey(field)) {
            return fallback;
        }
        String v = JsonBodies.optionalString(o, field);
        if (v != null && !v.matches("[a-z0-9][a-z0-9_-]{0,63}")) {
            throw Problem.invalid(field, "\"" + field + "\" must be 1-64 of a-z, 0-9, _ and -, starting with a letter or digit");
        }
        return v;
    }

    /**
     * Newest first, keyset-paged: at most {@link EpisodeListing#MAX_PAGE} a page; the next page is
     * the same query with {@code cursor} from the {@code Link rel="next"} / {@code X-Next-Cursor}
     * header. {@code stack=-} / {@code env=-} select episodes without one; {@code from} (inclusive)
     * and {@code to} (exclusive) are ISO-8601 times on started_at.
     */
    @GET
    public Response list(@QueryParam("actor") String actor, @QueryParam("expectation") String expectation,
            @QueryParam("status") String status, @QueryParam("stack") String stack, @QueryParam("env") String env,
            @QueryParam("from") String from, @QueryParam("to") String to, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor, @Context UriInfo uri) {
        EpisodeFilter filter = EpisodeFilter.parse(actor, expectation, status, stack, env, from, to);
        EpisodePage page = episodes.page(filter, cursor, PageLimit.parse(limit, EpisodeListing.MAX_PAGE));
        return QueryParams.page(page.episodes(), page.nextCursor(), uri);
    }

    @GET
    @Path("{id}")
    public EpisodeDetail get(@PathParam("id") String id) {
        return episodes.detail(id);
    }

    @POST
    @Path("{id}/cancel")
    public EpisodeView cancel(@PathParam("id") String id) {
        return operator.perform(AuditAction.EPISODE_CANCEL, id, () -> episodes.cancel(id));
    }

    @POST
    @Path("{id}/restart")
    public EpisodeView restart(@PathParam("id") String id) {
        return operator.perform(AuditAction.EPISODE_RESTART, id, () -> episodes.restart(id, operator.operator().user()));
    }

    @POST
    @Path("{id}/approve")
    @Consumes(MediaType.APPLICATION_JSON)
    public EpisodeView approve(@PathParam("id") String id, String body) {
        return operator.perform(AuditAction.EPISODE_APPROVE, id,
                () -> episodes.approve(id, JsonBodies.optionalString(JsonBodies.object(body), "planHash")));
    }

    @POST
    @Path("{id}/resolve-wait")
    @Consumes(MediaType.APPLICATION_JSON)
    public EpisodeView resolveWait(@PathParam("id") String id, String body) {
        return operator.perform(AuditAction.EPISODE_RESOLVE_WAIT, id, () -> {
            JsonObject o = JsonBodies.object(body);
            return episodes.resolveWait(id, JsonBodies.optionalString(o, "reference"),
                    o.containsKey("value") ? o.get("value") : jakarta.json.JsonValue.NULL);
        });
    }

    /**
     * A signal to an episode: the body is {@code {"payload": <any JSON value>}}. 200 when it waited
     * for the name and resumes with the payload; 202 when it is kept until the episode waits for it.
     */
    @POST
    @Path("{id}/signals/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response signal(@PathParam("id") String id, @PathParam("name") String name, String body) {
        Signals.SignalOutcome r = operator.perform(AuditAction.EPISODE_SIGNAL, id,
                () -> signals.signalEpisode(id, name, JsonBodies.signalPayload(body), operator.operator().user()));
        SignalSent sent = new SignalSent(r.episodeId(), r.name(), r.outcome(), r.status());
        return r.delivered() ? Response.ok(sent).build() : Response.accepted(sent).build();
    }

    /** What a signal came to: {@code delivered} (the episode waited for it) or {@code kept} (until it waits for the name). */
    public record SignalSent(String episodeId, String name, String outcome, String status) {
    }

    @POST
    @Path("{id}/deny")
    @Consumes(MediaType.APPLICATION_JSON)
    public EpisodeView deny(@PathParam("id") String id, String body) {
        return operator.perform(AuditAction.EPISODE_DENY, id,
                () -> episodes.deny(id, JsonBodies.optionalString(JsonBodies.object(body), "planHash")));
    }
}
