package io.cyclium.api;

import io.cyclium.audit.AuditAction;
import io.cyclium.console.security.OperatorRequest;
import io.cyclium.audit.PendingAudit;
import io.cyclium.config.CycliumConfig;
import io.cyclium.recovery.RecoverySweep;
import io.cyclium.recovery.SweepReport;
import io.cyclium.recovery.SweepScope;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /cyclium/api/recovery/sweep} with an optional {@code {"stack": "...", "env": "..."}}:
 * runs one recovery sweep now. Omitted fields mean this node's own stack and env; {@code "stack":
 * "*"} sweeps every stack; {@code "env": "-"} is the unset env.
 */
@Path("recovery")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RecoveryResource {

    @Inject
    OperatorRequest operator;

    @EJB
    RecoverySweep sweep;

    @Inject
    CycliumConfig config;

    @POST
    @Path("sweep")
    @Consumes(MediaType.APPLICATION_JSON)
    public SweepReport sweepNow(String body) {
        return operator.perform(AuditAction.RECOVERY_SWEEP, null, () -> sweep(body));
    }

    private SweepReport sweep(String body) {
        JsonObject o = body == null || body.isBlank() ? jakarta.json.JsonValue.EMPTY_JSON_OBJECT : JsonBodies.object(body);
        String stack = o.containsKey("stack") ? JsonBodies.optionalString(o, "stack") : config.stackSlug();
        String env = o.containsKey("env") ? JsonBodies.optionalString(o, "env") : config.env();
        String scopedEnv = "-".equals(env) ? null : env;
        // An unset stack (or "*") sweeps every stack; a slug sweeps its own rows and the NULL ones.
        SweepScope scope = SweepScope.of("*".equals(stack) ? null : stack, scopedEnv);
        PendingAudit.subject((stack == null ? "-" : stack) + "/" + (scopedEnv == null ? "-" : scopedEnv));
        return sweep.sweep(scope);
    }
}
