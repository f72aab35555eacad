package io.cyclium.api;

import io.cyclium.health.NodeHealth;
import io.cyclium.problem.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.Map;

/**
 * Open to anyone (web.xml). Without a probe: the application is deployed and answering, nothing
 * more. {@code ?probe=ready} / {@code ?probe=live}: the same checks as MicroProfile Health's
 * {@code /health/ready} and {@code /health/live}, for servers without it — 200 when up, 503 when
 * down, with each check's name and status; a caller with credentials (HTTP Basic, either role)
 * also gets each check's detail, which names the node and the schema version. The database part
 * of readiness is asked at most once a second however often the probe is called (NodeHealth).
 */
@Path("health")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class HealthResource {

    /** A probe's answer: {@code up} or {@code down}, with the checks behind it. */
    public record ProbeAnswer(String status, java.util.List<NodeHealth.Check> checks) {
    }

    @Inject
    NodeHealth health;

    @Context
    SecurityContext caller;

    @GET
    public Response health(@QueryParam("probe") String probe) {
        if (probe == null || probe.isBlank()) {
            return Response.ok(Map.of("status", "up")).build();
        }
        NodeHealth.Report report = switch (probe.trim()) {
            case "ready" -> health.readiness();
            case "live" -> health.liveness();
            default -> throw Problem.invalid("probe", "probe must be ready or live (or absent), was \""
                    + (probe.length() > 20 ? probe.substring(0, 20) + "…" : probe) + "\"");
        };
        if (caller.getUserPrincipal() == null) {
            report = report.withoutDetails();
        }
        return Response.status(report.up() ? 200 : 503).entity(new ProbeAnswer(report.up() ? "up" : "down", report.checks())).build();
    }
}
