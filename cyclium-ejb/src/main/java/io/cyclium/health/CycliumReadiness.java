package io.cyclium.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /health/ready} on servers with MicroProfile Health: see {@link NodeHealth#readiness()}.
 * The server answers it to anyone, so each check says UP or DOWN and nothing more (no node name,
 * no schema version); the details are on {@code /cyclium/api/health?probe=ready} for a logged-in
 * caller.
 */
@Readiness
@ApplicationScoped
public class CycliumReadiness implements HealthCheck {

    @Inject
    NodeHealth health;

    @Override
    public HealthCheckResponse call() {
        return response("cyclium-ready", health.readiness().withoutDetails());
    }

    static HealthCheckResponse response(String name, NodeHealth.Report report) {
        HealthCheckResponseBuilder b = HealthCheckResponse.named(name).status(report.up());
        for (NodeHealth.Check c : report.checks()) {
            b.withData(c.name(), (c.up() ? "UP" : "DOWN") + (c.detail() == null ? "" : ": " + c.detail()));
        }
        return b.build();
    }
}
