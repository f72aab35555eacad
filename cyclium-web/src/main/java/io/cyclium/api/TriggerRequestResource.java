package io.cyclium.api;

import io.cyclium.operations.TriggerRequests;
import io.cyclium.problem.Problem;
import io.cyclium.episode.TriggerRequestStore;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** {@code GET /cyclium/api/trigger-requests?status=&limit=}: deferred triggers, newest first. */
@Path("trigger-requests")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class TriggerRequestResource {

    @Inject
    TriggerRequests requests;

    @GET
    public List<TriggerRequestStore.Request> list(@QueryParam("status") String status, @QueryParam("limit") String limit) {
        String s = status == null || status.isBlank() ? null : status.trim();
        if (s != null && !TriggerRequests.STATUSES.contains(s)) {
            throw Problem.invalid("status", "status \"" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "\" is not one of "
                    + new java.util.TreeSet<>(TriggerRequests.STATUSES));
        }
        int n = PageLimit.parse(limit);
        return requests.recent(s, n);
    }
}
