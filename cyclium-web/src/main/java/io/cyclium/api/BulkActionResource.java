package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.operations.BulkActionView;
import io.cyclium.operations.BulkCommands;
import io.cyclium.operations.BulkFilters;
import io.cyclium.operations.BulkItemResult;
import io.cyclium.operations.BulkItemView;
import io.cyclium.operations.BulkKind;
import io.cyclium.operations.BulkPreview;
import io.cyclium.operations.EpisodeFilter;
import io.cyclium.problem.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
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
import java.util.List;

/**
 * Bulk actions by filter: preview what a filter matches (changes nothing; viewers may too), start
 * an action confirmed against that preview (admin; audited as {@code bulk.start}), read one with
 * its progress and a page of its per-item results, list them, cancel a running one (admin; audited
 * as {@code bulk.cancel}).
 */
@Path("bulk-actions")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class BulkActionResource {

    /** Items on one page of {@code GET /bulk-actions/{id}}, at most. */
    static final int MAX_ITEMS = 500;

    @Inject
    OperatorRequest operator;

    @Inject
    BulkCommands bulk;

    /** One action with a page of its items; {@code nextAfter} is the {@code after} of the next page (null: last). */
    public record BulkActionPage(BulkActionView action, List<BulkItemView> items, Integer nextAfter) {
    }

    @POST
    @Path("preview")
    @Consumes(MediaType.APPLICATION_JSON)
    public BulkPreview preview(String body) {
        JsonObject o = JsonBodies.object(body);
        return bulk.preview(BulkKind.parse(JsonBodies.optionalString(o, "action")), filter(o));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response start(String body, @Context UriInfo uri) {
        BulkActionView started = operator.perform(AuditAction.BULK_START, null, () -> {
            JsonObject o = JsonBodies.object(body);
            BulkKind kind = BulkKind.parse(JsonBodies.optionalString(o, "action"));
            EpisodeFilter filter = filter(o);
            return bulk.start(kind, filter, expectedCount(o), JsonBodies.optionalString(o, "token"),
                    operator.operator().user());
        });
        return Response.accepted(started).location(uri.getAbsolutePathBuilder().path(started.id()).build()).build();
    }

    /**
     * Cancels a running action (admin; audited as {@code bulk.cancel}): its items not yet processed
     * are skipped, the node working on it stops at its next item. 404 unknown, 409 not running.
     */
    @POST
    @Path("{id}/cancel")
    public BulkActionView cancel(@PathParam("id") String id) {
        return operator.perform(AuditAction.BULK_CANCEL, id, () -> bulk.cancel(id));
    }

    @GET
    public List<BulkActionView> list(@QueryParam("limit") String limit) {
        return bulk.newest(PageLimit.parse(limit, 200));
    }

    /**
     * The action with its counts, and its items after item {@code after} (0: from the first), of
     * one {@code result} when given, {@code limit} at most (default 50, at most 500).
     */
    @GET
    @Path("{id}")
    public BulkActionPage get(@PathParam("id") String id, @QueryParam("after") String after,
            @QueryParam("result") String result, @QueryParam("limit") String limit) {
        int from = after == null || after.isBlank() || after.trim().equals("0") ? 0
                : PageLimit.parse("after", after, 0, Integer.MAX_VALUE);
        BulkItemResult only = result == null || result.isBlank() ? null : BulkItemResult.parse(result.trim())
                .orElseThrow(() -> Problem.invalid("result", "result \"" + (result.length() > 40 ? result.substring(0, 40) + "…" : result)
                        + "\" is not one of pending, working, done, skipped, failed"));
        int n = PageLimit.parse(limit, MAX_ITEMS);
        BulkActionView view = bulk.find(id);
        List<BulkItemView> items = bulk.items(id, from, only, n + 1);
        Integer next = items.size() > n ? items.get(n - 1).itemNo() : null;
        return new BulkActionPage(view, items.size() > n ? items.subList(0, n) : items, next);
    }

    private static EpisodeFilter filter(JsonObject o) {
        if (!o.containsKey("filter") || o.isNull("filter")) {
            throw Problem.invalid("filter", "filter is required: an object with at least one of " + BulkFilters.FIELDS);
        }
        if (!(o.get("filter") instanceof JsonObject f)) {
            throw Problem.invalid("filter", "\"filter\" must be a JSON object, not " + o.get("filter").getValueType().name()
                    .toLowerCase(java.util.Locale.ROOT));
        }
        return BulkFilters.parse(f);
    }

    private static Long expectedCount(JsonObject o) {
        if (!o.containsKey("expectedCount") || o.isNull("expectedCount")) {
            return null;
        }
        JsonValue v = o.get("expectedCount");
        if (!(v instanceof JsonNumber n) || !n.isIntegral() || n.longValue() < 0) {
            throw Problem.invalid("expectedCount", "\"expectedCount\" must be the whole number of episodes the preview showed");
        }
        return n.longValue();
    }
}
