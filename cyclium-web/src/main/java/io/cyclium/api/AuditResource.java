package io.cyclium.api;

import io.cyclium.operations.AuditFilter;
import io.cyclium.operations.AuditQueries;
import io.cyclium.operations.AuditTrail;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * The audit trail, newest first, keyset-paged like the episode list: at most
 * {@link AuditQueries#MAX_PAGE} rows a page, the next page from the {@code Link rel="next"} /
 * {@code X-Next-Cursor} header. Filters: {@code user}, {@code action}, {@code subjectKind},
 * {@code subject} (exact), {@code outcome}, {@code from} (inclusive) and {@code to} (exclusive) as
 * ISO-8601 times. Either role may read it.
 */
@Path("audit")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class AuditResource {

    @Inject
    AuditTrail audit;

    @GET
    public Response list(@QueryParam("user") String user, @QueryParam("action") String action,
            @QueryParam("subjectKind") String subjectKind, @QueryParam("subject") String subject,
            @QueryParam("outcome") String outcome, @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor, @Context UriInfo uri) {
        AuditFilter filter = AuditFilter.parse(user, action, subjectKind, subject, outcome, from, to);
        AuditQueries.Page page = audit.page(filter, cursor, PageLimit.parse(limit, AuditQueries.MAX_PAGE));
        return QueryParams.page(page.records(), page.nextCursor(), uri);
    }
}
