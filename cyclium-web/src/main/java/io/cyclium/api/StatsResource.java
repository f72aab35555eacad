package io.cyclium.api;

import io.cyclium.claims.Claims;
import io.cyclium.operations.EpisodeQueries;
import io.cyclium.operations.EpisodeThroughput;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** What the dashboard charts, as JSON. */
@Path("stats")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    @EJB
    EpisodeQueries episodes;

    @Inject
    Claims claims;

    @EJB
    io.cyclium.stats.StatsQueries stats;

    /**
     * {@code GET /stats/throughput?minutes=60}: episodes started and failed per minute, the last
     * {@code minutes} whole minutes on the database clock (default 60, capped at
     * {@link EpisodeThroughput#MAX_MINUTES}).
     */
    @GET
    @Path("throughput")
    public EpisodeThroughput.Window throughput(@QueryParam("minutes") String minutes) {
        return episodes.throughput(PageLimit.parse("minutes", minutes, 60, EpisodeThroughput.MAX_MINUTES));
    }

    /** {@code GET /stats/claims}: this node's claim outcomes since it started, and claimed rows per node. */
    @GET
    @Path("claims")
    public Claims.Stats claims() {
        return claims.stats();
    }

    /**
     * {@code GET /stats/actors?minutes=60}: per actor, episodes finished in the last {@code minutes}
     * (database clock), the success rate and the p50/p95 duration.
     */
    @GET
    @Path("actors")
    public io.cyclium.stats.ActorOutcomes.Window actors(@QueryParam("minutes") String minutes) {
        return stats.actorOutcomes(PageLimit.parse("minutes", minutes, 60, io.cyclium.stats.ActorOutcomes.MAX_MINUTES));
    }
}
