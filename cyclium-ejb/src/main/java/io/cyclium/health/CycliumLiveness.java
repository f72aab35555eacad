package io.cyclium.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/** {@code /health/live} on servers with MicroProfile Health: see {@link NodeHealth#liveness()}. */
@Liveness
@ApplicationScoped
public class CycliumLiveness implements HealthCheck {

    @Inject
    NodeHealth health;

    @Override
    public HealthCheckResponse call() {
        return CycliumReadiness.response("cyclium-live", health.liveness());
    }
}
