package io.cyclium.tracing;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.CycliumConfigReader;
import io.cyclium.telemetry.OpenTelemetryTracing;
import io.cyclium.telemetry.Tracing;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Decides once at boot which {@link Tracing} this node uses. Off ({@link Tracing#OFF}) unless
 * {@code otel.sdk.disabled=false}, the MicroProfile Telemetry switch that also turns the server's
 * OpenTelemetry SDK on; then the server's {@code OpenTelemetry} bean gives the tracer. A server
 * without MicroProfile Telemetry (no such bean, no API on the class path) deploys as before, with
 * one log line saying traces are off.
 *
 * <p>The tracer is resolved here, in the boot's application context: Payara resolves its
 * per-application SDK from the calling component, which episode threads do not carry.
 */
@ApplicationScoped
public class TracingProducer {

    private static final Logger LOG = Logger.getLogger(TracingProducer.class.getName());
    static final String OPEN_TELEMETRY_TYPE = "io.opentelemetry.api.OpenTelemetry";

    @Inject
    CycliumConfig config;

    @Inject
    @Any
    Instance<Object> beans;

    private volatile Tracing tracing = Tracing.OFF;

    @PostConstruct
    void init() {
        if (!config.tracing()) {
            return;
        }
        Object openTelemetry = openTelemetry();
        if (openTelemetry == null) {
            LOG.warning(CycliumConfigReader.OTEL_SDK_DISABLED + "=false, but this server gives the application no"
                    + " OpenTelemetry (MicroProfile Telemetry missing or off): Cyclium traces are off");
            return;
        }
        tracing = OpenTelemetryTracing.of(openTelemetry);
        LOG.info("Cyclium traces episodes and workflows through the server's OpenTelemetry ("
                + openTelemetry.getClass().getName() + ")");
    }

    /** The container's OpenTelemetry bean, or null where the API or the bean is missing. */
    private Object openTelemetry() {
        try {
            Class<?> type = Class.forName(OPEN_TELEMETRY_TYPE, false, TracingProducer.class.getClassLoader());
            Instance<?> bean = beans.select(type);
            return bean.isResolvable() ? bean.get() : null;
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "The server's OpenTelemetry bean could not be created", e);
            return null;
        }
    }

    @Produces
    @Dependent
    Tracing tracing() {
        return tracing;
    }
}
