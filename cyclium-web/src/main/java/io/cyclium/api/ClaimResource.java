package io.cyclium.api;

import io.cyclium.claims.ClaimQueries;
import io.cyclium.claims.Claims;
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
 * {@code GET /cyclium/api/claims?owner=&workType=&state=&keyPrefix=&limit=&cursor=}: the work-claims
 * table in key order, at most {@link ClaimQueries#MAX_PAGE} a page, read-only (either role).
 */
@Path("claims")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ClaimResource {

    @Inject
    Claims claims;

    @GET
    public Response list(@QueryParam("owner") String owner, @QueryParam("workType") String workType,
            @QueryParam("state") String state, @QueryParam("keyPrefix") String keyPrefix,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor, @Context UriInfo uri) {
        ClaimQueries.Filter filter = new ClaimQueries.Filter(owner, workType, state, keyPrefix);
        int n = PageLimit.parse(limit, ClaimQueries.MAX_PAGE);
        ClaimQueries.ClaimPage page = claims.page(filter, cursor, n);
        return QueryParams.page(page.claims(), page.nextCursor(), uri);
    }
}
